// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab mmap_threshold: the reference solution.
//
// The probe works in a forked copy of the process, so that nothing it does,
// least of all freeing a mapped block, reaches the caller's heap. In the
// copy it asks, for a size s: "when the heap is out of free memory, does
// malloc(s) map?" A plain malloc(s) cannot answer that, because glibc looks
// at the threshold only when neither a free chunk nor the heap's top chunk
// can serve the request, and the top chunk may hold hundreds of KiB. So
// each trial first takes the whole top chunk (mallinfo2().keepcost says its
// size), then asks for s: either malloc mapped a block (hblks grew), or it
// grew the heap (arena grew), or (a third outcome) a free chunk of the heap
// served it, which says nothing, so the trial tries again. Nothing is ever
// freed in the copy, and the copy exits. The search first doubles s from
// twice the dynamic ceiling until a block maps (a fixed threshold can be
// far above that ceiling), then a binary search over whole pages finds the
// smallest size that maps.

#include "labs/mmap_threshold/task.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/sink.h"
#include "common/machine/allocator_probe.h"

namespace mmap_threshold {
namespace {

// A request of keepcost - kTopSlack bytes becomes a chunk of keepcost - 32
// (8 bytes of header, rounded up to 16): the top keeps 32 bytes, the
// smallest chunk there is, which can serve no request of a page or more.
constexpr size_t kTopSlack = 40;

// A trial that keeps meeting free chunks of the heap gives up after this
// many attempts; each attempt uses up the chunk it met.
constexpr int kAttemptsPerTrial = 64;

// Escape(p) keeps a pointer observable, so that GCC does not delete the
// malloc that made it: the blocks a trial takes are never used otherwise.
using alloclab::Escape;

// Beyond this the probe stops doubling: no real threshold is 1 TiB, and a
// kernel that overcommits without limit would let the heap grow that far.
constexpr size_t kLargestTrial = size_t{1} << 40;

enum class Trial { kMapped, kHeap, kUndecided, kNoMemory };

// Takes the heap's top chunk, all of it, so that the next request has to
// grow the heap or map.
void TakeTopChunk() {
  const size_t top = mallinfo2().keepcost;
  if (top > kTopSlack) Escape(malloc(top - kTopSlack));
}

// Does malloc(size) map when the heap has no free memory to serve it? Runs
// in the probe's own copy of the process: what it allocates stays there.
Trial MapsWhenHeapIsFull(size_t size) {
  for (int attempt = 0; attempt < kAttemptsPerTrial; ++attempt) {
    TakeTopChunk();
    const struct mallinfo2 before = mallinfo2();
    void* block = malloc(size);
    Escape(block);
    const struct mallinfo2 after = mallinfo2();
    if (block == nullptr) return Trial::kNoMemory;
    if (after.hblks > before.hblks) return Trial::kMapped;
    if (after.arena > before.arena) return Trial::kHeap;
    // A free chunk of the heap served it. It stays taken; try again.
  }
  return Trial::kUndecided;
}

// What the forked copy sends back (trivially copyable, for the pipe).
struct ProbeOutcome {
  enum class Code { kFound, kNeverMaps, kUndecided } code = Code::kUndecided;
  size_t threshold = 0;
  size_t size = 0;             // the size that failed, for the message
  bool malloc_failed = false;  // kNeverMaps: malloc(size) returned null
};

ProbeOutcome ProbeInThisCopy() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // A heap that was never used has no top chunk yet: one small request
  // sets up the arena (and the thread cache) first.
  Escape(malloc(1));

  ProbeOutcome outcome;
  // Invariant once found: `high` pages map; fewer than `low` pages do not.
  size_t low = 1;
  size_t high = 2 * kMmapThresholdMax / page;  // above any dynamic threshold
  for (bool found = false; !found;) {
    outcome.size = high * page;
    switch (MapsWhenHeapIsFull(high * page)) {
      case Trial::kMapped:
        found = true;
        break;
      case Trial::kHeap:
        if (high * page >= kLargestTrial) {
          outcome.code = ProbeOutcome::Code::kNeverMaps;
          return outcome;
        }
        low = high + 1;
        high *= 2;
        break;
      case Trial::kNoMemory:  // no larger block to try
        outcome.code = ProbeOutcome::Code::kNeverMaps;
        outcome.malloc_failed = true;
        return outcome;
      case Trial::kUndecided:
        return outcome;
    }
  }
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    outcome.size = mid * page;
    switch (MapsWhenHeapIsFull(mid * page)) {
      case Trial::kMapped:
        high = mid;
        break;
      case Trial::kHeap:
        low = mid + 1;
        break;
      case Trial::kUndecided:
      case Trial::kNoMemory:
        return outcome;
    }
  }
  outcome.code = ProbeOutcome::Code::kFound;
  outcome.threshold = high * page;
  return outcome;
}

