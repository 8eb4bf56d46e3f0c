// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the tidy probe. It runs in the caller's process and frees
// every block it took, so no block is left behind; but each free of a
// mapped block raises the threshold it is searching for, so the search
// chases its own tail and the caller's threshold ends up moved. The suite
// must reject it.

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "labs/mmap_threshold/task.h"

namespace mmap_threshold {
namespace {

inline void Escape(void* p) { asm volatile("" : : "g"(p) : "memory"); }

// 1: malloc(size) mapped once the top chunk was used up; 0: the heap grew.
// Frees both blocks before it answers.
int Maps(size_t size) {
  const size_t top = mallinfo2().keepcost;
  void* top_block = top > 40 ? malloc(top - 40) : nullptr;
  Escape(top_block);
  const struct mallinfo2 before = mallinfo2();
  void* block = malloc(size);
  Escape(block);
  const struct mallinfo2 after = mallinfo2();
  free(block);
  free(top_block);
  return after.hblks > before.hblks ? 1 : 0;
}

bool g_fixed = false;

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t low = 1;
  size_t high = 2 * kMmapThresholdMax / page;
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    const int maps = Maps(mid * page);
    if (maps < 0) return absl::InternalError("no answer");
    if (maps == 1) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return high * page;
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
