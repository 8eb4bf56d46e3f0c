// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/first_call/doctor_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/machine/machine_facts.h"

namespace first_call {

using alloclab::JoinClauses;
using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  LabVerdict v{"", Verdict::kYes, "", ""};
  std::vector<std::string> why;
  if (!facts.zero_page_shared.has_value()) {
    why.push_back(absl::StrCat(facts.zero_page,
                               ": the chapter explains both kinds of kernel"));
  } else if (*facts.zero_page_shared) {
    why.push_back("shared zero page: a read maps it, only a write prefaults");
  } else {
    why.push_back(
        "no zero page: here reading each page is a valid prefault too");
  }
  if (!facts.mthp_sizes.empty()) {
    why.push_back(absl::StrCat("mTHP ", absl::StrJoin(facts.mthp_sizes, ", "),
                               " enabled: the lab asks for base pages so that "
                               "one fault is one page"));
  }
  v.why = JoinClauses(why);
  return v;
}

}  // namespace first_call
