// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The churn workload (common/workloads/churn.h): the same work for the same
// seed whatever serves the blocks, the thread's shape (at most 4,096 live
// blocks, sizes 1..256 times the scale, all freed at the end), and clear
// failures.

#include "common/workloads/churn.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "gtest/gtest.h"

namespace {

// A malloc-backed allocator that checks every call against what it handed
// out and counts them.
struct CountingAllocator {
  std::map<void*, size_t> live;
  std::set<size_t> sizes;
  uint64_t allocations = 0;
  uint64_t releases = 0;
  uint64_t size_mismatches = 0;
  uint64_t unknown_releases = 0;
  size_t peak_live = 0;
  uint64_t fail_after = UINT64_MAX;  // allocations before one returns NULL

  static void* Allocate(void* context, size_t size) {
    auto* self = static_cast<CountingAllocator*>(context);
    if (self->allocations == self->fail_after) return nullptr;
    void* block = malloc(size);
    if (block == nullptr) return nullptr;
    ++self->allocations;
    self->live[block] = size;
    self->sizes.insert(size);
    if (self->live.size() > self->peak_live)
      self->peak_live = self->live.size();
    return block;
  }

  static void Release(void* context, void* block, size_t size) {
    auto* self = static_cast<CountingAllocator*>(context);
    ++self->releases;
    auto it = self->live.find(block);
    if (it == self->live.end()) {
      ++self->unknown_releases;
      return;  // not ours: never free it
    }
    if (it->second != size) ++self->size_mismatches;
    self->live.erase(it);
    free(block);
  }

