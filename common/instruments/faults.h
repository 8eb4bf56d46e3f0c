// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: faults.h
// -----------------------------------------------------------------------------
//
// Page faults around a call. The first touch of a fresh page costs a minor
// fault (the kernel finds a zeroed page and maps it); a major fault also waits
// for I/O. Counting them tells whether a call paid for memory it had not
// touched before, which a timer alone cannot tell.
//
// Two sources, picked at `Create()`:
//   - perf_event_open software counters (PERF_COUNT_SW_PAGE_FAULTS_MIN/MAJ),
//     exact and per thread, where the kernel allows them
//     (perf_event_paranoid, seccomp; Bazel's sandbox allows user-mode
//     counting only), but not per process: a counter follows one thread;
//   - getrusage(2) (RUSAGE_THREAD or RUSAGE_SELF), which always works.
// `source()` says which one answered, for the machine line and the JSON.
//
// Example:
//
//   absl::StatusOr<alloclab::FaultCounter> counter =
//       alloclab::FaultCounter::Create(alloclab::FaultScope::kThread);
//   alloclab::FaultCounts before = *counter->Read();
//   Touch(buffer);
//   alloclab::FaultCounts faults = *counter->Read() - before;

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_FAULTS_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_FAULTS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// FaultCounts
struct FaultCounts {
  int64_t minor = 0;
  int64_t major = 0;
};

FaultCounts operator-(const FaultCounts& a, const FaultCounts& b);

// FaultScope
//
// kThread counts the calling thread only (the thread that calls `Create()`
// must be the one that calls `Read()`); kProcess counts all threads.
enum class FaultScope { kThread, kProcess };

// FaultSource
//
// kAuto tries perf_event first and falls back to getrusage.
enum class FaultSource { kAuto, kPerfEvent, kGetrusage };

// FaultCounter
//
// Reads cumulative fault counts from one source. Movable, not copyable (it
// may own perf_event file descriptors).
class FaultCounter {
 public:
  // Create()
  //
  // With kAuto, never fails: getrusage always answers. With kPerfEvent,
  // returns the reason the kernel refused (e.g. "perf_event_open: Permission
  // denied (perf_event_paranoid=3)"), and Unimplemented for kProcess.
  static absl::StatusOr<FaultCounter> Create(
      FaultScope scope, FaultSource source = FaultSource::kAuto);

  FaultCounter(FaultCounter&& other) noexcept;
  FaultCounter& operator=(FaultCounter&& other) noexcept;
  FaultCounter(const FaultCounter&) = delete;
  FaultCounter& operator=(const FaultCounter&) = delete;
  ~FaultCounter();

  // Read()
  //
  // Faults counted so far by this source (perf_event: since `Create()`;
  // getrusage: since the thread or process started). Use differences.
  // A kThread getrusage counter read on another thread than its creator's
  // is FailedPrecondition: RUSAGE_THREAD would answer for the wrong thread.
  absl::StatusOr<FaultCounts> Read() const;

  // source()
  //
  // "perf_event", "perf_event(user)", "getrusage(RUSAGE_THREAD)" or
  // "getrusage(RUSAGE_SELF)". "perf_event(user)" means the kernel allowed
  // only a user-mode counter (perf_event_paranoid=2 without privilege, or
  // a user namespace such as Bazel's sandbox): faults taken inside system
  // calls (read(2) into an untouched buffer) are missed. Only kPerfEvent
  // settles for it; kAuto prefers getrusage, which counts those too.
  absl::string_view source() const { return source_name_; }

 private:
  FaultCounter(FaultScope scope, std::string source_name, int minor_fd,
               int major_fd);

  FaultScope scope_;
  std::string source_name_;
  int minor_fd_ = -1;  // perf_event descriptors, -1 for getrusage
  int major_fd_ = -1;
  int owner_tid_ = 0;  // RUSAGE_THREAD answers for the caller: Read() checks
};

// FaultsDuring()
//
// The faults of the calling thread while `fn` runs, from a counter the
// caller created on this thread (so the creation cost is not measured).
template <typename Fn>
absl::StatusOr<FaultCounts> FaultsDuring(const FaultCounter& counter, Fn&& fn) {
  absl::StatusOr<FaultCounts> before = counter.Read();
  if (!before.ok()) return before.status();
  fn();
  absl::StatusOr<FaultCounts> after = counter.Read();
  if (!after.ok()) return after.status();
  return *after - *before;
}

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_FAULTS_H_
