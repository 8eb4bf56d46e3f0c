// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/stats/stats.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace alloclab {
namespace {

// Samples whose statistics are exact in binary floating point, so every
// expectation below is an equality.

TEST(SummarizeTest, OddCount) {
  const std::vector<double> x = {4, 100, 1, 3, 2};
  const Summary s = Summarize(x);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  // |x - 3| = {1, 97, 2, 0, 1} -> sorted {0, 1, 1, 2, 97}.
  EXPECT_DOUBLE_EQ(s.mad, 1);
  // Rank 0.4 between 1 and 2; rank 3.6 between 4 and 100.
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 61.6);
}

TEST(SummarizeTest, EvenCountInterpolatesTheMedian) {
  const std::vector<double> x = {1, 2, 3, 4};
  const Summary s = Summarize(x);
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mad, 1.0);  // {1.5, 0.5, 0.5, 1.5}
  EXPECT_DOUBLE_EQ(s.p10, 1.3);
  EXPECT_DOUBLE_EQ(s.p90, 3.7);
}

TEST(SummarizeTest, HeaderExample) {
  const std::vector<double> ns = {51.6, 50.9, 88.0, 51.2};
  const Summary s = Summarize(ns);
  EXPECT_NEAR(s.median, 51.4, 1e-12);
  EXPECT_DOUBLE_EQ(s.min, 50.9);
  EXPECT_DOUBLE_EQ(s.max, 88.0);
  EXPECT_NEAR(s.mad, 0.35, 1e-12);
}

TEST(SummarizeTest, SingleSample) {
  const std::vector<double> x = {7.5};
  const Summary s = Summarize(x);
  EXPECT_EQ(s.n, 1u);
  EXPECT_EQ(s.median, 7.5);
  EXPECT_EQ(s.min, 7.5);
  EXPECT_EQ(s.max, 7.5);
  EXPECT_EQ(s.mad, 0);
  EXPECT_EQ(s.p10, 7.5);
  EXPECT_EQ(s.p90, 7.5);
}

TEST(SummarizeTest, EmptyIsAllNaN) {
  const Summary s = Summarize({});
  EXPECT_EQ(s.n, 0u);
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_TRUE(std::isnan(s.min));
  EXPECT_TRUE(std::isnan(s.max));
  EXPECT_TRUE(std::isnan(s.mad));
  EXPECT_TRUE(std::isnan(s.p10));
  EXPECT_TRUE(std::isnan(s.p90));
}

TEST(SummarizeTest, OrderDoesNotMatterAndInputIsKept) {
  const std::vector<double> sorted = {1, 2, 3, 5, 8, 13, 21};
  std::vector<double> shuffled = {13, 1, 21, 5, 3, 8, 2};
  const std::vector<double> before = shuffled;
  const Summary a = Summarize(sorted);
  const Summary b = Summarize(shuffled);
  EXPECT_EQ(shuffled, before);
  EXPECT_EQ(a.median, b.median);
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  EXPECT_EQ(a.mad, b.mad);
  EXPECT_EQ(a.p10, b.p10);
  EXPECT_EQ(a.p90, b.p90);
  EXPECT_DOUBLE_EQ(a.median, 5);
  EXPECT_DOUBLE_EQ(a.mad, 3);  // {4, 3, 2, 0, 3, 8, 16}
}

TEST(PercentileTest, EndsAreMinAndMax) {
  const std::vector<double> x = {10, 40, 20, 30};
  EXPECT_EQ(Percentile(x, 0), 10);
  EXPECT_EQ(Percentile(x, 100), 40);
  EXPECT_DOUBLE_EQ(Percentile(x, 50), 25);
  EXPECT_DOUBLE_EQ(Percentile(x, 25), 17.5);  // rank 0.75
}

TEST(PercentileTest, EmptyOrOutOfRangeIsNaN) {
  const std::vector<double> x = {1, 2};
  EXPECT_TRUE(std::isnan(Percentile({}, 50)));
  EXPECT_TRUE(std::isnan(Percentile(x, -1)));
  EXPECT_TRUE(std::isnan(Percentile(x, 100.5)));
  EXPECT_TRUE(std::isnan(Percentile(x, std::nan(""))));
}

}  // namespace
}  // namespace alloclab
