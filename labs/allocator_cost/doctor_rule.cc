// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/allocator_cost/doctor_rule.h"

#include "common/machine/machine_facts.h"

namespace allocator_cost {

using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  return {"", Verdict::kYes,
          facts.perf.software.ok()
              ? "allocations and page faults are counted per thread"
              : "allocations are counted; page faults come from "
                "getrusage (perf_event is not available)",
          ""};
}

}  // namespace allocator_cost
