// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/stats/rank_interval.h"

#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

TEST(MannWhitneyCdfTest, FiveAndFiveCountsTheArrangements) {
  // C(10, 5) = 252 arrangements; U = 0, 1, 2, 3 in 1, 1, 2, 3 of them.
  EXPECT_DOUBLE_EQ(MannWhitneyCdf(5, 5, -1), 0);
  EXPECT_DOUBLE_EQ(MannWhitneyCdf(5, 5, 0), 1.0 / 252);
  EXPECT_DOUBLE_EQ(MannWhitneyCdf(5, 5, 1), 2.0 / 252);
  EXPECT_DOUBLE_EQ(MannWhitneyCdf(5, 5, 2), 4.0 / 252);
  EXPECT_DOUBLE_EQ(MannWhitneyCdf(5, 5, 3), 7.0 / 252);
  EXPECT_DOUBLE_EQ(MannWhitneyCdf(5, 5, 25), 1);
  // Symmetric around n * m / 2.
  EXPECT_NEAR(MannWhitneyCdf(4, 6, 11) + MannWhitneyCdf(4, 6, 12), 1, 1e-12);
}

TEST(HodgesLehmannRatioTest, FiveAndFiveTakeThe3rdAnd23rdOf25) {
  // Baseline all 1: the 25 ratios are each candidate five times.
  const std::vector<double> candidate = {1, 2, 3, 4, 5};
  const std::vector<double> baseline = {1, 1, 1, 1, 1};
  const absl::StatusOr<RatioInterval> r =
      HodgesLehmannRatio(candidate, baseline);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->estimate, 3);
  EXPECT_EQ(r->rank, 3);
  EXPECT_DOUBLE_EQ(r->low, 1);   // the 3rd: still a ratio of 1
  EXPECT_DOUBLE_EQ(r->high, 5);  // the 23rd
  EXPECT_NEAR(r->coverage, 1 - 8.0 / 252, 1e-12);  // 96.8%
}

TEST(HodgesLehmannRatioTest, IsARatioOfScale) {
  // Every candidate run exactly 2x a baseline run: estimate and interval 2.
  const std::vector<double> baseline = {1.0, 1.1, 0.9, 1.3, 1.05};
  std::vector<double> candidate;
  for (double b : baseline) candidate.push_back(2 * b);
  const absl::StatusOr<RatioInterval> r =
      HodgesLehmannRatio(candidate, baseline);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->estimate, 2, 1e-12);
  EXPECT_LT(r->low, 2);
  EXPECT_GT(r->high, 2);
  // Swapping the sets inverts everything.
  const absl::StatusOr<RatioInterval> inverse =
      HodgesLehmannRatio(baseline, candidate);
  ASSERT_TRUE(inverse.ok()) << inverse.status();
  EXPECT_NEAR(inverse->estimate, 0.5, 1e-12);
  EXPECT_NEAR(inverse->low, 1 / r->high, 1e-12);
  EXPECT_NEAR(inverse->high, 1 / r->low, 1e-12);
}

TEST(HodgesLehmannRatioTest, TooFewTimingsGiveTheWidestWithItsCoverage) {
  // 3 and 3: C(6, 3) = 20, and the widest interval covers 1 - 2/20 = 90%.
  const absl::StatusOr<RatioInterval> r =
      HodgesLehmannRatio({1, 2, 3}, {1, 1, 1});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rank, 1);
  EXPECT_DOUBLE_EQ(r->low, 1);
  EXPECT_DOUBLE_EQ(r->high, 3);
  EXPECT_NEAR(r->coverage, 0.9, 1e-12);
}

TEST(HodgesLehmannRatioTest, RefusesWhatIsNotATiming) {
  for (const std::vector<double>& bad :
       {std::vector<double>{}, std::vector<double>{1, 0},
        std::vector<double>{1, -2}, std::vector<double>{1, std::nan("")}}) {
    EXPECT_EQ(HodgesLehmannRatio(bad, {1, 2}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(HodgesLehmannRatio({1}, {1}, 1.0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace alloclab
