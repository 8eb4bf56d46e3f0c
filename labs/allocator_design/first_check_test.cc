// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: first_check_test.cc
// -----------------------------------------------------------------------------
//
// Lab allocator_design, your first step: one check of your own, before you
// build anything. The lab's suite (tests/allocator_design/*_test.cc)
// will judge your allocator; here you are on the other side, writing a
// check that must tell a correct allocator from a broken one.
//
// The broken one is given: a known-bad allocator of the lab's suite, the
// reference solution with one mistake in how it hands freed memory out
// again. It looks right: every block it hands out is aligned, large enough
// and readable. Which promise of task.h does it break? Try to catch it
// before you read its source (the chapter, "Step 1", says where it is).
//
// Your check is done when
//
//   bazel test //tests/allocator_design:first_check
//
// passes. It links this file twice, and its two tests must both pass:
//
//   first_check_reference_test     this file against the reference
//                                  solution: every test here must pass
//                                  (a check that fails a correct allocator
//                                  is wrong);
//   first_check_rejects_bad_test   every test of the suite `FirstCheck`,
//                                  run alone against the broken
//                                  allocator, must fail (a check that
//                                  passes a broken allocator has not
//                                  checked). tools/checks/xfail.py says which
//                                  test passed instead.
//
// Rules, as in the lab's own suite: call only task.h's functions; assert
// what the allocator promises (task.h's words), with counts and contents,
// never a time; a failure message that says which promise broke. Tests of
// another suite name than `FirstCheck` run on the reference only.
//
// The test below is the starter: a real check (it fails an allocator that
// gives no memory, or too little), but not of the mistake the broken
// allocator makes, so first_check_rejects_bad_test fails on it. Replace it.
//
// Example (what a check looks like; not this one):
//
//   TEST(FirstCheck, EveryBlockIsAligned) {
//     for (size_t alignment = 1; alignment <= 4096; alignment *= 2) {
//       void* p = allocator_design::Allocate(100, alignment, false);
//       ASSERT_NE(p, nullptr);
//       EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u)
//           << "task.h, Allocate(): aligned to `alignment`";
//       allocator_design::Free(p);
//     }
//   }

#include <cstddef>
#include <cstdint>

#include "gtest/gtest.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

// TODO(you): a check that the broken allocator fails and the reference
// passes. The chapter's Step 1 has questions to start from.
TEST(FirstCheck, ABlockIsAsLargeAsAskedFor) {
  void* p = Allocate(100, 1, false);
  ASSERT_NE(p, nullptr) << "task.h, Allocate(): nullptr only when the page "
                           "source refuses";
  EXPECT_GE(UsableSize(p), size_t{100})
      << "task.h, UsableSize(): at least the size asked for";
  Free(p);
}

}  // namespace
}  // namespace allocator_design
