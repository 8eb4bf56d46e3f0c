// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(t)'s range check in a signed 64-bit integer ("a
// threshold is a byte count, ssize_t holds any of them"), then the int
// mallopt() takes. Every threshold a program could mean is checked right:
// INT_MAX + 1 and 4 GiB + 128 KiB are refused. But a size over PTRDIFF_MAX
// is negative as an int64_t and passes the check, and its low 32 bits
// become the threshold: PTRDIFF_MAX + 1 fixes a threshold of 0, one
// nobody asked for. task.h: any threshold above kFixedThresholdMax is
// InvalidArgument. The suite must reject it.
//
// The probe and the rest of the policy are the reference's; the mistake is
// the range check.

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "labs/mmap_threshold/task.h"

// The reference, with its SetMallocPolicy() renamed out of the way.
#define SetMallocPolicy ReferenceSetMallocPolicy
#include "solutions/mmap_threshold/task.cc"
#undef SetMallocPolicy

namespace mmap_threshold {

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  if (policy.kind != MallocPolicy::Kind::kFixed) {
    return ReferenceSetMallocPolicy(policy);
  }
  // The mistake: a signed check, which every size over PTRDIFF_MAX passes.
  if (static_cast<int64_t>(policy.threshold_bytes) >
      static_cast<int64_t>(kFixedThresholdMax)) {
    return absl::InvalidArgumentError("not a threshold mallopt() takes");
  }
  const int as_int = static_cast<int>(policy.threshold_bytes);
  return ReferenceSetMallocPolicy(
      MallocPolicy::Fixed(static_cast<size_t>(as_int)));
}

}  // namespace mmap_threshold
