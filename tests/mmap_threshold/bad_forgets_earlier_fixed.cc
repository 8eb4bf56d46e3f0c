// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Dynamic() after a Fixed() says OK, "it is the
// default, nothing to do". glibc cannot switch the adjustment back on, and
// task.h promises FailedPrecondition for it. The suite must reject it.
//
// The probe and the rest of the policy are the reference's; the mistake is
// Dynamic()'s.

#include <malloc.h>

#include <cstddef>
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
  if (policy.kind != MallocPolicy::Kind::kDynamic) {
    return ReferenceSetMallocPolicy(policy);
  }
  // The mistake: an earlier Fixed() is not remembered; only the
  // environment is checked.
  if (const std::string cause = FixedByEnvironment(); !cause.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(cause, " is set"));
  }
  return absl::OkStatus();
}

}  // namespace mmap_threshold
