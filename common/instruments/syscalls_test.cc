// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/syscalls.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "common/harness/internal/launch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {

using ::testing::HasSubstr;

// GoogleTest prints counts this way when an expectation fails.
void PrintTo(const SyscallCounts& counts, std::ostream* os) {
  *os << "{mmap " << counts.mmap << ", munmap " << counts.munmap << ", brk "
      << counts.brk << ", madvise " << counts.madvise << ", mremap "
      << counts.mremap << ", total " << counts.total << "}";
}

namespace {

// The five named counts, with `total` cleared. Joining a thread is one
// futex wait or none, depending on whether the thread has already exited:
// where a thread is joined, the total varies by a call or two from run to
// run, while the memory calls do not.
SyscallCounts Named(SyscallCounts counts) {
  counts.total = 0;
  return counts;
}

// The slack allowed on `total` where a join may or may not wait.
constexpr int64_t kJoinSlack = 4;

// The fixture, from the test's runfiles.
std::string FixturePath() {
  absl::StatusOr<std::string> found =
      internal::FindRunfile("common/instruments/syscall_fixture");
  return found.ok() ? *found : "common/instruments/syscall_fixture";
}

void* MapPage() {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  return p;
}

void MapAndUnmap(int times) {
  for (int i = 0; i < times; ++i) {
    if (munmap(MapPage(), 4096) != 0) std::abort();
  }
}

TEST(SyscallCountsTest, ArithmeticAndFormat) {
  SyscallCounts a{
      .mmap = 5, .munmap = 3, .brk = 4, .madvise = 2, .mremap = 1, .total = 20};
  SyscallCounts b{
      .mmap = 1, .munmap = 1, .brk = 1, .madvise = 1, .mremap = 1, .total = 6};
  EXPECT_EQ(a - b + b, a);
  EXPECT_EQ((a - b).total, 14);
  EXPECT_EQ(FormatSyscallCounts(a),
            "mmap 5\nmunmap 3\nbrk 4\nmadvise 2\nmremap 1\ntotal 20\n");
}

TEST(UnlessRefusedTest, PassesCountsThrough) {
  std::optional<absl::Status> refused;
  absl::StatusOr<std::optional<int>> counted =
      UnlessRefused(absl::StatusOr<int>(7), refused);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(*counted, std::optional<int>(7));
  EXPECT_FALSE(refused.has_value());
}

TEST(UnlessRefusedTest, ARefusalIsNoCountsAndKeepsTheFirstReason) {
  std::optional<absl::Status> refused;
  const absl::Status first =
      absl::FailedPreconditionError("ptrace(PTRACE_TRACEME) refused: EPERM");
  absl::StatusOr<std::optional<int>> counted =
      UnlessRefused(absl::StatusOr<int>(first), refused);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(*counted, std::nullopt);
  EXPECT_EQ(refused, first);
  // A later refusal, or later counts, leave the first reason in place.
  counted = UnlessRefused(
      absl::StatusOr<int>(absl::FailedPreconditionError("again")), refused);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(*counted, std::nullopt);
  counted = UnlessRefused(absl::StatusOr<int>(3), refused);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(*counted, std::optional<int>(3));
  EXPECT_EQ(refused, first);
}

TEST(RefusedNoteTest, NamesTheCountsAndTheKernelsReason) {
  EXPECT_EQ(RefusedNote("syscalls/op", absl::FailedPreconditionError(
                                           "ptrace(PTRACE_TRACEME) refused: "
                                           "EPERM")),
            "syscalls/op: n/a (ptrace(PTRACE_TRACEME) refused: EPERM)");
}

TEST(UnlessRefusedTest, OtherErrorsAreReturnedUnchanged) {
  std::optional<absl::Status> refused;
  const absl::Status missing = absl::NotFoundError("execve: no such file");
  EXPECT_EQ(UnlessRefused(absl::StatusOr<int>(missing), refused).status(),
            missing);
  EXPECT_FALSE(refused.has_value());
}

TEST(CountSyscallsInChildTest, CountsExactlyWhatTheFunctionDoes) {
  constexpr int kTimes = 7;
  absl::StatusOr<SyscallCounts> counts =
      CountSyscallsInChild([] { MapAndUnmap(kTimes); });
  ASSERT_TRUE(counts.ok()) << counts.status();
  SyscallCounts expected{.mmap = kTimes, .munmap = kTimes, .total = 2 * kTimes};
  EXPECT_EQ(*counts, expected);
}

// A populate is told apart by its arguments: MAP_POPULATE in mmap's flags,
// MADV_POPULATE_WRITE (23, Linux 5.14) as madvise's advice. Counted at the
// entry, so a kernel that refuses the advice counts the same.
TEST(CountSyscallsInChildTest, CountsPopulateCallsByTheirArguments) {
  absl::StatusOr<SyscallCounts> counts = CountSyscallsInChild([] {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* populated = mmap(nullptr, page, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    void* plain = mmap(nullptr, page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (populated == MAP_FAILED || plain == MAP_FAILED) std::abort();
    (void)madvise(plain, page, 23);
    (void)madvise(plain, page, MADV_DONTNEED);
  });
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->mmap, 2);
  EXPECT_EQ(counts->mmap_populate, 1);
  EXPECT_EQ(counts->madvise, 2);
  EXPECT_EQ(counts->madvise_populate, 1);
  EXPECT_EQ(counts->total, 4);
}

TEST(CountSyscallsInChildTest, EmptyFunctionMakesNoSystemCall) {
  absl::StatusOr<SyscallCounts> counts = CountSyscallsInChild([] {});
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(*counts, SyscallCounts{});
}

TEST(CountSyscallsInChildTest, CountsBrkAndMremap) {
  absl::StatusOr<SyscallCounts> counts = CountSyscallsInChild([] {
    syscall(SYS_brk, 0);
    syscall(SYS_brk, 0);
    void* p = MapPage();
    void* q = mremap(p, 4096, 8192, MREMAP_MAYMOVE);
    if (q == MAP_FAILED || madvise(q, 4096, MADV_DONTNEED) != 0) std::abort();
  });
  ASSERT_TRUE(counts.ok()) << counts.status();
  SyscallCounts expected{
      .mmap = 1, .brk = 2, .madvise = 1, .mremap = 1, .total = 5};
  EXPECT_EQ(*counts, expected);
}

// Threads are followed: a thread that maps k pages adds exactly k mmap to
// what starting and joining an idle thread costs.
TEST(CountSyscallsInChildTest, FollowsThreads) {
  constexpr int kTimes = 6;
  auto with_thread = [](int times) {
    return CountSyscallsInChild([times] {
      std::thread t([times] { MapAndUnmap(times); });
      t.join();
    });
  };
  absl::StatusOr<SyscallCounts> idle = with_thread(0);
  absl::StatusOr<SyscallCounts> busy = with_thread(kTimes);
  ASSERT_TRUE(idle.ok()) << idle.status();
  ASSERT_TRUE(busy.ok()) << busy.status();
  SyscallCounts expected{.mmap = kTimes, .munmap = kTimes};
  EXPECT_EQ(Named(*busy - *idle), expected);
  EXPECT_NEAR((*busy - *idle).total, 2 * kTimes, kJoinSlack);
}

// Forked children are followed the same way.
TEST(CountSyscallsInChildTest, FollowsForks) {
  constexpr int kTimes = 4;
  auto with_child = [](int times) {
    return CountSyscallsInChild([times] {
      pid_t pid = fork();
      if (pid == 0) {
        MapAndUnmap(times);
        _exit(0);
      }
      int status = 0;
      waitpid(pid, &status, 0);
    });
  };
  absl::StatusOr<SyscallCounts> idle = with_child(0);
  absl::StatusOr<SyscallCounts> busy = with_child(kTimes);
  ASSERT_TRUE(idle.ok()) << idle.status();
  ASSERT_TRUE(busy.ok()) << busy.status();
  SyscallCounts expected{.mmap = kTimes, .munmap = kTimes, .total = 2 * kTimes};
  EXPECT_EQ(*busy - *idle, expected);
}

// A signal sent to the traced child must still reach it: the handler's
// brk(0) is counted only if the tracer delivered the signal.
TEST(CountSyscallsInChildTest, DeliversSignals) {
  absl::StatusOr<SyscallCounts> counts = CountSyscallsInChild([] {
    signal(SIGUSR1, [](int) { syscall(SYS_brk, 0); });
    raise(SIGUSR1);
  });
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->brk, 1);
}

TEST(CountSyscallsInChildTest, ReportsAFunctionThatExits) {
  absl::StatusOr<SyscallCounts> counts = CountSyscallsInChild([] { _exit(3); });
  EXPECT_EQ(counts.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(counts.status().message(), HasSubstr("exited with code 3"));
}

TEST(CountSyscallsInChildTest, ReportsAFunctionThatCrashes) {
  absl::StatusOr<SyscallCounts> counts =
      CountSyscallsInChild([] { raise(SIGKILL); });
  EXPECT_EQ(counts.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(counts.status().message(), HasSubstr("signal 9"));
}

// One tracer per process: counting inside a traced child is refused with a
// reason. The inner result leaves the outer child through its exit status.
TEST(CountSyscallsInChildTest, NestedTracingIsRefusedWithAReason) {
  absl::StatusOr<SyscallCounts> outer = CountSyscallsInChild([] {
    absl::StatusOr<SyscallCounts> inner = CountSyscallsInChild([] {});
    bool refused =
        inner.status().code() == absl::StatusCode::kFailedPrecondition &&
        absl::StrContains(inner.status().message(),
                          "ptrace(PTRACE_TRACEME) refused");
    _exit(refused ? 42 : 43);
  });
  EXPECT_THAT(outer.status().message(), HasSubstr("exited with code 42"));
}

// The fixture makes, per unit of --count, 5 mmap, 3 munmap, 4 brk,
// 2 madvise and 1 mremap, from its main thread, a second thread and a
// forked child. Over the --count=0 baseline the difference is exact.
TEST(CountSyscallsOfCommandTest, FixtureOverBaselineIsExact) {
  absl::StatusOr<ProcessSyscalls> baseline =
      CountSyscallsOfCommand({FixturePath(), "--count=0"});
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  ASSERT_EQ(baseline->exit_code, 0);
  ASSERT_EQ(baseline->term_signal, 0);
  // The dynamic loader maps at least libc: a baseline of zero would mean
  // nothing was traced.
  EXPECT_GT(baseline->counts.mmap, 0);
  EXPECT_GT(baseline->counts.total, baseline->counts.mmap);

  constexpr int kUnits = 3;
  absl::StatusOr<ProcessSyscalls> run =
      CountSyscallsOfCommand({FixturePath(), "--count=3"});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->exit_code, 0);
  SyscallCounts expected{.mmap = 5 * kUnits,
                         .munmap = 3 * kUnits,
                         .brk = 4 * kUnits,
                         .madvise = 2 * kUnits,
                         .mremap = 1 * kUnits};
  EXPECT_EQ(Named(run->counts - baseline->counts), expected);
  // The fixture joins a thread: see Named().
  EXPECT_NEAR((run->counts - baseline->counts).total, 15 * kUnits, kJoinSlack);
}

TEST(CountSyscallsOfCommandTest, ReportsExitCodeAndSignal) {
  absl::StatusOr<ProcessSyscalls> usage =
      CountSyscallsOfCommand({FixturePath(), "--bogus"});
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_EQ(usage->exit_code, 2);
  EXPECT_EQ(usage->term_signal, 0);

  absl::StatusOr<ProcessSyscalls> killed =
      CountSyscallsOfCommand({"/bin/sh", "-c", "kill -9 $$"});
  ASSERT_TRUE(killed.ok()) << killed.status();
  EXPECT_EQ(killed->term_signal, SIGKILL);
  EXPECT_EQ(killed->exit_code, -1);
}

TEST(CountSyscallsOfCommandTest, PassesExtraEnvironment) {
  const std::vector<std::string> check = {"/bin/sh", "-c",
                                          "test \"$ALLOCLAB_PROBE\" = yes"};
  absl::StatusOr<ProcessSyscalls> with =
      CountSyscallsOfCommand(check, {"ALLOCLAB_PROBE=yes"});
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_EQ(with->exit_code, 0);

  setenv("ALLOCLAB_PROBE", "no", 1);
  absl::StatusOr<ProcessSyscalls> replaced =
      CountSyscallsOfCommand(check, {"ALLOCLAB_PROBE=yes"});
  absl::StatusOr<ProcessSyscalls> inherited = CountSyscallsOfCommand(check);
  unsetenv("ALLOCLAB_PROBE");
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  ASSERT_TRUE(inherited.ok()) << inherited.status();
  EXPECT_EQ(replaced->exit_code, 0);
  EXPECT_EQ(inherited->exit_code, 1);
}

TEST(CountSyscallsOfCommandTest, CapturesStdoutWhenAsked) {
  std::string out = "left over";
  absl::StatusOr<ProcessSyscalls> run = CountSyscallsOfCommand(
      {"/bin/sh", "-c", "echo \"provider $ALLOCLAB_PROBE\"; echo second"},
      {"ALLOCLAB_PROBE=yes"}, &out);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_EQ(out, "provider yes\nsecond\n");
  EXPECT_GT(run->counts.total, 0);
}

TEST(CountSyscallsOfCommandTest, RejectsBadInput) {
  EXPECT_EQ(CountSyscallsOfCommand({}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<ProcessSyscalls> bad_env =
      CountSyscallsOfCommand({"/bin/true"}, {"NO_EQUALS_SIGN"});
  EXPECT_EQ(bad_env.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_env.status().message(), HasSubstr("NO_EQUALS_SIGN"));

  absl::StatusOr<ProcessSyscalls> missing =
      CountSyscallsOfCommand({"/nonexistent/alloclab-program"});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("/nonexistent/alloclab-program"));
  EXPECT_THAT(missing.status().message(), HasSubstr("No such file"));
}

}  // namespace
}  // namespace alloclab
