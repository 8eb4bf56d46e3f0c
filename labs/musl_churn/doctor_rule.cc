// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/musl_churn/doctor_rule.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/machine_facts.h"

namespace musl_churn {

using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  LabVerdict v{"", Verdict::kYes, "", ""};
  if (facts.musl_gcc.ok()) {
    v.why = absl::StrCat("musl-gcc at ", *facts.musl_gcc,
                         "; the glibc and musl builds run side by side");
  } else {
    v.verdict = Verdict::kNo;
    v.why = std::string(facts.musl_gcc.status().message());
    v.fix = "sudo apt-get install musl-tools (or sudo tools/setup.sh)";
  }
  return v;
}

}  // namespace musl_churn
