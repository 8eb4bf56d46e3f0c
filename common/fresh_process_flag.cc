// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/fresh_process_flag.h"

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
    std::fprintf(stderr, "--fresh_processes must be 0 or more, got %d\n",
                 value);
    std::exit(1);
  }
  if (value > 0) return value;
  return options.quick ? quick_default : full_default;
}

}  // namespace alloclab
