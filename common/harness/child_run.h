// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: child_run.h
// -----------------------------------------------------------------------------
//
// One program run as a child and measured from outside, the way GNU time
// and mimalloc-bench measure an allocator: the elapsed (wall) time, the
// user and system CPU time and the peak resident set from wait4(2), and,
// when asked, the resident set over time from /proc/<pid>/status. The
// child's environment gets additions, such as LD_PRELOAD (another malloc)
// or MALLOC_CONF (jemalloc's settings), that only a new process can take:
// allocators read them once, at start-up.
//
// The child's stdout and stderr are captured, so a program can report
// facts back (allocator_probe.h's provider line), and a failure's message
// reaches the error.
//
// Peak RSS and fork: Linux counts a child's resident peak from fork on, and
// keeps the peak before exec. The child starts as a copy of this process,
// so its `peak_rss_kib` is never below this process's own resident set at
// the fork (reported as `launcher_rss_kib`); keep the launching process
// small, and compare peaks well above that floor.
//
// Example:
//
//   alloclab::ChildCommand command;
//   command.argv = {"/path/to/workload", "--workload=treemap"};
//   command.env = {{"LD_PRELOAD", jemalloc_path},
//                  {"MALLOC_CONF", "dirty_decay_ms:0"}};
//   command.rss_sample_interval = absl::Milliseconds(20);
//   absl::StatusOr<alloclab::ChildRun> run = alloclab::RunChild(command);
//   if (!run.ok()) return run.status();  // names the program and how it ended
//   // run->wall_s, run->user_s, run->sys_s, run->peak_rss_kib,
//   // run->rss_samples, run->stdout_text

#ifndef ALLOCLAB_COMMON_HARNESS_CHILD_RUN_H_
#define ALLOCLAB_COMMON_HARNESS_CHILD_RUN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace alloclab {

// ChildCommand
//
// What to run. `argv[0]` is a path, or a name looked up in $PATH. `env`
// entries are added to this process's environment for the child (an entry
// of a name already set replaces it; this process's environment is not
// changed). `rss_sample_interval`: sample the child's VmRSS that often
// (nullopt: no samples).
struct ChildCommand {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<absl::Duration> rss_sample_interval;
  // Also copy the child's stderr to this process's stderr as it arrives
  // (the progress lines of a long run); it is captured either way.
  bool echo_stderr = false;
};

// RssPoint
//
// One sample: milliseconds since the fork, and VmRSS in KiB.
struct RssPoint {
  double t_ms = 0;
  int64_t rss_kib = 0;
};

// ChildRun
//
// How one run went. `wall_s` is from just before the fork to the end of
// wait4; `user_s`, `sys_s` and `peak_rss_kib` are wait4's rusage (the
// child's, and its own waited-for children's).
struct ChildRun {
  double wall_s = 0;
  double user_s = 0;
  double sys_s = 0;
  int64_t peak_rss_kib = 0;
  // wait4's ru_minflt and ru_majflt, loader and start-up included.
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
  int64_t launcher_rss_kib = 0;  // this process's VmRSS at the fork: a floor
  std::vector<RssPoint> rss_samples;
  std::string stdout_text;
  std::string stderr_text;
};

// RunChild()
//
// Runs `command` to its end. Errors: InvalidArgument for an empty argv or a
// bad environment name; NotFound when the program does not exist or cannot
// be executed (the reason from exec); Internal when it exits with a
// non-zero status or is killed by a signal: the message names the program,
// the status or signal, and the end of its stderr.
absl::StatusOr<ChildRun> RunChild(const ChildCommand& command);

// ProgramBesideSelf()
//
// The path of the executable `name` in the directory of this process's own
// executable (/proc/self/exe): where Bazel puts a program of the same
// package, built because it is a data dependency of this one. NotFound, with
// the path and that advice, when there is no executable file there.
absl::StatusOr<std::string> ProgramBesideSelf(absl::string_view name);

// FindRunfile()
//
// The path of the workspace-relative `path` (a program or file of another
// package that this target names in `data`, e.g.
// "common/adoption/workload") in this program's runfiles, under
// `bazel run`, `bazel test` or started by hand. NotFound lists every place
// tried.
absl::StatusOr<std::string> FindRunfile(absl::string_view path);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_CHILD_RUN_H_
