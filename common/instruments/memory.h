// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: memory.h
// -----------------------------------------------------------------------------
//
// How much memory a program holds, and what the allocator thinks it holds.
// Choosing an allocator is a trade of time against memory: a faster
// allocator that keeps twice the resident set is not a free win, and only a
// measurement of both shows the trade.
//
// Three views, from three sources:
//
//   - The kernel's: the resident set (pages backed by RAM) now and at its
//     peak, from /proc/<pid>/status (VmRSS, VmHWM) and from getrusage(2)
//     (ru_maxrss), and for a child that exited, its peak from wait4(2).
//   - Over time: `RssSampler` reads VmRSS from a background thread, so an
//     experiment sees a peak that came and went between two reads of its own.
//   - glibc's: `mallinfo2()`, the arena and mmap totals of glibc's malloc.
//     Only glibc has it, and it describes glibc's malloc only: when another
//     allocator (a sanitizer's, jemalloc, tcmalloc) serves malloc, glibc's
//     numbers would describe a heap nobody uses, so `ReadMallinfo()` says so
//     instead of answering.
//
// All sizes from the kernel are in KiB, as the kernel reports them; glibc's
// are in bytes.
//
// Example:
//
//   alloclab::RssSampler sampler(absl::Milliseconds(5));
//   if (absl::Status s = sampler.Start(); !s.ok()) return s;
//   RunWorkload();
//   sampler.Stop();
//   absl::StatusOr<int64_t> peak_kib = sampler.MaxRssKib();
//   absl::StatusOr<alloclab::ProcStatusMemory> now =
//       alloclab::ReadProcStatusMemory();  // now->vm_hwm_kib: the peak so far

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_MEMORY_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_MEMORY_H_

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace alloclab {

// MallinfoSnapshot
//
// glibc's malloc totals, in bytes (counts for `hblks`), summed over all
// arenas.
struct MallinfoSnapshot {
  size_t arena = 0;     // bytes the arenas got from the kernel (brk, heaps)
  size_t hblks = 0;     // chunks that have an mmap of their own
  size_t hblkhd = 0;    // bytes in those chunks
  size_t uordblks = 0;  // bytes allocated from the arenas
  size_t fordblks = 0;  // bytes free in the arenas
  size_t keepcost = 0;  // bytes in the main arena's top chunk
};

// ReadMallinfo()
//
// glibc's mallinfo2(). Unimplemented when the C library is not glibc 2.33
// or later, or when malloc in this process is not glibc's (the message
// names the library that serves it, e.g. libasan.so under AddressSanitizer).
absl::StatusOr<MallinfoSnapshot> ReadMallinfo();

// ProcStatusMemory
//
// The resident set now (VmRSS) and its peak since the process started or
// exec'd (VmHWM), in KiB.
struct ProcStatusMemory {
  int64_t vm_rss_kib = 0;
  int64_t vm_hwm_kib = 0;
};

// ReadProcStatusMemory()
//
// Reads VmRSS and VmHWM from `path` ("/proc/<pid>/status" reads another
// process). The error names the file: unreadable (no /proc), or without the
// two lines (a kernel thread, a process that has exited). A successful read
// allocates nothing, so sampling does not disturb the heap it measures.
absl::StatusOr<ProcStatusMemory> ReadProcStatusMemory(
    const char* path = "/proc/self/status");

// SmapsKibAt() / SmapsKibOf()
//
// A "Name: 123 kB" field ("Rss", "AnonHugePages", ...) of this process's
// mappings in /proc/self/smaps, summed over those that `address` falls in
// (one mapping) or that are named `mapping` ("[heap]": glibc's brk heap),
// in KiB. 0 when no mapping matches (a process whose malloc never used brk
// has no [heap]). NotFound when the kernel does not give the field (an old
// kernel, no smaps); the error names it. Allocates: call it between
// measurements, not inside one.
absl::StatusOr<int64_t> SmapsKibAt(const void* address,
                                   absl::string_view field);
absl::StatusOr<int64_t> SmapsKibOf(absl::string_view mapping,
                                   absl::string_view field);

// ResidentKib()
//
// How much of [`start`, `start` + `bytes`) is resident, in KiB, from
// mincore(2): the pages of the range that hold memory now (the range is
// widened to whole pages). For anonymous memory, a page is resident once
// written and until it is unmapped or given back (munmap, brk, MADV_DONTNEED).
// Errors name mincore's errno (ENOMEM: part of the range is not mapped).
// Allocates nothing (on success), so it can measure a heap without moving it.
absl::StatusOr<double> ResidentKib(const void* start, size_t bytes);

// MaxRssKibFromRusage()
//
// getrusage(RUSAGE_SELF).ru_maxrss, in KiB: the peak resident set of this
// process. Unlike VmHWM it survives exec (Linux keeps the larger of the
// peaks before and after), so it is never below VmHWM read just before it,
// up to the kernel's per-CPU batching of RSS counters.
absl::StatusOr<int64_t> MaxRssKibFromRusage();

// ChildUsage
//
// How a waited-for child ended and what it used: `exit_code` when it exited
// (else -1), `term_signal` when a signal killed it (else 0).
//
// `peak_rss_kib` is wait4's ru_maxrss: the largest resident set of the child,
// or of any descendant it waited for itself. A child that was forked without
// exec starts with the parent's resident pages in its page tables, and they
// count; after exec, the peak before exec still counts. To measure one
// program's peak, fork and exec it right away, before the parent grows.
struct ChildUsage {
  int exit_code = -1;
  int term_signal = 0;
  int64_t peak_rss_kib = 0;
  double user_s = 0;
  double sys_s = 0;
  // wait4's ru_minflt and ru_majflt: page faults of the child (and of its
  // waited-for descendants), exec included.
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
};

// WaitForChild()
//
// Waits for child `pid` to end (wait4) and returns its usage. InvalidArgument
// when `pid` is not an unwaited child of this process.
absl::StatusOr<ChildUsage> WaitForChild(pid_t pid);

// RssSampler
//
// Samples VmRSS of this process from a background thread every `interval`,
// from `Start()` to `Stop()`. Each read costs a few microseconds of the
// sampling thread; on a machine with one core it competes with the work it
// watches, so prefer intervals of a millisecond or more.
//
// Tests wait on the number of samples, never on time: `WaitForSamples(n)`
// returns once n samples exist, however slow the machine.
//
// Thread-safe: any thread may read the samples while the sampler runs. (It
// locks with std::mutex rather than absl::Mutex: ThreadSanitizer sees
// through pthread locks, not through a system absl built without it.)
class RssSampler {
 public:
  // Sample
  //
  // `t_ms`: milliseconds since `Start()` (steady clock).
  struct Sample {
    double t_ms = 0;
    int64_t rss_kib = 0;
  };

  explicit RssSampler(absl::Duration interval = absl::Milliseconds(10),
                      std::string path = "/proc/self/status");
  RssSampler(const RssSampler&) = delete;
  RssSampler& operator=(const RssSampler&) = delete;
  ~RssSampler();  // stops a running sampler

  // Start()
  //
  // Takes the first sample on the calling thread, then starts the sampling
  // thread. The error of that first read (no /proc) is returned and nothing
  // starts; FailedPrecondition when already started (a sampler runs once)
  // or when `interval` is not positive.
  absl::Status Start();

  // Stop()
  //
  // Takes a last sample and joins the thread. Harmless when not running.
  void Stop();

  // WaitForSamples()
  //
  // Blocks until at least `n` samples exist; false if `timeout` passed first
  // or the sampler stopped (or failed) with fewer.
  bool WaitForSamples(size_t n, absl::Duration timeout) const;

  // samples(), sample_count()
  std::vector<Sample> samples() const;
  size_t sample_count() const;

  // MaxRssKib()
  //
  // The largest sample. FailedPrecondition before the first sample; the read
  // error if sampling failed part way (a sample is never made up).
  absl::StatusOr<int64_t> MaxRssKib() const;

  // status()
  //
  // OK, or the error that stopped sampling.
  absl::Status status() const;

 private:
  void Run();
  absl::Status TakeSample();

  const absl::Duration interval_;
  const std::string path_;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;  // a sample, or the end of Run()
  std::condition_variable stop_requested_;
  // Guarded by mu_:
  std::vector<Sample> samples_;
  absl::Status status_;
  bool started_ = false;
  bool stopping_ = false;
  bool running_ = false;
  // Set before the thread starts, read-only after.
  int64_t start_ns_ = 0;
  std::thread thread_;
};

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_MEMORY_H_
