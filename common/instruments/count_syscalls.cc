// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// count_syscalls: the memory system calls of a program, counted with
// common/instruments/syscalls.h, in a form a script can read next to `strace -c
// -f`.
//
//   count_syscalls [--env=NAME=value]... -- program [args...]
//
// prints "mmap N", "munmap N", "brk N", "madvise N", "mremap N" and
// "total N", one a line, for the program and every thread and child it
// started. Exit status: the program's own, 128 + the signal that killed it,
// 125 when the arguments are wrong or tracing failed, 127 when the program
// cannot be run.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "common/instruments/syscalls.h"

namespace {

constexpr int kUsageOrTracingError = 125;
constexpr int kCannotRun = 127;

int Usage(const char* message) {
  std::fprintf(stderr,
               "count_syscalls: %s\n"
               "usage: count_syscalls [--env=NAME=value]... -- program "
               "[args...]\n",
               message);
  return kUsageOrTracingError;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> extra_env;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (!absl::StartsWith(arg, "--env=")) {
      return Usage(("unknown option " + arg).c_str());
    }
    extra_env.push_back(arg.substr(6));
  }
  if (i >= argc - 1) return Usage("no program after --");
  std::vector<std::string> command(argv + i + 1, argv + argc);

  absl::StatusOr<alloclab::ProcessSyscalls> result =
      alloclab::CountSyscallsOfCommand(command, extra_env);
  if (!result.ok()) {
    std::fprintf(stderr, "count_syscalls: %s\n",
                 std::string(result.status().ToString()).c_str());
    return result.status().code() == absl::StatusCode::kNotFound
               ? kCannotRun
               : kUsageOrTracingError;
  }
  std::fputs(alloclab::FormatSyscallCounts(result->counts).c_str(), stdout);
  if (result->term_signal != 0) return 128 + result->term_signal;
  return result->exit_code;
}
