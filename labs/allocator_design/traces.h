// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: traces.h
// -----------------------------------------------------------------------------
//
// Fixed allocation traces, and their replay against task.h: the measure of
// how well an allocator uses the memory it takes (task.h's promise 5), as
// CMU's malloclab scores utilization on fixed traces. A trace is a list of
// operations on numbered blocks; the same trace, replayed against any
// allocator, asks for exactly the same bytes in the same order, so the
// utilizations of two allocators compare their designs and nothing else.
//
//   peak live bytes requested / peak bytes held
//
// (held: task.h's Counters::bytes_held after each operation). 1.0 would be
// an allocator that wastes nothing; one that never reuses freed memory
// scores the live peak over everything the trace ever asked for.
//
// Example:
//
//   for (const allocator_design::Trace& trace : allocator_design::Traces()) {
//     absl::StatusOr<allocator_design::TraceResult> r =
//         allocator_design::ReplayTrace(trace);
//     // r->utilization >= allocator_design::kMinUtilization
//   }

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_TRACES_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_TRACES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace allocator_design {

// TraceOp
//
// kAllocate: block `id` gets `size` bytes (it is not live before);
// kFree: block `id` is freed (it is live).
struct TraceOp {
  enum class Kind { kAllocate, kFree };
  Kind kind = Kind::kAllocate;
  uint32_t id = 0;
  uint32_t size = 0;
};

// Trace
//
// A named trace: `ops` in order, every block freed by the end; `what` says
// in one line what it stresses.
struct Trace {
  std::string name;
  std::string what;
  std::vector<TraceOp> ops;
};

// Traces()
//
// The course's traces, the same on every run: small_live, phases, mixed
// and large, generated from fixed seeds, then python, recorded once from a
// real program (python3; traces.cc) and built in from its file, with block
// numbers for addresses and sizes as recorded.
const std::vector<Trace>& Traces();

// kGlibcMmapThresholdAtStart
//
// The mmap threshold a glibc process starts with (mallopt(3)'s
// M_MMAP_THRESHOLD, glibc's DEFAULT_MMAP_THRESHOLD_MIN): 128 KiB; its trim
// threshold starts at the same. The free of a block glibc mapped, larger
// than the threshold (up to 32 MiB), raises the threshold to that block's
// size and the trim threshold to twice that (glibc 2.36's malloc.c, in
// __libc_free): from then on blocks that size come from its heap, and the
// heap shrinks only when twice that is free at its top.
inline constexpr size_t kGlibcMmapThresholdAtStart = 128 * 1024;

// BuildTrace()
//
// A new copy of the trace of Traces() named `name` (nullopt for no such
// trace), built alone. Like Traces(), it frees no block of glibc's malloc of
// kGlibcMmapThresholdAtStart or more (its operations are reserved once at
// their final size, its builder's list of live blocks mapped directly), so
// it leaves glibc's thresholds where the process started them. A build that
// grew and copied its vectors of megabytes would free mapped blocks, raise
// glibc's mmap threshold to 12 MiB (its trim threshold to 24 MiB), and
// glibc would then serve every block of the `large` trace from its heap, as
// a process that has run only the trace would not. For a replay, on glibc or
// on yours, in a process whose malloc has served nothing but the trace.
std::optional<Trace> BuildTrace(absl::string_view name);

// TraceResult
struct TraceResult {
  uint64_t peak_live_bytes = 0;    // the most bytes requested and live at once
  uint64_t peak_held_bytes = 0;    // the most bytes_held, less what was held
                                   // when the replay began
  uint64_t peak_mapped_bytes = 0;  // the same by the page source's count
                                   // (mapped, less unmapped and released),
                                   // which no allocator holds less than
  double utilization = 0;          // peak_live_bytes / peak_held_bytes
};

// ReplayTrace()
//
// Replays `trace` against task.h's Allocate() and Free(), writing into each
// block and checking its bytes before freeing it. Measures from the
// allocator's state when called: call it in a process whose allocator has
// not served anything else (a new process, or a fork of one that never used
// it). The page source's clock (pages.h's NowNs()) stands still during the
// replay, so that no decay depends on how fast the machine is: the result
// is the same on every run. Not for use while a test's
// internal::ScopedFakeClock lives (the replay's own ends the fake clock).
// DataLoss when a block's bytes changed while it was live, or when Allocate()
// failed (the message names the trace and the operation).
absl::StatusOr<TraceResult> ReplayTrace(const Trace& trace);

// ScopedFixedAddresses
//
// While it lives, the programs this process starts (fresh_process.h's fresh
// copies, in which ReplayTrace() runs) run without address-space
// randomization (personality(2)'s ADDR_NO_RANDOMIZE). An allocator whose
// metadata depends on where its memory lands (a page map that adds a node
// for each range its spans reach) holds a node more or less from one
// randomized run to the next; with the same addresses every time, the peak
// held, and the utilization, are the same on every run. `ok()` is false
// when the kernel refused (a container's seccomp policy may): the replays
// then run randomized, as before.
class ScopedFixedAddresses {
 public:
  ScopedFixedAddresses();
  ~ScopedFixedAddresses();
  ScopedFixedAddresses(const ScopedFixedAddresses&) = delete;
  ScopedFixedAddresses& operator=(const ScopedFixedAddresses&) = delete;

  bool ok() const { return ok_; }

 private:
  int old_persona_ = -1;
  bool ok_ = false;
};

}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_TRACES_H_
