// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/jemalloc_adoption/doctor_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/machine_facts.h"

namespace jemalloc_adoption {

using alloclab::AllocatorFact;
using alloclab::IsGlibc;
using alloclab::JoinClauses;
using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  LabVerdict v{"", Verdict::kYes, "", ""};
  std::vector<std::string> found;
  std::vector<std::string> missing;
  for (const AllocatorFact& a : facts.allocators) {
    if (a.library.ok()) {
      found.push_back(a.name);
    } else {
      missing.push_back(std::string(a.library.status().message()));
    }
  }
  if (!IsGlibc(facts)) {
    v.verdict = Verdict::kPartly;
    v.why = absl::StrCat(
        "the comparison's baseline is glibc's malloc; this "
        "program runs on ",
        facts.libc);
  } else if (missing.empty()) {
    v.why = absl::StrCat("glibc and ", absl::StrJoin(found, ", "),
                         " libraries found, ready to preload");
  } else {
    v.verdict = found.empty() ? Verdict::kNo : Verdict::kPartly;
    v.why = absl::StrCat(
        found.empty() ? "only glibc"
                      : absl::StrCat("glibc, ", absl::StrJoin(found, ", ")),
        " found");
    v.fix = JoinClauses(missing);
  }
  return v;
}

}  // namespace jemalloc_adoption
