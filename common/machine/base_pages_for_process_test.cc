// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Linking //common/machine:base_pages_for_process switches THP off before
// main(): the status says so, prctl says so, and the kernel's /proc/self/status
// says so (THP_enabled: 0), for this process and a fresh copy of it.

#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/harness/fresh_process.h"
#include "common/machine/base_pages.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

// The THP_enabled line of /proc/self/status (Linux 5.0+), or "".
std::string ThpEnabledLine() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("THP_enabled:", 0) == 0) return line;
  }
  return "";
}

void ReportSwitch(FreshCall& call) {
  absl::StatusOr<bool> disabled = ThpDisabledForProcess();
  call.Record("disabled", disabled.ok() && *disabled ? 1 : 0);
}
ALLOCLAB_FRESH_CALL("base_pages_switch", ReportSwitch);

TEST(BasePagesForProcessTest, SwitchedThpOffBeforeMain) {
  EXPECT_TRUE(BasePagesForProcessStatus().ok()) << BasePagesForProcessStatus();
  absl::StatusOr<bool> disabled = ThpDisabledForProcess();
  ASSERT_TRUE(disabled.ok()) << disabled.status();
  EXPECT_TRUE(*disabled);
  EXPECT_EQ(ThpEnabledLine(), "THP_enabled:\t0");
}

TEST(BasePagesForProcessTest, FreshProcessesHaveItToo) {
  absl::StatusOr<FreshCallResult> fresh = RunFreshCall("base_pages_switch");
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_EQ(fresh->values["disabled"], 1);
}

}  // namespace
}  // namespace alloclab
