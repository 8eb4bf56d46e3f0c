// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/sink.h"

#include <cstdint>

#include "common/instruments/alloc_counter.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

// A new/delete pair on a pointer nothing reads: GCC at -O2 may drop both.
// Escaped, the allocation must stay, and the counting operator new sees it.
// noinline keeps the pair in a function of its own, as in a lab's call.
__attribute__((noinline)) void EscapedPair() {
  int* p = new int(1);
  Escape(p);
  delete p;
}

TEST(EscapeTest, KeepsANewDeletePair) {
  SetCountingMode(CountingMode::kShared);
  AllocationScope scope;
  for (int i = 0; i < 10; ++i) EscapedPair();
  EXPECT_EQ(scope.Count(), 10u);
}

}  // namespace
}  // namespace alloclab
