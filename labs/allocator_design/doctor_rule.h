// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: doctor_rule.h
// -----------------------------------------------------------------------------
//
// Lab allocator_design's line in `bazel run //:doctor`: whether this machine
// can show the lab's effect, from the facts the doctor probed
// (common/machine/machine_facts.h). The doctor collects every lab's
// `DoctorVerdict()` in course order from the root's labs.bzl (tools/BUILD's
// `lab_rules_cc`); a pure function, so
// //tools:doctor_test judges it on hand-made facts.
//
// Example:
//
//   alloclab::LabVerdict v = allocator_design::DoctorVerdict(facts);
//   if (v.verdict != alloclab::Verdict::kYes) std::cout << v.fix;

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_DOCTOR_RULE_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_DOCTOR_RULE_H_

#include "common/machine/machine_facts.h"

namespace allocator_design {

// DoctorVerdict()
//
// allocator_design: lab jemalloc_adoption's matrix with the learner's
// allocator preloaded as one more row; its system calls per operation are
// counted under ptrace.
alloclab::LabVerdict DoctorVerdict(const alloclab::MachineFacts& facts);

}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_DOCTOR_RULE_H_
