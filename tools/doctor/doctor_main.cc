// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// bazel run //:doctor — what this machine can show of each lab, and why not.

#include <iostream>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "tools/doctor/doctor.h"

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "bazel run //:doctor: probes this machine (CPUs and SMT, perf_event, "
      "ptrace, zero page, THP, libc, musl-gcc, allocator libraries, a "
      "preload) and says, "
      "for each lab, whether it can show the lab's effect here, and the fix "
      "where there is one. Takes no arguments.");
  const std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::cerr << "doctor: unexpected argument '" << rest[1]
              << "'; it takes none (--help)\n";
    return 1;
  }
  const alloclab::MachineFacts facts =
      alloclab::GatherFacts(alloclab::ProbeRoots());
  std::cout << "This machine:\n"
            << alloclab::RenderFacts(facts)
            << "\nWhat each lab can show here:\n"
            << alloclab::RenderVerdicts(alloclab::JudgeLabs(facts));
  return 0;
}
