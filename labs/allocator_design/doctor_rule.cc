// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/allocator_design/doctor_rule.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/machine/machine_facts.h"

namespace allocator_design {

using alloclab::JoinClauses;
using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::PtraceFix;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  const LabVerdict adoption = alloclab::AllocatorsVerdict(facts);
  LabVerdict v{"", Verdict::kYes, "", ""};
  std::vector<std::string> why, fix;
  if (!facts.preload.served.ok() && !facts.preload.library.empty() &&
      facts.preload.served.code() != absl::StatusCode::kUnknown) {
    // The one fact the lab cannot do without: its row would be glibc's.
    v.verdict = Verdict::kNo;
    why.push_back(absl::StrCat(
        "a preloaded allocator does not serve malloc here (",
        facts.preload.served.message(),
        "): your libyours.so's row would be refused as unverified"));
    fix.push_back(
        "run outside what strips LD_PRELOAD (a setuid wrapper, a "
        "sanitizer build: drop --config=asan/tsan for the experiment)");
  } else if (facts.preload.served.ok()) {
    why.push_back(absl::StrCat("a preload takes here (",
                               facts.preload.allocator,
                               " served a child's malloc)"));
  } else {
    why.push_back(absl::StrCat("preload not tried (",
                               facts.preload.served.message(),
                               "); the experiment verifies your row itself"));
  }
  if (adoption.verdict != Verdict::kYes) {
    if (v.verdict == Verdict::kYes) v.verdict = Verdict::kPartly;
    why.push_back(absl::StrCat("as lab jemalloc_adoption: ", adoption.why,
                               " (yours is still compared with glibc)"));
    if (!adoption.fix.empty()) fix.push_back(adoption.fix);
  } else {
    why.push_back(
        absl::StrCat("the other allocators as lab "
                     "jemalloc_adoption: ",
                     adoption.why));
  }
  if (facts.ptrace.traced_child.ok()) {
    why.push_back("ptrace counts system calls per operation");
  } else {
    if (v.verdict == Verdict::kYes) v.verdict = Verdict::kPartly;
    why.push_back(absl::StrCat("system calls per operation are n/a: ",
                               facts.ptrace.traced_child.message()));
    fix.push_back(PtraceFix(facts));
  }
  v.why = JoinClauses(why);
  v.fix = JoinClauses(fix);
  return v;
}

}  // namespace allocator_design
