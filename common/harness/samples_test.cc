// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/samples.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SamplesTest, SummarisesKeyByKeyAndNamesAMissingKey) {
  Samples samples;
  samples.AddRun({{"x_ns", 3}, {"x_minor_faults", 64}});
  samples.AddRun({{"x_ns", 1}, {"x_minor_faults", 66}});
  samples.AddRun({{"x_ns", 2}, {"x_minor_faults", 65}});
  EXPECT_EQ(samples.runs(), 3);
  EXPECT_THAT(samples.Values("x_ns"), ElementsAre(3, 1, 2));
  EXPECT_THAT(samples.Values("nothing"), IsEmpty());
  ASSERT_TRUE(samples.Summarize("x_ns").ok());
  EXPECT_EQ(samples.Summarize("x_ns")->median, 2);
  EXPECT_EQ(samples.Median("x_minor_faults", 5), 13);
  EXPECT_FALSE(samples.Median("nothing").has_value());
  EXPECT_EQ(samples.Mad("x_ns", 2), 0.5);  // |3-2|, |1-2|, |2-2|: MAD 1
}

}  // namespace
}  // namespace alloclab
