// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/machine_facts.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace alloclab {

bool IsGlibc(const MachineFacts& facts) {
  return absl::StartsWith(facts.libc, "glibc");
}

std::string PtraceFix(const MachineFacts& facts) {
  return facts.ptrace.yama_scope.value_or(0) >= 2
             ? absl::StrFormat(
                   "Yama's ptrace_scope is %d; an administrator can allow "
                   "tracing one's own children (sysctl "
                   "kernel.yama.ptrace_scope=1)",
                   *facts.ptrace.yama_scope)
         : !facts.container.runtime.empty()
             ? "add --cap-add=SYS_PTRACE to docker run (README.md, 'Any "
               "machine with Docker')"
             : "run outside the container or sandbox that forbids ptrace";
}

LabVerdict AllocatorsVerdict(const MachineFacts& facts) {
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

std::string FormatCpus(double cpus) {
  std::string text = absl::StrFormat("%.2f", cpus);
  while (absl::EndsWith(text, "0")) text.pop_back();
  if (absl::EndsWith(text, ".")) text.pop_back();
  return text;
}

std::string JoinClauses(const std::vector<std::string>& clauses) {
  return absl::StrJoin(clauses, "; ");
}

}  // namespace alloclab
