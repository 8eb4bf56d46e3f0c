// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: lab_main.h
// -----------------------------------------------------------------------------
//
// The command line every experiment shares: the common flags (Abseil
// flags, so `--help` works and an unknown flag is an error), the
// fresh-process hook, and the ending (notes, machine line, JSON). Labs do
// not call it directly: `alloclab::RunLab()` (experiment.h) is built on it.
//
//   --quick           CI scale: a few seconds in all
//   --json=PATH       also write the results JSON to PATH
//   --repetitions=N   timed repetitions per variant (0: the lab's default)
//   --cpu=N           pin to one online CPU (-1, the default: unpinned)
//
// Example (what RunLab() does around a lab's body):
//
//   alloclab::LabOptions options = alloclab::InitLab(argc, argv, usage);
//   alloclab::Results results("allocator_cost");
//   ...
//   return alloclab::FinishLab(results, options, columns);

#ifndef ALLOCLAB_COMMON_HARNESS_LAB_MAIN_H_
#define ALLOCLAB_COMMON_HARNESS_LAB_MAIN_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/harness/report.h"

namespace alloclab {

// LabOptions
struct LabOptions {
  bool quick = false;
  std::string json_path;  // empty: no JSON
  int repetitions = 0;    // 0: the lab's default
  int cpu = -1;           // the CPU InitLab pinned to, -1: none

  // Repetitions()
  //
  // `repetitions` when set, else `quick_default` or `full_default`.
  int Repetitions(int quick_default, int full_default) const {
    if (repetitions > 0) return repetitions;
    return quick ? quick_default : full_default;
  }
};

// InitLab()
//
// Runs `MaybeRunFreshCall()`, then parses the flags (exits 1 with a message
// on an unknown flag, a positional argument, --repetitions < 0, a --cpu
// that is not online or a --json path that cannot be written: all before
// any work); pins to --cpu when given; `--help`
// prints `usage` and the course's flags, and exits 0). Returns the common
// options; lab-specific flags are read with absl::GetFlag as usual.
LabOptions InitLab(int argc, char** argv, absl::string_view usage);

// FinishLab()
//
// Prints the table of `results` with `columns`, its notes and the machine
// line to stdout, writes the JSON when asked, and returns main's exit code
// (1 when the JSON could not be written, with the reason on stderr). A
// relative --json path is taken from the directory `bazel run` was started
// in ($BUILD_WORKING_DIRECTORY). `results` is printed as it is: its
// machine and every note, --cpu's among them, are the caller's to set.
int FinishLab(const Results& results, const LabOptions& options,
              const std::vector<Column>& columns);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_LAB_MAIN_H_
