// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Dynamic() is refused only where the
// environment sets the mmap threshold itself. The other three tunables
// (trim_threshold, top_pad, mmap_max) and their older variables switch the
// adjustment off too, and task.h promises FailedPrecondition for all eight
// settings. The suite must reject it.
//
// The probe is known_bad_common's correct one; the mistake is the
// policy's, in the environment check it uses in place of
// known_bad::FixedByEnvironment(). Its SetMallocPolicy() takes the place of
// known_bad_common's weak, correct one.

#include <malloc.h>

#include <cstddef>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

namespace mmap_threshold {
namespace {

bool g_fixed = false;

// Whether the environment fixed the threshold at start-up: the name of the
// setting, or "". Wrong, unlike known_bad::FixedByEnvironment().
std::string FixedByEnvironment() {
  // The mistake: only the setting named after the threshold is looked at.
  if (getenv("MALLOC_MMAP_THRESHOLD_") != nullptr) {
    return "MALLOC_MMAP_THRESHOLD_";
  }
  const char* tunables = getenv("GLIBC_TUNABLES");
  for (absl::string_view t : absl::StrSplit(tunables ? tunables : "", ':')) {
    if (absl::StartsWith(t, "glibc.malloc.mmap_threshold=")) {
      return std::string(t);
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  return known_bad::CorrectProbe();
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
  return absl::OkStatus();
}

}  // namespace mmap_threshold
