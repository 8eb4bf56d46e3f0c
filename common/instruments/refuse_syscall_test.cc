// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The filter in forked children (it cannot be removed): what it refuses
// fails with the chosen errno, everything else still works, and the parent
// is untouched.

#include "common/instruments/refuse_syscall.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

// Linux 5.14's value, for C libraries that lack it.
constexpr int kMadvPopulateWrite = 23;

// What a child saw: the return value and errno of each call.
struct Outcome {
  int install_code = -1;  // absl::StatusCode of RefuseSyscall()
  long first = 0;
  int first_errno = 0;
  long second = 0;
  int second_errno = 0;
};

TEST(RefuseSyscallTest, RefusesOneAdviceOfMadviseAndNoOther) {
  absl::StatusOr<Outcome> outcome = RunInForkedChild<Outcome>([] {
    Outcome o;
    o.install_code =
        static_cast<int>(RefuseSyscall({.nr = SYS_madvise,
                                        .arg = 2,
                                        .arg_value = kMadvPopulateWrite,
                                        .error = EINVAL})
                             .code());
    const long page = sysconf(_SC_PAGESIZE);
    void* memory =
        mmap(nullptr, static_cast<size_t>(page), PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = 0;
    o.first = madvise(memory, static_cast<size_t>(page), kMadvPopulateWrite);
    o.first_errno = errno;
    errno = 0;
    o.second = madvise(memory, static_cast<size_t>(page), MADV_DONTNEED);
    o.second_errno = errno;
    return o;
  });
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_EQ(outcome->install_code, 0) << "the filter was not installed";
  EXPECT_EQ(outcome->first, -1);
  EXPECT_EQ(outcome->first_errno, EINVAL);
  EXPECT_EQ(outcome->second, 0) << "errno " << outcome->second_errno;
}

TEST(RefuseSyscallTest, RefusesEveryCallOfANumberAndLeavesTheParentAlone) {
  absl::StatusOr<Outcome> outcome = RunInForkedChild<Outcome>([] {
    Outcome o;
    o.install_code = static_cast<int>(
        RefuseSyscall({.nr = SYS_getppid, .error = ENOSYS}).code());
    errno = 0;
    o.first = syscall(SYS_getppid);
    o.first_errno = errno;
    errno = 0;
    o.second = syscall(SYS_getpid);
    o.second_errno = errno;
    return o;
  });
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ASSERT_EQ(outcome->install_code, 0);
  EXPECT_EQ(outcome->first, -1);
  EXPECT_EQ(outcome->first_errno, ENOSYS);
  EXPECT_GT(outcome->second, 0) << "getpid was refused too";
  EXPECT_GT(syscall(SYS_getppid), 0) << "the filter reached the parent";
}

TEST(RefuseSyscallTest, RejectsARefusalItCannotExpress) {
  EXPECT_EQ(RefuseSyscall({.nr = -1, .error = EINVAL}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RefuseSyscall({.nr = SYS_madvise, .error = 0}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RefuseSyscall({.nr = SYS_madvise, .arg = 6, .error = EINVAL}).code(),
      absl::StatusCode::kInvalidArgument);
  // Nothing was installed in this process.
  EXPECT_GT(syscall(SYS_getppid), 0);
}

}  // namespace
}  // namespace alloclab
