// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/internal/launch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/harness/internal/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace internal {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(FindOnPathTest, FindsTheFirstExecutableAndNamesThePathWhenMissing) {
  absl::StatusOr<std::string> sh = FindOnPath("sh", "/nonexistent:/bin");
  ASSERT_TRUE(sh.ok()) << sh.status();
  EXPECT_EQ(*sh, "/bin/sh");
  absl::StatusOr<std::string> missing =
      FindOnPath("alloclab-no-such-tool", "/nonexistent:/bin");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("alloclab-no-such-tool is not on PATH "
                        "(/nonexistent:/bin)"));
}

TEST(ResolveProgramTest, KeepsAPathWithASlashAndANameNotFound) {
  EXPECT_EQ(ResolveProgram("./x/y"), "./x/y");
  EXPECT_EQ(ResolveProgram("alloclab-no-such-tool"), "alloclab-no-such-tool");
  EXPECT_NE(ResolveProgram("sh").find('/'), std::string::npos);
}

TEST(PrepareExecTest, ReplacesAddsAndDropsEnvironmentEntries) {
  ASSERT_EQ(setenv("ALLOCLAB_LAUNCH_TEST_KEEP", "1", 1), 0);
  ASSERT_EQ(setenv("ALLOCLAB_LAUNCH_TEST_SET", "old", 1), 0);
  ASSERT_EQ(setenv("ALLOCLAB_DROPME_X", "1", 1), 0);
  absl::StatusOr<PreparedExec> exec =
      PrepareExec({"sh", "-c", "true"},
                  {{"ALLOCLAB_LAUNCH_TEST_SET", "new"}, {"ADDED", "a=b"}},
                  {"ALLOCLAB_DROPME_"});
  ASSERT_TRUE(exec.ok()) << exec.status();
  const std::vector<std::string>& env = exec->env_strings;
  EXPECT_THAT(env, Contains("ALLOCLAB_LAUNCH_TEST_KEEP=1"));
  EXPECT_THAT(env, Contains("ALLOCLAB_LAUNCH_TEST_SET=new"));
  EXPECT_THAT(env, Not(Contains("ALLOCLAB_LAUNCH_TEST_SET=old")));
  EXPECT_THAT(env, Contains("ADDED=a=b"));
  EXPECT_THAT(env, Not(Contains("ALLOCLAB_DROPME_X=1")));
  ASSERT_EQ(exec->argv.size(), 4u);
  EXPECT_EQ(exec->argv[3], nullptr);
  EXPECT_EQ(exec->envp.size(), env.size() + 1);
  char* value = exec->MutableEnvValue("ADDED");
  ASSERT_NE(value, nullptr);
  EXPECT_STREQ(value, "a=b");
  EXPECT_EQ(exec->MutableEnvValue("ADDE"), nullptr);
}

TEST(PrepareExecTest, RefusesAnEmptyArgvAndBadNames) {
  EXPECT_EQ(PrepareExec({}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<PreparedExec> bad = PrepareExec({"true"}, {{"A=B", "c"}});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("'A=B'"));
}

TEST(SplitEnvEntriesTest, SplitsAtTheFirstEqualsAndNamesABadEntry) {
  auto pairs = SplitEnvEntries({"A=1", "B=x=y", "C="});
  ASSERT_TRUE(pairs.ok()) << pairs.status();
  ASSERT_EQ(pairs->size(), 3u);
  EXPECT_EQ((*pairs)[1].second, "x=y");
  EXPECT_EQ((*pairs)[2].second, "");
  EXPECT_THAT(SplitEnvEntries({"A=1", "NOEQ"}).status().message(),
              HasSubstr("\"NOEQ\" is not NAME=value"));
  EXPECT_FALSE(SplitEnvEntries({"=x"}).ok());
}

TEST(SpawnTest, RunsTheProgramWithTheEnvironmentAndExitStatus) {
  absl::StatusOr<PreparedExec> exec =
      PrepareExec({"sh", "-c", "test \"$ALLOCLAB_SPAWN\" = yes && exit 7"},
                  {{"ALLOCLAB_SPAWN", "yes"}});
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<pid_t> pid = Spawn(*exec, [] {});
  ASSERT_TRUE(pid.ok()) << pid.status();
  absl::StatusOr<int> status = WaitForPid(*pid);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(DescribeWaitStatus(*status), "exited with code 7");
}

TEST(SpawnTest, AFailedExecIsNotFoundNamingTheProgramAndTheReason) {
  absl::StatusOr<PreparedExec> exec =
      PrepareExec({"/nonexistent/alloclab-program"}, {});
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<pid_t> pid = Spawn(*exec, [] {});
  EXPECT_EQ(pid.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(pid.status().message(),
            "cannot run /nonexistent/alloclab-program "
            "(/nonexistent/alloclab-program): No such file or directory");
  absl::StatusOr<PreparedExec> unnamed =
      PrepareExec({"alloclab-no-such-tool"}, {});
  ASSERT_TRUE(unnamed.ok());
  EXPECT_THAT(Spawn(*unnamed, [] {}).status().message(),
              HasSubstr("cannot run alloclab-no-such-tool"));
}

TEST(ForkAndReadTest, ReadsAllTheChildWroteAndItsExit) {
  // More than a pipe holds (64 KiB), so the parent must read while the
  // child writes.
  const std::string big(200 << 10, 'x');
  absl::StatusOr<ChildOutput> child = ForkAndRead([&](int fd) {
    return WriteAll(fd, big.data(), big.size()).ok() ? 3 : 2;
  });
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(child->data.size(), big.size());
  EXPECT_FALSE(ExitedCleanly(child->wait_status));
  EXPECT_EQ(DescribeWaitStatus(child->wait_status), "exited with code 3");
}

TEST(ForkAndReadTest, DescribesAKilledChild) {
  absl::StatusOr<ChildOutput> child = ForkAndRead([](int) {
    raise(SIGKILL);
    return 0;
  });
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_TRUE(child->data.empty());
  EXPECT_THAT(DescribeWaitStatus(child->wait_status),
              HasSubstr("was killed by signal 9 ("));
}

TEST(FileBesideSelfTest, FindsADataDependencyAndExplainsAMissingOne) {
  absl::StatusOr<std::string> touch = FileBesideSelf("touch_memory", true);
  ASSERT_TRUE(touch.ok()) << touch.status();
  EXPECT_EQ(access(touch->c_str(), X_OK), 0);
  absl::StatusOr<std::string> missing = FileBesideSelf("no_such", false);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no file "));
  EXPECT_THAT(missing.status().message(), HasSubstr("data dependency"));
}

TEST(FindRunfileTest, FindsAFileOfTheRunfilesTreeAndListsWhereItLooked) {
  absl::StatusOr<std::string> touch =
      FindRunfile("common/harness/touch_memory");
  ASSERT_TRUE(touch.ok()) << touch.status();
  EXPECT_EQ(access(touch->c_str(), X_OK), 0);
  absl::StatusOr<std::string> missing = FindRunfile("common/no_such_file");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr(absl::StrCat(std::getenv("TEST_SRCDIR"), "/")));
}

}  // namespace
}  // namespace internal
}  // namespace alloclab
