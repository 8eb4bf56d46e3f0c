// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The reference's own large-block design, which task.h leaves to each
// design (no promise covers it; segregated_fit maps every large block, and
// thread_owned_pages keeps only mappings of up to 2 MiB, 4 MiB in all):
// freed mappings are kept and serve the next requests they hold, as
// glibc's dynamic threshold keeps a freed block in its heap, within
// kLargeCacheBytes. Lab jemalloc_adoption's large_blocks workload, in
// small: four live blocks of 1 to 16 MiB, each replaced in turn. Before
// the cache kept mappings of that size, every replacement was a map; it
// was a fifth of glibc's speed there (issue 26). The reference's source is
// included, as the known-bads include it, for its own constants.

#include <cstddef>
#include <cstdint>

#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "solutions/allocator_design/task.cc"

namespace allocator_design {
namespace {

constexpr int kLive = 4;
constexpr int kReplacements = 200;
constexpr size_t kMiB = size_t{1} << 20;

TEST(ReferenceLargeCache, FreedMappingsServeTheNextLargeBlocks) {
  // The decay must not unmap a cached block because a loaded machine took
  // a second: its clock stands still here.
  internal::ScopedFakeClock clock;
  void* live[kLive] = {};
  size_t sizes[kLive] = {};
  uint64_t state = 7;
  uint64_t most_live = 0;
  uint64_t most_held = 0;
  const uint64_t held_before = ReadCounters().bytes_held;
  const uint64_t maps_before = ReadPageSourceCounts().map_calls;
  for (int i = 0; i < kReplacements; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const int slot = static_cast<int>((state >> 33) % kLive);
    const size_t bytes = kMiB + static_cast<size_t>(state >> 20) % (15 * kMiB);
    Free(live[slot]);
    live[slot] = Allocate(bytes, 16, false);
    ASSERT_NE(live[slot], nullptr) << "Allocate(" << bytes << ") failed";
    static_cast<char*>(live[slot])[bytes - 1] = 1;
    sizes[slot] = bytes;
    uint64_t now_live = 0;
    for (size_t s : sizes) now_live += s;
    if (now_live > most_live) most_live = now_live;
    const uint64_t held = ReadCounters().bytes_held - held_before;
    if (held > most_held) most_held = held;
  }
  const uint64_t maps = ReadPageSourceCounts().map_calls - maps_before;
  for (void* p : live) Free(p);
  // A map for each of the first blocks, for a request larger than every
  // cached mapping, and for metadata: about a tenth of the replacements
  // here. A design that maps every block makes at least kReplacements.
  EXPECT_LE(maps, static_cast<uint64_t>(kReplacements / 4))
      << "the reference mapped " << maps << " times for " << kReplacements
      << " blocks of 1 to 16 MiB, " << kLive
      << " live: freed mappings did not serve the next requests";
  // What it may hold: each live block in a mapping of at most the largest
  // size asked for (a cached mapping serves any request it holds), the
  // cache's bound, and a megabyte of metadata.
  EXPECT_LE(most_held, kLive * 16 * kMiB + kLargeCacheBytes + kMiB)
      << "the reference held " << most_held << " bytes at most, with at most "
      << most_live << " live";
}

}  // namespace
}  // namespace allocator_design
