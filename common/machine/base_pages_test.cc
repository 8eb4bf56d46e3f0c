// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Base pages on request: the per-mapping advice shows in the mapping's
// flags (/proc/self/smaps "nh"), an address that is not mapped is an error
// that names the call, and the per-process switch is on after the call, in
// a child after execve, and not before (checked in forked children, so that
// this process keeps THP whatever order the tests run in).

#include "common/machine/base_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "common/harness/fresh_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;

// The VmFlags line of the smaps entry that starts at `addr`; "" if none.
std::string VmFlagsAt(const void* addr) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_entry = false;
  while (std::getline(smaps, line)) {
    const size_t dash = line.find('-');
    uint64_t start = 0;
    if (dash != std::string::npos && dash < 17 &&
        absl::SimpleHexAtoi(line.substr(0, dash), &start)) {
      in_entry = start == reinterpret_cast<uintptr_t>(addr);
    } else if (in_entry && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

bool KernelHasThp() {
  return access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0;
}

TEST(AdviseBasePagesTest, MarksTheMappingNoHugePage) {
  const size_t bytes = 16 * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // PROT_READ only: a mapping unlike its neighbours, so it stays one entry.
  void* p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const std::string before = VmFlagsAt(p);
  const absl::Status status = AdviseBasePages(p, bytes);
  const std::string after = VmFlagsAt(p);
  munmap(p, bytes);
  ASSERT_TRUE(status.ok()) << status;
  if (!KernelHasThp()) GTEST_SKIP() << "no THP on this kernel: nothing to mark";
  ASSERT_THAT(before, HasSubstr("VmFlags:"));
  EXPECT_THAT(before, Not(HasSubstr(" nh")));
  EXPECT_THAT(after, HasSubstr(" nh")) << "MADV_NOHUGEPAGE shows as nh";
}

TEST(AdviseBasePagesTest, AnUnmappedRangeIsAnErrorNamingTheCall) {
  const size_t bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  munmap(p, bytes);
  const absl::Status status = AdviseBasePages(p, bytes);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("madvise(MADV_NOHUGEPAGE"));
}

// The answers a forked child gives: the switch before, after, and what a
// program it executes sees in /proc/self/status.
struct ProcessSwitch {
  int before = -1;
  int after = -1;
  int status_ok = 0;
  int exec_sees_it = -1;
};

TEST(DisableThpForProcessTest, IsOnAfterTheCallAndAcrossExecve) {
  absl::StatusOr<ProcessSwitch> child = RunInForkedChild<ProcessSwitch>([] {
    ProcessSwitch s;
    absl::StatusOr<bool> before = ThpDisabledForProcess();
    s.before = before.ok() ? *before : -1;
    s.status_ok = DisableThpForProcess().ok();
    absl::StatusOr<bool> after = ThpDisabledForProcess();
    s.after = after.ok() ? *after : -1;
    // "THP_enabled: 0" in the status of the program system() executes.
    s.exec_sees_it =
        std::system("grep -q '^THP_enabled:[[:space:]]*0$' /proc/self/status");
    return s;
  });
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(child->before, 0);
  EXPECT_EQ(child->status_ok, 1);
  EXPECT_EQ(child->after, 1);
  EXPECT_EQ(child->exec_sees_it, 0) << "THP_enabled is not 0 after execve";
}

TEST(BasePagesForProcessTest, SaysWhenItIsNotLinked) {
  const absl::Status status = BasePagesForProcessStatus();
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("base_pages_for_process is not linked"));
}

}  // namespace
}  // namespace alloclab