// The glibc tunables (and their older environment variables) that switch
// the dynamic threshold off at start-up.
constexpr absl::string_view kFixingTunables[] = {
    "glibc.malloc.mmap_threshold", "glibc.malloc.trim_threshold",
    "glibc.malloc.top_pad", "glibc.malloc.mmap_max"};
constexpr const char* kFixingVariables[] = {
    "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
    "MALLOC_MMAP_MAX_"};

// Why the environment has switched the adjustment off, or "" if it has not.
std::string FixedByEnvironment() {
  if (const char* tunables = getenv("GLIBC_TUNABLES")) {
    for (absl::string_view setting : absl::StrSplit(tunables, ':')) {
      for (absl::string_view name : kFixingTunables) {
        if (absl::StartsWith(setting, absl::StrCat(name, "="))) {
          return absl::StrCat("GLIBC_TUNABLES sets ", setting);
        }
      }
    }
  }
  for (const char* name : kFixingVariables) {
    if (getenv(name) != nullptr) {
      return absl::StrCat("the environment sets ", name);
    }
  }
  return "";
}

// Whether, and where, this process fixed the threshold through
// SetMallocPolicy(). (Fixed(0) is legal: every request then maps.)
bool g_fixed = false;
size_t g_fixed_threshold = 0;

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  // Another allocator (LD_PRELOAD) maps as it likes: what the probe would
  // find is no threshold of glibc's. Where the linker cannot say (a static
  // binary), the probe runs and its outcome speaks.
  if (absl::StatusOr<alloclab::MallocProvider> malloc = alloclab::ProbeMalloc();
      malloc.ok() && malloc->allocator != "glibc") {
    return absl::FailedPreconditionError(absl::StrCat(
        "malloc here is ", malloc->allocator, "'s (", malloc->path,
        "), not glibc's: it has no mmap threshold of glibc's to probe"));
  }
  absl::StatusOr<ProbeOutcome> outcome =
      alloclab::RunInForkedChild<ProbeOutcome>(ProbeInThisCopy);
  if (!outcome.ok()) {
    return absl::InternalError(
        absl::StrCat("threshold probe: ", outcome.status().message()));
  }
  switch (outcome->code) {
    case ProbeOutcome::Code::kFound:
      return outcome->threshold;
    case ProbeOutcome::Code::kNeverMaps:
      return absl::FailedPreconditionError(absl::StrCat(
          "malloc mapped no block of ", 2 * kMmapThresholdMax,
          " bytes or more: malloc(", outcome->size, ") ",
          outcome->malloc_failed
              ? "failed (out of memory)"
              : "still grew the heap (the probe stops there)",
          "; the threshold is fixed above that, mmap is switched off "
          "(M_MMAP_MAX = 0), or malloc is not glibc's"));
    case ProbeOutcome::Code::kUndecided:
      break;
  }
  return absl::InternalError(
      absl::StrCat("threshold probe: malloc(", outcome->size,
                   ") neither mapped nor grew the heap in ", kAttemptsPerTrial,
                   " attempts: free chunks kept serving it, or it failed "
                   "(is malloc glibc's?)"));
}

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  switch (policy.kind) {
    case MallocPolicy::Kind::kDynamic: {
      if (g_fixed) {
        return absl::FailedPreconditionError(absl::StrCat(
            "this process already fixed the mmap threshold at ",
            g_fixed_threshold,
            " bytes, and glibc cannot switch the adjustment back on; "
            "choose the policy in a fresh process"));
      }
      const std::string cause = FixedByEnvironment();
      if (!cause.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat(cause,
                         ", which switches glibc's dynamic mmap threshold off "
                         "for this process"));
      }
      return absl::OkStatus();  // glibc's default: nothing to do
    }
    case MallocPolicy::Kind::kFixed: {
      // Above kMmapThresholdMax is fine on glibc 2.35+: that is only the
      // ceiling of the dynamic adjustment (2.34 and earlier refuse it, and
      // mallopt()'s 0 is reported below). mallopt() takes an int, though.
      if (policy.threshold_bytes > kFixedThresholdMax) {
        return absl::InvalidArgumentError(
            absl::StrCat("a fixed mmap threshold of ", policy.threshold_bytes,
                         " bytes does not fit mallopt()'s int (at most ",
                         kFixedThresholdMax, ")"));
      }
      if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(policy.threshold_bytes)) !=
          1) {
        return absl::InternalError(absl::StrCat("mallopt(M_MMAP_THRESHOLD, ",
                                                policy.threshold_bytes,
                                                ") was refused"));
      }
      g_fixed = true;
      g_fixed_threshold = policy.threshold_bytes;
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError("unknown MallocPolicy::Kind");
}

}  // namespace mmap_threshold
