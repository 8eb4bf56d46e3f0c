// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "Dynamic() puts glibc's default back: 128 KiB".
// Setting the threshold, even to its default, fixes it: the adjustment that
// Dynamic() promises to keep is switched off. The suite must reject it.
//
// The probe here is a correct one (the trials of known_bad_common.h, in a
// forked copy of this process); the mistake is the policy's. It uses
// nothing of known_bad_common, whose correct SetMallocPolicy() would clash
// with its own.

#include <malloc.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <string>

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
namespace {

// 1 if malloc(size) maps once the heap's top chunk is used up, 0 if it grew
// the heap, -1 if free chunks kept serving it. Keeps what it takes: it runs
// in a forked copy that is thrown away.
int Maps(size_t size) {
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

// The smallest page multiple that maps; 0 when a trial had no answer or
// nothing maps up to 1 TiB.
size_t SearchInThisCopy() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t low = 1;
  size_t high = 2 * kMmapThresholdMax / page;
  for (int answer = Maps(high * page); answer != 1;
       answer = Maps(high * page)) {
    if (answer < 0 || high * page >= (size_t{1} << 40)) return 0;
    low = high + 1;
    high *= 2;
  }
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    const int answer = Maps(mid * page);
    if (answer < 0) return 0;
    if (answer == 1) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return high * page;
}

bool g_fixed = false;

// Whether the environment fixed the threshold at start-up: the name of the
// setting, or "".
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

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  absl::StatusOr<size_t> threshold =
      alloclab::RunInForkedChild<size_t>(SearchInThisCopy);
  if (!threshold.ok()) return threshold.status();
  if (*threshold == 0) {
    return absl::FailedPreconditionError("no threshold found: nothing maps");
  }
  return *threshold;
}

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  if (policy.kind == MallocPolicy::Kind::kFixed) {
    if (policy.threshold_bytes > kFixedThresholdMax) {
      return absl::InvalidArgumentError("not an int");
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
  // The mistake: "back to the default" by setting the default, which fixes
  // the threshold there and switches the adjustment off.
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(kDefaultMmapThreshold)) != 1) {
    return absl::InternalError("mallopt refused");
  }
  return absl::OkStatus();
}

}  // namespace mmap_threshold
