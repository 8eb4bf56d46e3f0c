// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// A suite with an order-dependent verdict, for tools/order_check_test.sh:
// NeedsWarm passes only after Warms ran in the same process, as a test that
// relies on an earlier test's heap would.

#include "gtest/gtest.h"

namespace {

bool g_warm = false;

TEST(Order, Warms) { g_warm = true; }
TEST(Order, NeedsWarm) { EXPECT_TRUE(g_warm) << "no earlier test warmed me"; }
TEST(Order, Independent) { SUCCEED(); }

}  // namespace
