// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "set MALLOC_MMAP_THRESHOLD_ to t, that is the
// documented knob". glibc reads it once, at start-up: setting it in the
// running process changes nothing, and the threshold stays dynamic, where
// task.h promises Fixed(t) holds t. The suite must reject it.
//
// The probe and the rest of the policy are the reference's; the mistake is
// how Fixed() fixes the threshold.

#include <cstddef>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "labs/mmap_threshold/task.h"

// The reference, with its SetMallocPolicy() renamed out of the way.
#define SetMallocPolicy ReferenceSetMallocPolicy
#include "solutions/mmap_threshold/task.cc"
#undef SetMallocPolicy

namespace mmap_threshold {

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  if (policy.kind != MallocPolicy::Kind::kFixed ||
      policy.threshold_bytes > kFixedThresholdMax) {
    return ReferenceSetMallocPolicy(policy);
  }
  // The mistake: glibc reads the variable at start-up, not now.
  if (setenv("MALLOC_MMAP_THRESHOLD_",
             absl::StrCat(policy.threshold_bytes).c_str(), 1) != 0) {
    return absl::InternalError("setenv failed");
  }
  g_fixed = true;
  g_fixed_threshold = policy.threshold_bytes;
  return absl::OkStatus();
}

}  // namespace mmap_threshold
