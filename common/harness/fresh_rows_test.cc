// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/fresh_rows.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/harness/fresh_process.h"
#include "common/harness/report.h"
#include "common/harness/samples.h"
#include "common/instruments/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(AddFreshRowTest, SummarisesTheRowAndNamesAMissingKey) {
  Samples samples;
  samples.AddRun({{"x_ns", 3}, {"x_minor_faults", 64}});
  samples.AddRun({{"x_ns", 1}, {"x_minor_faults", 66}});
  samples.AddRun({{"x_ns", 2}, {"x_minor_faults", 65}});
  Results results("test");
  absl::StatusOr<FreshRow> row = AddFreshRow("v", "x", samples, results);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->page_faults.min, 64);
  ASSERT_EQ(results.rows().size(), 1u);
  EXPECT_EQ(results.rows()[0].Get("processes"), 3);
  EXPECT_EQ(results.rows()[0].Get("ns_max"), 3);

  absl::StatusOr<FreshRow> missing = AddFreshRow("w", "y", samples, results);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("variant 'w'"));
  EXPECT_THAT(missing.status().message(), HasSubstr("y_ns"));
}

void Touch(FreshCall& call) {
  call.Measure("touch", [] {
    std::vector<char> v(64 << 10, 1);
    static_cast<void>(v[100]);
  });
}
ALLOCLAB_FRESH_CALL("fresh_rows_test_touch", Touch);

// Records when it ran (CLOCK_MONOTONIC is one clock for every process) and
// whether ALLOCLAB_TEST_MARK was set.
void WhenAndMark(FreshCall& call) {
  call.Record("t", static_cast<double>(NowNs()));
  call.Record("marked", getenv("ALLOCLAB_TEST_MARK") != nullptr ? 1 : 0);
}
ALLOCLAB_FRESH_CALL("fresh_rows_test_when", WhenAndMark);

TEST(RunFreshInterleavedTest, TakesTheVariantsInTurnWithTheirOwnEnvironment) {
  std::vector<absl::StatusOr<Samples>> s =
      RunFreshInterleaved({{.name = "a", .call = "fresh_rows_test_when"},
                           {.name = "b",
                            .call = "fresh_rows_test_when",
                            .env = {{"ALLOCLAB_TEST_MARK", "1"}}}},
                          3);
  ASSERT_EQ(s.size(), 2u);
  ASSERT_TRUE(s[0].ok()) << s[0].status();
  ASSERT_TRUE(s[1].ok()) << s[1].status();
  const std::vector<double>& a = s[0]->Values("t");
  const std::vector<double>& b = s[1]->Values("t");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT(a[i], b[i]) << "round " << i;
    if (i + 1 < 3) {
      EXPECT_LT(b[i], a[i + 1]) << "round " << i;
    }
  }
  EXPECT_THAT(s[0]->Values("marked"), ElementsAre(0, 0, 0));
  EXPECT_THAT(s[1]->Values("marked"), ElementsAre(1, 1, 1));
  EXPECT_EQ(getenv("ALLOCLAB_TEST_MARK"), nullptr);
}

TEST(RunFreshInterleavedTest, AFailedVariantStopsAloneAndIsNamed) {
  std::vector<absl::StatusOr<Samples>> s =
      RunFreshInterleaved({{.name = "broken", .call = "no_such_fresh_call"},
                           {.name = "fine", .call = "fresh_rows_test_when"}},
                          2);
  ASSERT_FALSE(s[0].ok());
  EXPECT_THAT(s[0].status().message(), HasSubstr("variant 'broken'"));
  ASSERT_TRUE(s[1].ok()) << s[1].status();
  EXPECT_EQ(s[1]->runs(), 2);
}

TEST(RunFreshCallsTest, GathersEveryProcess) {
  absl::StatusOr<Samples> samples =
      RunFreshCalls("touch_row", "fresh_rows_test_touch", 2);
  ASSERT_TRUE(samples.ok()) << samples.status();
  EXPECT_EQ(samples->runs(), 2);
  EXPECT_EQ(samples->Values("touch_ns").size(), 2u);
}

TEST(RunFreshCallsTest, AnErrorNamesTheVariant) {
  absl::StatusOr<Samples> samples =
      RunFreshCalls("cold_row", "no_such_fresh_call", 1);
  ASSERT_FALSE(samples.ok());
  EXPECT_THAT(samples.status().message(), HasSubstr("variant 'cold_row'"));
}

TEST(SamplesOrNoteTest, TurnsTheErrorIntoANote) {
  Results results("test");
  Samples samples = SamplesOrNote(
      RunFreshCalls("cold_row", "no_such_fresh_call", 1), results);
  EXPECT_EQ(samples.runs(), 0);
  ASSERT_EQ(results.notes().size(), 1u);
  EXPECT_THAT(results.notes()[0], HasSubstr("variant 'cold_row'"));
}

}  // namespace
}  // namespace alloclab
