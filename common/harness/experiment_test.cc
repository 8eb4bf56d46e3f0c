// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/experiment.h"

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/harness/lab_main.h"
#include "common/harness/report.h"
#include "common/harness/variant_error.h"
#include "common/instruments/faults.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CheckRangeTest, NamesTheFlagAndTheBounds) {
  EXPECT_TRUE(CheckRange("calls", 1, 1).ok());
  EXPECT_EQ(CheckRange("calls", 0, 1).message(),
            "--calls must be at least 1, got 0");
  EXPECT_EQ(CheckRange("live", 9, 2, 8).message(),
            "--live must be between 2 and 8, got 9");
}

LabOptions QuickOptions() {
  LabOptions options;
  options.quick = true;
  return options;
}

TEST(RunLabTest, ABodyErrorNamesTheVariantAndPrintsNoTable) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = internal::RunLabWithOptions(
      QuickOptions(), {.lab = "demo", .columns = {{"ns_per_call", "ns", 1}}},
      [](Lab& lab) {
        lab.results().AddRow("fine").Set("ns_per_call", 1.0);
        return VariantError("broken", absl::InternalError("mmap failed"));
      });
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 1);
  EXPECT_THAT(err, HasSubstr("demo: variant 'broken': mmap failed"));
  EXPECT_THAT(out, Not(HasSubstr("fine")));
}

TEST(RunLabTest, AFlagCheckFailsBeforeAnyWork) {
  bool ran = false;
  testing::internal::CaptureStderr();
  const int code = internal::RunLabWithOptions(
      QuickOptions(),
      {.lab = "demo",
       .check_flags =
           [](const LabOptions&) {
             return absl::InvalidArgumentError("--size must be positive");
           }},
      [&](Lab&) {
        ran = true;
        return absl::OkStatus();
      });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 1);
  EXPECT_FALSE(ran);
  EXPECT_THAT(err, HasSubstr("--size must be positive"));
}

TEST(RunLabTest, InsteadEndsTheProgramWithItsCode) {
  bool ran = false;
  const int code = internal::RunLabWithOptions(
      QuickOptions(),
      {.lab = "demo",
       .instead = [](const LabOptions&) -> std::optional<int> { return 3; }},
      [&](Lab&) {
        ran = true;
        return absl::OkStatus();
      });
  EXPECT_EQ(code, 3);
  EXPECT_FALSE(ran);
}

TEST(RunLabTest, SetsUpTheMachineOnceWithTheFaultSource) {
  std::string source_seen;
  testing::internal::CaptureStdout();
  const int code = internal::RunLabWithOptions(
      QuickOptions(),
      {.lab = "demo",
       .columns = {{"ns_per_call", "ns", 1}},
       .fault_source = FaultSource::kGetrusage,
       .faults_from = "getrusage in the child"},
      [&](Lab& lab) {
        source_seen = lab.results().machine().faults_source;
        lab.PrintAboveTable("headline first");
        lab.results().AddRow("row").Set("ns_per_call", 2.0);
        // The counter is usable on this thread.
        return lab.faults().Read().status();
      });
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(source_seen, "getrusage in the child");
  EXPECT_THAT(out, HasSubstr("headline first\nvariant"));
  EXPECT_THAT(out, HasSubstr("faults from getrusage in the child"));
}

}  // namespace
}  // namespace alloclab
