// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: real_programs.h
// -----------------------------------------------------------------------------
//
// Real programs, which nobody in this course wrote, run with an allocator's
// library in LD_PRELOAD, as the experiment runs lab jemalloc_adoption's
// workloads on yours. Six workloads and five traces (one recorded from
// python3 and replayed, traces.h) are what the suite and the experiment
// judge an allocator on; a program that grows a string
// by appends, forks a pool of workers, or sorts with two threads asks
// things of malloc that they never do (issue 26: the shim's realloc once
// moved a block grown by appends at every page, which no workload showed).
// Each program's output must be the same as under glibc's malloc.
//
// Every program comes from a Debian package that tools/setup.sh installs
// (python3, with its standard library's sqlite3 module) or that every
// Debian system has (coreutils' sort, gzip, both Essential), and each runs
// for a fraction of a second of CPU, so that a test can run them all.
//
// Example:
//
//   absl::StatusOr<std::vector<allocator_design::RealProgram>> programs =
//       allocator_design::RealPrograms(scratch_dir);  // writes its input
//   for (const allocator_design::RealProgram& p : *programs) {
//     absl::StatusOr<alloclab::ChildRun> glibc =
//         allocator_design::RunRealProgram(p, "");
//     absl::StatusOr<alloclab::ChildRun> yours =
//         allocator_design::RunRealProgram(p, "/abs/path/libyours.so");
//     std::string diff = allocator_design::FirstDifference(
//         glibc->stdout_text, yours->stdout_text);  // "" when the same
//   }

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_REAL_PROGRAMS_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_REAL_PROGRAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/harness/child_run.h"

namespace allocator_design {

// kRealProgramRssFactor / kRealProgramRssSlackKib
//
// A bound on the memory an allocator may keep beyond glibc's in a real
// program: its peak resident set at most this factor times glibc's, plus
// the slack (a few spans, its metadata, the C++ runtime libyours.so loads).
// The starter broke it a hundredfold before the shim's realloc gave a
// moved block headroom (issue 26): it moved the str of 4 MiB at each of
// its 1,024 appends and kept every copy, 2,066 MiB resident against
// glibc's 17 MiB. With the headroom it moves it a few dozen times at most
// (shim.cc), so even an allocator that never reuses a freed block holds
// about five times the str there, and the starter stays within it.
inline constexpr int64_t kRealProgramRssFactor = 4;
inline constexpr int64_t kRealProgramRssSlackKib = 16 << 10;

// RealProgram
//
// One program and its arguments. `name` is its row ("python_str_appends"),
// `what` says in one line what it asks of malloc.
struct RealProgram {
  std::string name;
  std::string what;
  std::vector<std::string> argv;
};

// RealPrograms()
//
// The programs, in a fixed order; the input file that sort and gzip read
// is written into `scratch_dir` (an existing directory), the same bytes on
// every call.
absl::StatusOr<std::vector<RealProgram>> RealPrograms(
    absl::string_view scratch_dir);

// RunRealProgram()
//
// Runs `program` to its end with `preload` in LD_PRELOAD (an absolute path;
// empty: glibc's malloc), and with LC_ALL=C and PYTHONHASHSEED=0, so that
// two runs print the same bytes. An error names the program, the library
// and how it ended (exit status or signal, the end of its stderr), or why
// it could not start.
absl::StatusOr<alloclab::ChildRun> RunRealProgram(const RealProgram& program,
                                                  absl::string_view preload);

// FirstDifference()
//
// "" when `glibc` and `other` are the same bytes; otherwise where they
// first part: the line's number and both lines (escaped, cut to 120
// bytes), or which output ends first.
std::string FirstDifference(absl::string_view glibc, absl::string_view other);

}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_REAL_PROGRAMS_H_
