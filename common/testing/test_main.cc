// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// main() for GoogleTest suites that start fresh calls: the new copy of the
// test binary must run only the requested call, before GoogleTest parses
// flags or runs a single test.

#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"

int main(int argc, char** argv) {
  alloclab::MaybeRunFreshCall();
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
