// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_design, the reference's first check: one answer to the
// learner's first step (labs/allocator_design/first_check_test.cc). Try
// your own first.
//
// The broken allocator is wrong only on memory it has handed out before:
// a fresh block is always right. So the check frees blocks and asks for
// more, and holds every block live at once to task.h's first promise to a
// caller: no two live blocks overlap. It keeps the address ranges of the
// live blocks in order, and each new block must meet none of them. Sizes
// and the order of frees come from a fixed rule, so that a failure
// repeats, and the message says which two blocks met.
//
// //tests/allocator_design:first_check_solution_test proves it: it passes
// on the reference and fails on the broken allocator.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

#include "gtest/gtest.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

constexpr char kRuleOverlap[] = "task.h, Validator: no two live blocks overlap";

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// Rounds of allocations, each round freeing every other live block before
// it allocates again, so that most blocks after the first round are
// recycled memory: the same sizes (a thread cache's blocks) and others.
TEST(FirstCheck, NoTwoLiveBlocksOverlapOnRecycledMemory) {
  std::map<uintptr_t, uintptr_t> live;  // start -> end (exclusive)
  std::vector<void*> blocks;
  int overlaps = 0;
  for (int round = 0; round < 8; ++round) {
    std::vector<void*> kept;
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (i % 2 == 0) {
        live.erase(Address(blocks[i]));
        Free(blocks[i]);
      } else {
        kept.push_back(blocks[i]);
      }
    }
    blocks = kept;
    for (int i = 0; i < 200; ++i) {
      const size_t size = 1 + (i * 37 + round * 11) % 600;
      void* p = Allocate(size, 1, false);
      ASSERT_NE(p, nullptr) << "task.h, Allocate(): nullptr only when the "
                               "page source refuses";
      const uintptr_t start = Address(p);
      const uintptr_t end =
          start + (UsableSize(p) > size ? UsableSize(p) : size);
      auto next = live.lower_bound(start);
      const bool meets_next = next != live.end() && next->first < end;
      const bool meets_prev =
          next != live.begin() && std::prev(next)->second > start;
      if (meets_next || meets_prev) {
        if (++overlaps <= 5) {
          const auto& other = meets_next ? *next : *std::prev(next);
          ADD_FAILURE() << kRuleOverlap << ": Allocate(" << size << ") gave ["
                        << p << ", +" << (end - start)
                        << "), which meets the live block ["
                        << reinterpret_cast<const void*>(other.first) << ", +"
                        << (other.second - other.first) << ")";
        }
        continue;  // keep only blocks that are really the caller's
      }
      live[start] = end;
      blocks.push_back(p);
    }
  }
  EXPECT_EQ(overlaps, 0) << kRuleOverlap;
  for (void* p : blocks) Free(p);
}

}  // namespace
}  // namespace allocator_design
