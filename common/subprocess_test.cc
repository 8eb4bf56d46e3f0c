// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/subprocess.h"

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