  churn_allocator Hooks() { return {&Allocate, &Release, this}; }
};

churn_params Params(uint64_t iterations, uint64_t scale, uint64_t seed) {
  churn_params params;
  std::memset(&params, 0, sizeof(params));
  params.iterations = iterations;
  params.scale = scale;
  params.seed = seed;
  return params;
}

TEST(ChurnTest, SameSeedSameChecksumWhateverServesTheBlocks) {
  churn_params params = Params(20000, 256, 7);
  const uint64_t with_malloc = churn_run(&params);
  ASSERT_NE(with_malloc, CHURN_FAILED);

  CountingAllocator counting;
  const churn_allocator hooks = counting.Hooks();
  params.allocator = &hooks;
  EXPECT_EQ(churn_run(&params), with_malloc);

  params.allocator = churn_libc_allocator();  // what NULL means
  EXPECT_EQ(churn_run(&params), with_malloc);

  params = Params(20000, 256, 8);
  EXPECT_NE(churn_run(&params), with_malloc) << "the seed must matter";
  params = Params(20000, 1024, 7);
  EXPECT_NE(churn_run(&params), with_malloc) << "the scale must matter";
}

TEST(ChurnTest, SeedZeroRuns) {
  churn_params params = Params(1000, 1024, 0);
  EXPECT_NE(churn_run(&params), CHURN_FAILED);
}

TEST(ChurnTest, KeepsAtMostMaxLiveBlocksAndFreesAllWithTheirSizes) {
  CountingAllocator counting;
  const churn_allocator hooks = counting.Hooks();
  churn_params params = Params(3 * CHURN_MAX_LIVE, 256, 3);
  params.allocator = &hooks;
  ASSERT_NE(churn_run(&params), CHURN_FAILED);

  EXPECT_EQ(counting.allocations, params.iterations);
  EXPECT_EQ(counting.releases, params.iterations);
  EXPECT_TRUE(counting.live.empty());
  EXPECT_EQ(counting.size_mismatches, 0u);
  EXPECT_EQ(counting.unknown_releases, 0u);
  // A new block is allocated before a victim is freed, as in the thread.
  EXPECT_EQ(counting.peak_live, CHURN_MAX_LIVE + 1u);
  // Sizes are multiples of the scale from 1 to 256 of them; 12,288 draws
  // hit every one of the 256 classes (the chance to miss one is ~1e-19).
  EXPECT_EQ(counting.sizes.size(), static_cast<size_t>(CHURN_SIZE_CLASSES));
  EXPECT_EQ(*counting.sizes.begin(), 256u);
  EXPECT_EQ(*counting.sizes.rbegin(), 256u * CHURN_SIZE_CLASSES);
}

TEST(ChurnTest, BlockSizesFollowTheThreadsFormula) {
  EXPECT_EQ(churn_block_size(0, 1024), 1024u);
  EXPECT_EQ(churn_block_size(255, 1024), 256u * 1024);
  EXPECT_EQ(churn_block_size(256, 1024), 1024u);
  EXPECT_EQ(churn_block_size(127, 1024), 128u * 1024);
}

// The share of the issue: at scale 1024, sizes of 128 KiB and up (128..256
// KiB, 129 of the 256) reach musl's threshold; at scale 256 none does.
TEST(ChurnTest, ShareAtOrAboveMuslsThresholdIsExact) {
  EXPECT_EQ(churn_classes_at_or_above(1024, CHURN_MUSL_MMAP_THRESHOLD), 129u);
  EXPECT_EQ(churn_classes_at_or_above(256, CHURN_MUSL_MMAP_THRESHOLD), 0u);
  EXPECT_EQ(churn_classes_at_or_above(1024, 1), 256u);
  // The edge: 127 KiB = 130,048 is below 131,052, 128 KiB = 131,072 above.
  EXPECT_LT(127u * 1024, static_cast<uint64_t>(CHURN_MUSL_MMAP_THRESHOLD));
  EXPECT_GE(128u * 1024, static_cast<uint64_t>(CHURN_MUSL_MMAP_THRESHOLD));
}

TEST(ChurnTest, BadParamsAreRefusedWithAReason) {
  churn_params params = Params(0, 1024, 1);
  ASSERT_NE(churn_check_params(&params), nullptr);
  EXPECT_NE(std::strstr(churn_check_params(&params), "iterations"), nullptr);
  EXPECT_EQ(churn_run(&params), CHURN_FAILED);

  params = Params(10, 0, 1);
  EXPECT_NE(std::strstr(churn_check_params(&params), "scale"), nullptr);
  EXPECT_EQ(churn_run(&params), CHURN_FAILED);
  params.scale = CHURN_MAX_SCALE + 1;
  EXPECT_NE(churn_check_params(&params), nullptr);
  params.scale = CHURN_MAX_SCALE;
  EXPECT_EQ(churn_check_params(&params), nullptr);

  const churn_allocator half = {&CountingAllocator::Allocate, nullptr, nullptr};
  params.allocator = &half;
  EXPECT_NE(churn_check_params(&params), nullptr);
  EXPECT_EQ(churn_check_params(nullptr), std::string("no parameters"));
}

TEST(ChurnTest, AFailedAllocationStopsTheRunAndFreesEverything) {
  CountingAllocator counting;
  counting.fail_after = 5000;
  const churn_allocator hooks = counting.Hooks();
  churn_params params = Params(10000, 1024, 1);
  params.allocator = &hooks;
  EXPECT_EQ(churn_run(&params), CHURN_FAILED);
  EXPECT_EQ(counting.allocations, 5000u);
  EXPECT_TRUE(counting.live.empty());
}

TEST(ChurnTest, ReportsProgressEveryInterval) {
  struct Seen {
    int calls = 0;
    uint64_t last_done = 0;
    uint64_t total = 0;
  } seen;
  churn_params params = Params(2 * CHURN_PROGRESS_INTERVAL + 5, 256, 1);
  params.progress = [](void* context, uint64_t done, uint64_t total) {
    auto* s = static_cast<Seen*>(context);
    ++s->calls;
    s->last_done = done;
    s->total = total;
  };
  params.progress_context = &seen;
  ASSERT_NE(churn_run(&params), CHURN_FAILED);
  EXPECT_EQ(seen.calls, 2);
  EXPECT_EQ(seen.last_done, 2u * CHURN_PROGRESS_INTERVAL);
  EXPECT_EQ(seen.total, params.iterations);
}

}  // namespace
