// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "Dynamic() puts glibc's default back: 128 KiB".
// Setting the threshold, even to its default, fixes it: the adjustment that
// Dynamic() promises to keep is switched off. The suite must reject it.
//
// The probe and the rest of the policy are the reference's; the mistake is
// what Dynamic() does once the reference has found nothing against it.

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
  const absl::Status status = ReferenceSetMallocPolicy(policy);
  if (!status.ok() || policy.kind != MallocPolicy::Kind::kDynamic) {
    return status;
  }
  // The mistake: "back to the default" by setting the default, which fixes
  // the threshold there and switches the adjustment off.
  if (mallopt(M_MMAP_THRESHOLD, static_cast<int>(kDefaultMmapThreshold)) != 1) {
    return absl::InternalError("mallopt refused");
  }
  return absl::OkStatus();
}

}  // namespace mmap_threshold
