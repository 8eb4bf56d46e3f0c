// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The experiment where the kernel refuses ptrace (a container's seccomp
// profile, Yama's ptrace_scope 3): its system call columns read n/a, a note
// says why, and what it measures without ptrace (times, faults, peak RSS,
// checksums) stands. The refusal is real: a seccomp filter
// (common/instruments/refuse_syscall.h) installed in a forked child, and
// inherited by the experiment that child runs and by the experiment's own
// children.

#include <sys/syscall.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/harness/child_run.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/refuse_syscall.h"
#include "gtest/gtest.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WithoutPtraceTest, SystemCallColumnsReadNaAndTheRunGoesOn) {
  const char* experiment = std::getenv("EXPERIMENT");
  ASSERT_NE(experiment, nullptr) << "BUILD passes the experiment's path";
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp != nullptr ? tmp : "/tmp";
  const std::string json = dir + "/without_ptrace.json";
  const std::string out = dir + "/without_ptrace.out";

  // 0: ran and exited 0; 1: the experiment failed; 2: no filter.
  absl::StatusOr<int> ran = alloclab::RunInForkedChild<int>([&] {
    if (!alloclab::RefuseSyscall({.nr = SYS_ptrace, .error = EPERM}).ok()) {
      return 2;
    }
    alloclab::ChildCommand command;
    command.argv = {experiment, "--quick", "--iterations=12288",
                    "--trace_iterations=2048", "--json=" + json};
    absl::StatusOr<alloclab::ChildRun> run = alloclab::RunChild(command);
    std::ofstream(out) << (run.ok() ? run->stdout_text
                                    : std::string(run.status().message()));
    return run.ok() ? 0 : 1;
  });
  ASSERT_TRUE(ran.ok()) << ran.status();
  ASSERT_NE(*ran, 2) << "the kernel refused the seccomp filter";
  const std::string printed = ReadFile(out);
  ASSERT_EQ(*ran, 0) << "the experiment failed without ptrace:\n" << printed;
  EXPECT_TRUE(absl::StrContains(printed, "system calls per call: n/a"))
      << printed;
  EXPECT_TRUE(absl::StrContains(printed, "ptrace")) << printed;

  const std::string results = ReadFile(json);
  for (const char* column : {"mmap_per_call", "munmap_per_call",
                             "madvise_per_call", "brk_per_call"}) {
    EXPECT_TRUE(
        absl::StrContains(results, absl::StrCat("\"", column, "\": null")))
        << column << " is not null in " << results;
  }
  EXPECT_TRUE(absl::StrContains(results, "\"checksum_ok\": 1")) << results;
  EXPECT_FALSE(absl::StrContains(results, "\"wall_s\": null")) << results;
}

}  // namespace
