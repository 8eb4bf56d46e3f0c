// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine_facts.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
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
