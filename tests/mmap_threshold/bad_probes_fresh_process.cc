// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "probe in a brand-new process, then nothing can disturb the
// heap". Nothing does, but a new process has a new heap, whose threshold has
// never moved: this probe finds 128 KiB whatever the caller freed. The suite
// must reject it.

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/fresh_process.h"
#include "labs/mmap_threshold/task.h"

namespace mmap_threshold {
namespace {

inline void Escape(void* p) { asm volatile("" : : "g"(p) : "memory"); }

// 1: malloc(size) mapped once the top chunk was used up; 0: the heap grew.
int Maps(size_t size) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const size_t top = mallinfo2().keepcost;
    if (top > 40) Escape(malloc(top - 40));
    const struct mallinfo2 before = mallinfo2();
    Escape(malloc(size));
    const struct mallinfo2 after = mallinfo2();
    if (after.hblks > before.hblks) return 1;
    if (after.arena > before.arena) return 0;
  }
  return -1;
}

// The right search, in the wrong process: the new one is thrown away, so
// it may keep everything it allocates.
void SearchInNewProcess(alloclab::FreshCall& call) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  Escape(malloc(1));
  size_t low = 1;
  size_t high = 2 * kMmapThresholdMax / page;
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    const int maps = Maps(mid * page);
    if (maps < 0) {
      call.Fail("no answer");
      return;
    }
    if (maps == 1) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  call.Record("threshold", static_cast<double>(high * page));
}
ALLOCLAB_FRESH_CALL("bad_probe_in_new_process", SearchInNewProcess);

bool g_fixed = false;

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("bad_probe_in_new_process");
  if (!r.ok()) return r.status();
  return static_cast<size_t>(r->values.at("threshold"));
}

// A correct policy, so that only the probe is at fault.
absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  if (policy.kind == MallocPolicy::Kind::kFixed) {
    if (policy.threshold_bytes > kMmapThresholdMax) {
      return absl::InvalidArgumentError("above the maximum");
    }
    if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(policy.threshold_bytes)) !=
        1) {
      return absl::InternalError("mallopt refused");
    }
    g_fixed = true;
    return absl::OkStatus();
  }
  if (g_fixed) return absl::FailedPreconditionError("already fixed");
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                           "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_"}) {
    if (getenv(name) != nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(name, " is set"));
    }
  }
  const char* tunables = getenv("GLIBC_TUNABLES");
  for (absl::string_view t : absl::StrSplit(tunables ? tunables : "", ':')) {
    for (absl::string_view name :
         {"mmap_threshold=", "trim_threshold=", "top_pad=", "mmap_max="}) {
      if (absl::StartsWith(t, absl::StrCat("glibc.malloc.", name))) {
        return absl::FailedPreconditionError(absl::StrCat(t, " is set"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace mmap_threshold
