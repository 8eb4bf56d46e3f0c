// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/child_run.h"

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;

std::string TouchMemory() {
  absl::StatusOr<std::string> found =
      FindRunfile("common/harness/touch_memory");
  return found.ok() ? *found : "common/harness/touch_memory";
}

TEST(RunChildTest, CapturesOutputAndThePeakOfWhatTheChildTouched) {
  constexpr int kMib = 48;
  ChildCommand command;
  command.argv = {TouchMemory(), absl::StrCat(kMib)};
  absl::StatusOr<ChildRun> run = RunChild(command);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->stdout_text, absl::StrCat("touched ", kMib, " MiB\n"));
  EXPECT_EQ(run->stderr_text, "");
  // Every byte written: all of it was resident at once.
  EXPECT_GE(run->peak_rss_kib, kMib * 1024);
  EXPECT_GT(run->launcher_rss_kib, 0);
}

// Touching memory is page faults, whatever the page or folio size: one
// fault may cover many pages under (m)THP, but 48 MiB cannot take none.
TEST(RunChildTest, CountsTheChildsPageFaults) {
  ChildCommand none;
  none.argv = {TouchMemory(), "0"};
  absl::StatusOr<ChildRun> idle = RunChild(none);
  ASSERT_TRUE(idle.ok()) << idle.status();
  ChildCommand some;
  some.argv = {TouchMemory(), "48"};
  absl::StatusOr<ChildRun> touched = RunChild(some);
  ASSERT_TRUE(touched.ok()) << touched.status();
  EXPECT_GT(idle->minor_faults, 0) << "the loader alone faults in pages";
  EXPECT_GT(touched->minor_faults, idle->minor_faults);
}

TEST(ProgramBesideSelfTest, FindsADataDependencyOfThisPackage) {
  absl::StatusOr<std::string> touch = ProgramBesideSelf("touch_memory");
  ASSERT_TRUE(touch.ok()) << touch.status();
  EXPECT_TRUE(absl::EndsWith(*touch, "/common/harness/touch_memory")) << *touch;
  absl::StatusOr<std::string> missing = ProgramBesideSelf("no_such_program");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("data dependency"));
}

TEST(RunChildTest, EnvironmentAdditionsReachTheChildOnly) {
  ASSERT_EQ(setenv("ALLOCLAB_CHILD_RUN_OLD", "parent", 1), 0);
  ChildCommand command;
  command.argv = {"sh", "-c",
                  "echo \"$ALLOCLAB_CHILD_RUN_NEW $ALLOCLAB_CHILD_RUN_OLD\""};
  command.env = {{"ALLOCLAB_CHILD_RUN_NEW", "added"},
                 {"ALLOCLAB_CHILD_RUN_OLD", "replaced"}};
  absl::StatusOr<ChildRun> run = RunChild(command);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->stdout_text, "added replaced\n");
  EXPECT_EQ(std::getenv("ALLOCLAB_CHILD_RUN_NEW"), nullptr);
  EXPECT_STREQ(std::getenv("ALLOCLAB_CHILD_RUN_OLD"), "parent");
  // Without additions, the child inherits this process's value.
  command.env.clear();
  command.argv = {"sh", "-c", "echo $ALLOCLAB_CHILD_RUN_OLD"};
  run = RunChild(command);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->stdout_text, "parent\n");
  unsetenv("ALLOCLAB_CHILD_RUN_OLD");
}

TEST(RunChildTest, NonZeroExitIsAnErrorWithTheStatusAndStderr) {
  ChildCommand command;
  command.argv = {TouchMemory(), "0", "3"};
  absl::StatusOr<ChildRun> run = RunChild(command);
  ASSERT_EQ(run.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(run.status().message(), HasSubstr("exited with code 3"));
  EXPECT_THAT(run.status().message(), HasSubstr("exiting with 3"));
}

TEST(RunChildTest, ASignalIsNamed) {
  ChildCommand command;
  command.argv = {"sh", "-c", "kill -KILL $$"};
  absl::StatusOr<ChildRun> run = RunChild(command);
  ASSERT_EQ(run.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(run.status().message(), HasSubstr("signal 9"));
}

TEST(RunChildTest, MissingProgramIsNotFound) {
  ChildCommand command;
  command.argv = {"/nonexistent/program", "--flag"};
  absl::StatusOr<ChildRun> run = RunChild(command);
  ASSERT_EQ(run.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(run.status().message(), HasSubstr("/nonexistent/program"));
  EXPECT_THAT(run.status().message(), HasSubstr("No such file"));
  command.argv = {"alloclab-no-such-program-on-path"};
  EXPECT_EQ(RunChild(command).status().code(), absl::StatusCode::kNotFound);
}

TEST(RunChildTest, BadCommandsAreRefusedBeforeAnyFork) {
  ChildCommand empty;
  EXPECT_EQ(RunChild(empty).status().code(),
            absl::StatusCode::kInvalidArgument);
  ChildCommand bad_env;
  bad_env.argv = {"true"};
  bad_env.env = {{"A=B", "x"}};
  EXPECT_EQ(RunChild(bad_env).status().code(),
            absl::StatusCode::kInvalidArgument);
  ChildCommand bad_interval;
  bad_interval.argv = {"true"};
  bad_interval.rss_sample_interval = absl::ZeroDuration();
  EXPECT_EQ(RunChild(bad_interval).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// sleep(1) promises at least the time asked for; the first sample is taken
// right after the fork, long before the child can have ended.
TEST(RunChildTest, SamplesTheChildsRssWhileItRuns) {
  ChildCommand command;
  command.argv = {"sleep", "0.3"};
  command.rss_sample_interval = absl::Milliseconds(20);
  absl::StatusOr<ChildRun> run = RunChild(command);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_GE(run->wall_s, 0.3);
  ASSERT_FALSE(run->rss_samples.empty());
  double previous_ms = 0;
  for (const RssPoint& point : run->rss_samples) {
    EXPECT_GT(point.rss_kib, 0);
    EXPECT_GE(point.t_ms, previous_ms) << "samples out of time order";
    previous_ms = point.t_ms;
  }
}

}  // namespace
}  // namespace alloclab
