// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: doctor_rule.h
// -----------------------------------------------------------------------------
//
// Lab jemalloc_adoption's line in `bazel run //:doctor`: whether this machine
// can show the lab's effect, from the facts the doctor probed
// (common/machine/machine_facts.h). The doctor collects every lab's
// `DoctorVerdict()` in course order from the root's labs.bzl (tools/BUILD's
// `lab_rules_cc`); a pure function, so
// //tools:doctor_test judges it on hand-made facts.
//
// Example:
//
//   alloclab::LabVerdict v = jemalloc_adoption::DoctorVerdict(facts);
//   if (v.verdict != alloclab::Verdict::kYes) std::cout << v.fix;

#ifndef ALLOCLAB_LABS_JEMALLOC_ADOPTION_DOCTOR_RULE_H_
#define ALLOCLAB_LABS_JEMALLOC_ADOPTION_DOCTOR_RULE_H_

#include "common/machine/machine_facts.h"

namespace jemalloc_adoption {

// DoctorVerdict()
//
// jemalloc_adoption: every allocator's library, to preload.
alloclab::LabVerdict DoctorVerdict(const alloclab::MachineFacts& facts);

}  // namespace jemalloc_adoption

#endif  // ALLOCLAB_LABS_JEMALLOC_ADOPTION_DOCTOR_RULE_H_
