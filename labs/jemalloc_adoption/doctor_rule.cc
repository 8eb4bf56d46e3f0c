// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/jemalloc_adoption/doctor_rule.h"

#include "common/machine_facts.h"

namespace jemalloc_adoption {

// The comparison's one need, every allocator's library to preload, is lab
// allocator_design's too: common/machine_facts.h says it for both.
alloclab::LabVerdict DoctorVerdict(const alloclab::MachineFacts& facts) {
  return alloclab::AllocatorsVerdict(facts);
}

}  // namespace jemalloc_adoption
