// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// A suite for tools/xfail_test_test.sh: compiled twice, as the reference
// (every test passes) and as the "bad" implementation (XFAIL_FIXTURE_BAD),
// with one test of each kind xfail.py must tell apart. Two environment
// variables stage the accidents: XFAIL_FIXTURE_CRASH makes the bad build
// crash, XFAIL_FIXTURE_BROKEN_MACHINE makes a test fail on both builds.

#include <cstdlib>

#include "gtest/gtest.h"

namespace {

#ifdef XFAIL_FIXTURE_BAD
constexpr bool kBad = true;
#else
constexpr bool kBad = false;
#endif

// Caught: fails on the bad build, passes on the reference.
TEST(Fixture, Rejects) { EXPECT_FALSE(kBad) << "the bad build is caught"; }
TEST(Fixture, AlsoRejects) { EXPECT_FALSE(kBad) << "caught again"; }

// Not caught: passes on both.
TEST(Fixture, Passes) { SUCCEED(); }

// A crash is never a rejection.
TEST(Fixture, Crashes) {
  if (kBad && std::getenv("XFAIL_FIXTURE_CRASH") != nullptr) std::abort();
}

// Fails on both, as a check the machine cannot run (ptrace refused) would.
TEST(Fixture, FailsOnBoth) {
  if (std::getenv("XFAIL_FIXTURE_BROKEN_MACHINE") != nullptr) {
    ADD_FAILURE() << "this machine cannot run me";
  }
}

// A skip rejects nothing: on both builds (a check this build cannot make),
// or on the bad one only.
TEST(Fixture, Skips) { GTEST_SKIP() << "not here"; }
TEST(Fixture, SkipsOnBadOnly) {
  if (kBad) GTEST_SKIP() << "only the bad build skips";
}

// Parameterized: every instance fails on the bad build.
class FixtureParam : public testing::TestWithParam<int> {};
TEST_P(FixtureParam, Rejects) { EXPECT_FALSE(kBad) << GetParam(); }
INSTANTIATE_TEST_SUITE_P(Sizes, FixtureParam, testing::Values(1, 2));

}  // namespace
