// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Dynamic() is refused only where the
// environment sets the mmap threshold itself. The other three tunables
// (trim_threshold, top_pad, mmap_max) and their older variables switch the
// adjustment off too, and task.h promises FailedPrecondition for all eight
// settings. The suite must reject it.
//
// The probe and the rest of the policy are the reference's; the mistake is
// the environment check Dynamic() uses in place of the reference's
// FixedByEnvironment().

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

// The reference, with its SetMallocPolicy() renamed out of the way.
#define SetMallocPolicy ReferenceSetMallocPolicy
#include "solutions/mmap_threshold/task.cc"
#undef SetMallocPolicy

namespace mmap_threshold {

namespace {

// Whether the environment fixed the threshold at start-up: the name of the
// setting, or "". Wrong, unlike the reference's FixedByEnvironment().
std::string ThresholdSetting() {
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

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  if (policy.kind != MallocPolicy::Kind::kDynamic || g_fixed) {
    return ReferenceSetMallocPolicy(policy);
  }
  if (const std::string cause = ThresholdSetting(); !cause.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(cause, " is set"));
  }
  return absl::OkStatus();
}

}  // namespace mmap_threshold
