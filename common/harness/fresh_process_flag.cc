// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/fresh_process_flag.h"

#include <errno.h>  // program_invocation_short_name (glibc)

#include <cstdio>
#include <cstdlib>

#include "absl/flags/flag.h"

ABSL_FLAG(int, fresh_processes, 0,
          "new processes started for each first-call row; 0 keeps the lab's "
          "default");

namespace alloclab {

int FreshProcesses(const LabOptions& options, int quick_default,
                   int full_default) {
  const int value = absl::GetFlag(FLAGS_fresh_processes);
  if (value < 0) {
    // The format of lab_main's flag refusals: program, flag, reason.
    std::fprintf(stderr,
                 "%s: --fresh_processes=%d: must be 0 or more, 0 for the "
                 "lab's default (see --help)\n",
                 program_invocation_short_name, value);
    std::exit(1);
  }
  if (value > 0) return value;
  return options.quick ? quick_default : full_default;
}

}  // namespace alloclab
