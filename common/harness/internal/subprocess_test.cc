// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/internal/subprocess.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace internal {
namespace {

using ::testing::HasSubstr;

TEST(ErrnoTextTest, IsStrerrorsMessage) {
  EXPECT_EQ(ErrnoText(ENOENT), "No such file or directory");
}

TEST(DescribeExitTest, SignalWinsOverCode) {
  EXPECT_EQ(DescribeExit(0, 0), "exited with code 0");
  EXPECT_THAT(DescribeExit(1, SIGABRT), HasSubstr("signal 6"));
}

TEST(WaitForPidTest, RefusesAProcessThatIsNoChild) {
  absl::StatusOr<int> status = WaitForPid(getppid());
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.status().message(), HasSubstr("not a child"));
}

}  // namespace
}  // namespace internal
}  // namespace alloclab
