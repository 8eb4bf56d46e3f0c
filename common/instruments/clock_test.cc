// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The clock's contract, never its speed: readings never go backwards, they
// advance, and TimeNs() covers its region. How long anything takes depends
// on the machine and its load, so no test here bounds a time from above;
// TimerOverheadNs() has no test of its value for the same reason (every
// experiment reports it, in its JSON's instruments).

#include "common/instruments/clock.h"

#include <cstdint>

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

TEST(TimeNsTest, CoversTheWholeRegion) {
  // A region that lasts at least 50 microseconds by the same clock: a
  // TimeNs() that read its end before the call, or subtracted the wrong
  // way, would say less.
  int64_t inside = 0;
  const int64_t ns = TimeNs([&] {
    const int64_t start = NowNs();
    while ((inside = NowNs() - start) < 50'000) {
    }
  });
  EXPECT_GE(ns, inside);
  EXPECT_GE(ns, 50'000);
}

TEST(TimeNsTest, RunsTheFunctionOnce) {
  int calls = 0;
  TimeNs([&] { ++calls; });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace alloclab
