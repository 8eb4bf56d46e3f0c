// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "tests/mmap_threshold/known_bad_common.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/base/attributes.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/fresh_process.h"
#include "common/sink.h"
#include "labs/mmap_threshold/task.h"

namespace mmap_threshold {
namespace known_bad {

int MapsKeepingBlocks(size_t size) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const size_t top = mallinfo2().keepcost;
    if (top > 40) alloclab::Escape(malloc(top - 40));
    const struct mallinfo2 before = mallinfo2();
    alloclab::Escape(malloc(size));
    const struct mallinfo2 after = mallinfo2();
    if (after.hblks > before.hblks) return 1;
    if (after.arena > before.arena) return 0;
  }
  return -1;
}

absl::StatusOr<size_t> SearchThreshold(absl::FunctionRef<int(size_t)> maps,
                                       size_t* largest_tried) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t low = 1;
  size_t high = 2 * kMmapThresholdMax / page;
  for (int answer = maps(high * page); answer != 1;
       answer = maps(high * page)) {
    if (answer < 0 || high * page >= (size_t{1} << 40)) {
      if (largest_tried != nullptr) *largest_tried = high * page;
      return absl::InternalError("no answer");
    }
    low = high + 1;
    high *= 2;
  }
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    const int answer = maps(mid * page);
    if (answer < 0) return absl::InternalError("no answer");
    if (answer == 1) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return high * page;
}

absl::StatusOr<size_t> ProbeInForkedCopy(
    absl::FunctionRef<absl::Status(size_t largest_tried)> nothing_maps) {
  // What the copy sends back: a threshold, or 0 and the size it stopped at.
  struct Found {
    size_t threshold = 0;
    size_t largest_tried = 0;
  };
  absl::StatusOr<Found> found = alloclab::RunInForkedChild<Found>([] {
    Found f;
    absl::StatusOr<size_t> t =
        SearchThreshold(MapsKeepingBlocks, &f.largest_tried);
    if (t.ok()) f.threshold = *t;
    return f;
  });
  if (!found.ok()) return found.status();
  if (found->threshold == 0) return nothing_maps(found->largest_tried);
  return found->threshold;
}

absl::StatusOr<size_t> CorrectProbe() {
  return ProbeInForkedCopy([](size_t largest_tried) {
    return absl::FailedPreconditionError(
        absl::StrCat("no threshold found: malloc mapped nothing up to ",
                     largest_tried, " bytes"));
  });
}

std::string FixedByEnvironment() {
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                           "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_"}) {
    if (getenv(name) != nullptr) return name;
  }
  const char* tunables = getenv("GLIBC_TUNABLES");
  for (absl::string_view t : absl::StrSplit(tunables ? tunables : "", ':')) {
    for (absl::string_view name :
         {"mmap_threshold=", "trim_threshold=", "top_pad=", "mmap_max="}) {
      if (absl::StartsWith(t, absl::StrCat("glibc.malloc.", name))) {
        return std::string(t);
      }
    }
  }
  return "";
}

namespace {

bool g_fixed = false;

}  // namespace

absl::Status PolicyWithRangeCheck(const MallocPolicy& policy,
                                  absl::FunctionRef<bool(size_t)> refused) {
  if (policy.kind == MallocPolicy::Kind::kFixed) {
    if (refused(policy.threshold_bytes)) {
      return absl::InvalidArgumentError("not a threshold mallopt() takes");
    }
    if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(policy.threshold_bytes)) !=
        1) {
      return absl::InternalError("mallopt refused");
    }
    g_fixed = true;
    return absl::OkStatus();
  }
  if (g_fixed) return absl::FailedPreconditionError("already fixed");
  if (const std::string cause = FixedByEnvironment(); !cause.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(cause, " is set"));
  }
  return absl::OkStatus();
}

}  // namespace known_bad

// A correct policy, so that only the probe is at fault. Weak: a known-bad
// whose mistake is the policy defines its own SetMallocPolicy(), and the
// linker takes that strong definition instead of this one, with no clash.
ABSL_ATTRIBUTE_WEAK absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  return known_bad::PolicyWithRangeCheck(
      policy, [](size_t t) { return t > kFixedThresholdMax; });
}

}  // namespace mmap_threshold
