// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Dynamic() where the environment fixed the threshold is
// refused with FailedPrecondition "the environment has fixed the mmap
// threshold": the right code, for all eight settings, and a message that
// explains; but it does not say which setting, so the user cannot find
// what to unset. task.h promises "The message names the cause". The suite
// must reject it.
//
// The probe and the rest of the policy are the reference's; the mistake is
// the message.

#include <malloc.h>

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "labs/mmap_threshold/task.h"

// The reference, with its SetMallocPolicy() renamed out of the way.
#define SetMallocPolicy ReferenceSetMallocPolicy
#include "solutions/mmap_threshold/task.cc"
#undef SetMallocPolicy

namespace mmap_threshold {

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  if (policy.kind == MallocPolicy::Kind::kDynamic && !g_fixed &&
      !FixedByEnvironment().empty()) {
    // The mistake: the setting found is not named.
    return absl::FailedPreconditionError(
        "the environment has fixed the mmap threshold");
  }
  return ReferenceSetMallocPolicy(policy);
}

}  // namespace mmap_threshold
