// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/effective_clock.h"

#include <cstdint>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

// Every add counts exactly once: with a fixed step s and the chain seeded
// with n, DependentAdds(n) == n + n * s == n * DependentAdds(1) (mod 2^64).
// A chain that dropped or repeated a turn, or mishandled the remainder of n
// modulo the unrolling, breaks the identity.
TEST(DependentAddsTest, ExactlyNAdds) {
  const uint64_t one = DependentAdds(1);
  EXPECT_NE(one, 1u);  // the step is not zero
  EXPECT_EQ(DependentAdds(0), 0u);
  for (uint64_t n : {2, 7, 15, 16, 17, 31, 32, 33, 1000, 1'000'003}) {
    EXPECT_EQ(DependentAdds(n), n * one) << "n = " << n;
  }
}

TEST(DependentAddsTest, Deterministic) {
  EXPECT_EQ(DependentAdds(123'457), DependentAdds(123'457));
}

TEST(MeasureEffectiveGhzTest, RejectsAnEmptyBudget) {
#if defined(__x86_64__) || defined(__aarch64__)
  EXPECT_EQ(MeasureEffectiveGhz(0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MeasureEffectiveGhz(-5).status().code(),
            absl::StatusCode::kInvalidArgument);
#else
  EXPECT_EQ(MeasureEffectiveGhz(0).status().code(),
            absl::StatusCode::kUnimplemented);
#endif
}

// Only the physical bound: the result is a count of dependent adds over a
// time, and a dependent add retires at most once per cycle, so it cannot
// exceed the core's clock; no core runs at 10 GHz. A value above that means
// the chain or the arithmetic is wrong (the compiler folded the chain, the
// time unit slipped by 1000). No lower bound: a busy or throttled machine
// makes every round slow, and how slow is not the instrument's fault.
TEST(MeasureEffectiveGhzTest, IsAPlausibleClock) {
  absl::StatusOr<double> ghz = MeasureEffectiveGhz(20'000'000);
#if defined(__x86_64__) || defined(__aarch64__)
  ASSERT_TRUE(ghz.ok()) << ghz.status();
  std::printf("effective clock: %.3f GHz\n", *ghz);
  EXPECT_GT(*ghz, 0.0) << "adds were counted over a positive time";
  EXPECT_LT(*ghz, 10.0);
#else
  ASSERT_FALSE(ghz.ok());
  EXPECT_EQ(ghz.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(ghz.status().message(), "");
#endif
}

// A budget shorter than one round still gets several full rounds.
TEST(MeasureEffectiveGhzTest, TinyBudgetStillMeasures) {
  absl::StatusOr<double> ghz = MeasureEffectiveGhz(1);
#if defined(__x86_64__) || defined(__aarch64__)
  // Only the upper bound is a physical fact here: preemption can only make
  // the clock look slower, and a tiny budget has few rounds to outvote it.
  ASSERT_TRUE(ghz.ok()) << ghz.status();
  EXPECT_GT(*ghz, 0.0);
  EXPECT_LT(*ghz, 10.0);
#else
  EXPECT_EQ(ghz.status().code(), absl::StatusCode::kUnimplemented);
#endif
}

}  // namespace
}  // namespace alloclab
