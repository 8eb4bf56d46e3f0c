// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/noise.h"

#include <string>
#include <vector>

#include "common/stats/stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(DifferenceNoteTest, StatesADifferenceBeyondBothSpreads) {
  const Estimate a{20.0, 1.0};
  const Estimate b{7.0, 2.0};
  EXPECT_TRUE(DifferenceExceedsNoise(a, b));
  EXPECT_EQ(DifferenceNote("one malloc+free", "new", a, "reuse", b, "ns"),
            "one malloc+free ≈ 13.0 ns here (new - reuse)");
}

TEST(DifferenceNoteTest, SaysWithinNoiseWhenTheRangesOverlap) {
  // 3 ns apart, but 2 + 1.5 ns of spread: the ranges overlap.
  const Estimate a{10.0, 2.0};
  const Estimate b{7.0, 1.5};
  EXPECT_FALSE(DifferenceExceedsNoise(a, b));
  EXPECT_FALSE(DifferenceExceedsNoise(b, a));
  const std::string note =
      DifferenceNote("one malloc+free", "new", a, "reuse", b, "ns");
  EXPECT_THAT(note, HasSubstr("within noise"));
  EXPECT_THAT(note, HasSubstr("± 2.0 ns and ± 1.5 ns"));
  EXPECT_THAT(note, Not(HasSubstr("≈")));
}

TEST(DifferenceNoteTest, EqualToTheSpreadIsStillNoise) {
  EXPECT_FALSE(DifferenceExceedsNoise({10.0, 1.0}, {8.0, 1.0}));
  EXPECT_TRUE(DifferenceExceedsNoise({10.0, 1.0}, {7.9, 1.0}));
}

// One batch has a MAD of 0, which is no evidence of a quiet machine: a
// difference of one measurement against anything is not stated.
TEST(DifferenceNoteTest, ASingleMeasurementCannotTell) {
  const Estimate one{20.0, 0.0, 1};
  const Estimate many{7.0, 0.5, 5};
  EXPECT_FALSE(DifferenceExceedsNoise(one, many));
  EXPECT_FALSE(DifferenceExceedsNoise(many, one));
  const std::string note =
      DifferenceNote("one malloc+free", "new", one, "reuse", many, "ns");
  EXPECT_THAT(note,
              HasSubstr("new - reuse = 13.0 ns from a single measurement"));
  EXPECT_THAT(note, HasSubstr("cannot tell"));
  EXPECT_THAT(note, Not(HasSubstr("≈")));
  EXPECT_TRUE(DifferenceExceedsNoise({20.0, 0.5, 2}, many));
  const std::vector<double> single = {3.0};
  EXPECT_EQ(EstimateOf(Summarize(single)).samples, 1u);
}

}  // namespace
}  // namespace alloclab
