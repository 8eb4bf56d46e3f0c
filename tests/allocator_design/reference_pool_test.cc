// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The reference's own pool of whole-free spans, which task.h leaves to each
// design: when the page heap maps a chunk of several spans, the spans no
// block has used yet wait in the pool, and the decay gives them back
// kDecayNs after they were mapped, whether or not anything was freed since.
// Promise 2 covers memory once every block is freed, and every such free
// starts the decay's clock again, so the suite cannot tell a heap that
// forgets to start it for a new chunk: this test can (a survivor of the
// reference's mutation report, its sample of 2026-12-03 06:31 UTC:
// GetSpan()'s `if (chunk > span_bytes) NoteIdle(now);` negated). The
// reference's source is included, as the known-bads include it, for its
// pool's own counts.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "solutions/allocator_design/task.cc"

namespace allocator_design {
namespace {

// Blocks of 64 bytes, live until the end: 1 MiB first, which brings the
// bytes held past the point where chunks grow beyond a span, then 16 MiB
// more, all of them from chunks of many spans.
constexpr int kFirstBlocks = 1 << 14;
constexpr int kMoreBlocks = 1 << 18;

// kDecayCheckOps malloc/free pairs, after the clock moved 2 * kDecayNs.
void DecayPass(internal::ScopedFakeClock& clock) {
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
}

uint64_t PooledBytes() {
  heap.lock.Acquire();
  const uint64_t pooled = heap.cached_bytes;
  heap.lock.Release();
  return pooled;
}

TEST(ReferencePool, UntouchedSpansOfANewChunkDecayWhileBlocksStayLive) {
  internal::ScopedFakeClock clock;
  std::vector<void*> live;
  for (int i = 0; i < kFirstBlocks + kMoreBlocks; ++i) {
    if (i == kFirstBlocks) {
      // Whatever the first chunks left in the pool goes back now, and the
      // decay has nothing left to wait for.
      DecayPass(clock);
      ASSERT_EQ(PooledBytes(), 0u) << "the first decay kept pooled spans";
    }
    live.push_back(Allocate(64, 1, false));
    ASSERT_NE(live.back(), nullptr);
  }
  const uint64_t pooled = PooledBytes();
  ASSERT_GT(pooled, 0u) << "no span of the last chunk was left untouched: "
                        << "the test needs another count of blocks";
  const uint64_t released_before = ReadPageSourceCounts().bytes_released;
  DecayPass(clock);
  const uint64_t released =
      ReadPageSourceCounts().bytes_released - released_before;
  EXPECT_GE(released, pooled)
      << "the pool held " << pooled << " bytes of spans no block had used, "
      << "from chunks mapped 2 * kDecayNs ago; the next " << kDecayCheckOps
      << " malloc/free pairs released only " << released << " bytes";
  for (void* p : live) Free(p);
}

}  // namespace
}  // namespace allocator_design
