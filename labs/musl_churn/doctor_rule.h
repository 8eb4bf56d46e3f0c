// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: doctor_rule.h
// -----------------------------------------------------------------------------
//
// Lab musl_churn's line in `bazel run //:doctor`: whether this machine can show
// the lab's effect, from the facts the doctor probed
// (common/machine/machine_facts.h). The doctor collects every lab's
// `DoctorVerdict()` in course order from the root's labs.bzl (tools/BUILD's
// `lab_rules_cc`); a pure function, so
// //tools:doctor_test judges it on hand-made facts.
//
// Example:
//
//   alloclab::LabVerdict v = musl_churn::DoctorVerdict(facts);
//   if (v.verdict != alloclab::Verdict::kYes) std::cout << v.fix;

#ifndef ALLOCLAB_LABS_MUSL_CHURN_DOCTOR_RULE_H_
#define ALLOCLAB_LABS_MUSL_CHURN_DOCTOR_RULE_H_

#include "common/machine/machine_facts.h"

namespace musl_churn {

// DoctorVerdict()
//
// musl_churn: musl-gcc builds the musl side.
alloclab::LabVerdict DoctorVerdict(const alloclab::MachineFacts& facts);

}  // namespace musl_churn

#endif  // ALLOCLAB_LABS_MUSL_CHURN_DOCTOR_RULE_H_
