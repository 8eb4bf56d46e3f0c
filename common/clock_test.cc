// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The clock's contract, never its speed: readings never go backwards and the
// overhead is a real, non-negative number. How long anything takes depends
// on the machine and its load, so no test here bounds a time from above.

#include "common/clock.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "gtest/gtest.h"

namespace alloclab {
namespace {

TEST(NowNsTest, NeverGoesBackwards) {
  int64_t previous = NowNs();
  for (int i = 0; i < 100000; ++i) {
    const int64_t now = NowNs();
    ASSERT_GE(now, previous) << "at read " << i;
    previous = now;
  }
}

TEST(NowNsTest, AdvancesOverABusyLoop) {
  // A monotonic clock that never moves would pass the test above.
  const int64_t start = NowNs();
  int64_t now = start;
  for (int i = 0; i < 100'000'000 && now == start; ++i) now = NowNs();
  EXPECT_GT(now, start);
}

TEST(TimeNsTest, EmptyRegionIsNonNegative) {
  for (int i = 0; i < 1000; ++i) {
    EXPECT_GE(TimeNs([] {}), 0);
  }
}

TEST(TimeNsTest, RunsTheFunctionOnce) {
  int calls = 0;
  TimeNs([&] { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(TimerOverheadNsTest, IsFiniteAndNonNegative) {
  const double overhead = TimerOverheadNs();
  std::printf("timer overhead: %.2f ns\n", overhead);
  EXPECT_TRUE(std::isfinite(overhead)) << overhead;
  EXPECT_GE(overhead, 0.0);
}

}  // namespace
}  // namespace alloclab
