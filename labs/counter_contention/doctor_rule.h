// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: doctor_rule.h
// -----------------------------------------------------------------------------
//
// Lab counter_contention's line in `bazel run //:doctor`: whether this machine
// can show the lab's effect, from the facts the doctor probed
// (common/machine/machine_facts.h). The doctor collects every lab's
// `DoctorVerdict()` in course order from the root's labs.bzl (tools/BUILD's
// `lab_rules_cc`); a pure function, so
// //tools:doctor_test judges it on hand-made facts.
//
// Example:
//
//   alloclab::LabVerdict v = counter_contention::DoctorVerdict(facts);
//   if (v.verdict != alloclab::Verdict::kYes) std::cout << v.fix;

#ifndef ALLOCLAB_LABS_COUNTER_CONTENTION_DOCTOR_RULE_H_
#define ALLOCLAB_LABS_COUNTER_CONTENTION_DOCTOR_RULE_H_

#include "common/machine/machine_facts.h"

namespace counter_contention {

// DoctorVerdict()
//
// counter_contention: two threads running at once need two CPUs, and the
// counter's cache line moves between cores only when they are two cores
// (SMT siblings share L1 and L2: the line never leaves the core).
alloclab::LabVerdict DoctorVerdict(const alloclab::MachineFacts& facts);

}  // namespace counter_contention

#endif  // ALLOCLAB_LABS_COUNTER_CONTENTION_DOCTOR_RULE_H_
