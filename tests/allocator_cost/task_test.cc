// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The check of lab allocator_cost, written against task.h only. It is linked
// against the reference (solution_test), the starter (starter_test) and the
// known-bad solutions in this folder, which it must reject.
//
// Everything asserted is exact: bytes, allocation counts, page faults.
// Nothing here depends on how fast the machine is, nor on the order the
// tests run in: what depends on the heap's state runs in a fresh process.

#include "labs/allocator_cost/task.h"

#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/alloc_counter.h"
#include "gtest/gtest.h"

namespace allocator_cost {
namespace {

constexpr uint64_t kMaxId = std::numeric_limits<uint64_t>::max();

// The record line as the lab defines it, written independently of the code
// under test.
std::string Expected(uint64_t id) {
  return absl::StrFormat("id=%d name=user%d score=%d", id, id % 1000,
                         static_cast<uint64_t>(id * 7) % 101);
}

std::vector<uint64_t> SampleIds() {
  std::vector<uint64_t> ids = {0,        1,          9,     10,   99,
                               100,      999,        1000,  1001, 4242,
                               1u << 31, kMaxId - 1, kMaxId};
  for (uint64_t id = 12345; id < 12345 + 500; ++id) ids.push_back(id);
  for (uint64_t id = 1; id != 0 && id < kMaxId / 3; id *= 3) ids.push_back(id);
  return ids;
}

class AllocatorCostTest : public testing::Test {
 protected:
  void SetUp() override {
    alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
  }
};

TEST_F(AllocatorCostTest, KnownLines) {
  std::string line;
  FormatRecordInto(0, line);
  EXPECT_EQ(line, "id=0 name=user0 score=0")
      << "FormatRecordInto(0, out) must leave FormatRecordNew(0) in `out`";
  FormatRecordInto(42, line);
  EXPECT_EQ(line, "id=42 name=user42 score=92")
      << "FormatRecordInto must replace the contents of `out` (id 42)";
  FormatRecordInto(kMaxId, line);
  EXPECT_EQ(line, "id=18446744073709551615 name=user615 score=72")
      << "FormatRecordInto must replace the contents of `out` (the largest "
         "id)";
}

TEST_F(AllocatorCostTest, IntoMatchesNewForManyIds) {
  std::string line = "left over from an earlier call, longer than any record";
  for (uint64_t id : SampleIds()) {
    FormatRecordInto(id, line);
    ASSERT_EQ(line, Expected(id))
        << "FormatRecordInto must replace the contents of `out` with "
           "FormatRecordNew(id); id "
        << id;
    ASSERT_EQ(FormatRecordNew(id), Expected(id)) << "id " << id;
  }
}

TEST_F(AllocatorCostTest, SmallNewAllocatesOncePerCall) {
  alloclab::AllocationScope scope;
  for (uint64_t id = 0; id < 1000; ++id) {
    std::string line = FormatRecordNew(id);
    ASSERT_FALSE(line.empty());
  }
  EXPECT_EQ(scope.Count(), 1000u)
      << "the baseline FormatRecordNew() must allocate once per call";
}

TEST_F(AllocatorCostTest, SmallReuseAllocatesNothingOnceWarm) {
  const std::vector<uint64_t> ids = SampleIds();  // allocates: not counted
  std::string line;
  FormatRecordInto(kMaxId, line);  // the longest line warms the buffer
  const uint64_t before = alloclab::ThreadAllocations();
  for (uint64_t id : ids) FormatRecordInto(id, line);
  EXPECT_EQ(alloclab::ThreadAllocations() - before, 0u)
      << "FormatRecordInto allocated although `out` had the capacity";
  EXPECT_EQ(line, Expected(ids.back()))
      << "after the warm calls `out` must hold the last id's line";
}

// task.h: "Must not allocate when `out` already has the capacity for the
// line": the capacity for this id's line, not for the longest one, and given
// by the caller (reserve()) as well as by an earlier call.
TEST_F(AllocatorCostTest, SmallReuseAllocatesNothingAtExactCapacity) {
  for (uint64_t id : SampleIds()) {
    const std::string expected = Expected(id);
    std::string line;
    line.reserve(expected.size());
    const uint64_t before = alloclab::ThreadAllocations();
    FormatRecordInto(id, line);
    const uint64_t allocations = alloclab::ThreadAllocations() - before;
    ASSERT_EQ(allocations, 0u)
        << "FormatRecordInto must not allocate when `out` already has the "
           "capacity for the line; id "
        << id << ", a line of " << expected.size() << " bytes, `out` of "
        << "capacity " << line.capacity();
    ASSERT_EQ(line, expected) << "id " << id;
  }
}

// "The capacity for the line" is a floor: a caller whose string has far
// more room (a buffer reused for long and short lines) is owed no
// allocation either, however large that room.
TEST_F(AllocatorCostTest, SmallReuseAllocatesNothingWithMoreThanTheCapacity) {
  for (size_t capacity :
       {size_t{64}, size_t{1025}, size_t{4096}, size_t{64} << 10}) {
    std::string line;
    line.reserve(capacity);
    const size_t had = line.capacity();
    const uint64_t before = alloclab::ThreadAllocations();
    FormatRecordInto(kMaxId, line);
    const uint64_t allocations = alloclab::ThreadAllocations() - before;
    ASSERT_EQ(allocations, 0u)
        << "FormatRecordInto must not allocate when `out` already has the "
           "capacity for the line; `out` of capacity "
        << had << ", far more than the line's " << Expected(kMaxId).size()
        << " bytes";
    ASSERT_EQ(line, Expected(kMaxId)) << "capacity " << had;
  }
}

// The first call in a thread: allocations, and whether the line is right.
struct FirstCallCount {
  uint64_t allocations = 0;
  bool matches = false;
};

// Makes one FormatRecordInto() call into a string that already has the
// capacity for the line, counting this thread's allocations in it.
FirstCallCount FormatIntoReservedString(uint64_t id) {
  const std::string expected = Expected(id);
  std::string line;
  line.reserve(expected.size());
  const uint64_t before = alloclab::ThreadAllocations();
  FormatRecordInto(id, line);
  return {alloclab::ThreadAllocations() - before, line == expected};
}

// task.h's promise holds on every call, a thread's first one included: a
// thread-local scratch buffer that allocates once per thread breaks it on a
// new thread, however warm the main thread is.
TEST_F(AllocatorCostTest, SmallReuseAllocatesNothingOnANewThreadsFirstCall) {
  FormatIntoReservedString(kMaxId);  // the main thread is warm
  FirstCallCount first;
  std::thread thread([&] { first = FormatIntoReservedString(kMaxId); });
  thread.join();
  EXPECT_EQ(first.allocations, 0u)
      << "FormatRecordInto must not allocate when `out` already has the "
         "capacity for the line: it allocated on a new thread's first call";
  EXPECT_TRUE(first.matches)
      << "on a new thread, FormatRecordInto must replace the contents of "
         "`out` with FormatRecordNew(id)";
}

// The process's first call, on the main thread, in a process of its own: in
// the suite, earlier tests have made their calls already.
void SmallReuseFirstCall(alloclab::FreshCall& call) {
  alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
  const FirstCallCount first = FormatIntoReservedString(kMaxId);
  call.Record("allocations", static_cast<double>(first.allocations));
  call.Record("matches", first.matches ? 1 : 0);
}
ALLOCLAB_FRESH_CALL("allocator_cost_small_reuse_first", SmallReuseFirstCall);

TEST_F(AllocatorCostTest, SmallReuseAllocatesNothingOnTheProcessesFirstCall) {
  absl::StatusOr<alloclab::FreshCallResult> fresh =
      alloclab::RunFreshCall("allocator_cost_small_reuse_first");
  ASSERT_TRUE(fresh.ok()) << "the fresh process of the first call failed: "
                          << fresh.status();
  EXPECT_EQ(fresh->values["allocations"], 0)
      << "FormatRecordInto must not allocate when `out` already has the "
         "capacity for the line: it allocated on the first call of a fresh "
         "process";
  EXPECT_EQ(fresh->values["matches"], 1)
      << "FormatRecordInto must replace the contents of `out` with "
         "FormatRecordNew(id)";
}

TEST_F(AllocatorCostTest, LargeNewAllocatesOncePerCall) {
  alloclab::AllocationScope scope;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::vector<uint8_t> block = FillBlockNew(seed);
    ASSERT_EQ(block.size(), kBlockBytes)
        << "FillBlockNew() must return kBlockBytes bytes";
  }
  EXPECT_EQ(scope.Count(), 20u)
      << "the baseline FillBlockNew() must allocate once per call";
}

TEST_F(AllocatorCostTest, LargeIntoMatchesNew) {
  std::vector<uint8_t> block(12, 0xAB);  // wrong size and content to start
  for (uint64_t seed : std::vector<uint64_t>{0, 1, 77, kMaxId}) {
    FillBlockInto(seed, block);
    ASSERT_TRUE(block == FillBlockNew(seed))
        << "FillBlockInto must make `out` hold exactly FillBlockNew(seed); "
           "seed "
        << seed << ", size " << block.size();
  }
}

// task.h: "Makes `out` hold exactly FillBlockNew(seed)": a vector larger
// than a block, or holding more than one, ends the call at one block.
TEST_F(AllocatorCostTest, LargeIntoShrinksALargerVectorToOneBlock) {
  for (size_t start : {kBlockBytes + 1, 2 * kBlockBytes}) {
    std::vector<uint8_t> block(start, 0xCD);
    FillBlockInto(3, block);
    EXPECT_EQ(block.size(), kBlockBytes)
        << "FillBlockInto must make `out` hold exactly FillBlockNew(seed) ("
        << kBlockBytes << " bytes); a vector of " << start
        << " bytes kept size " << block.size();
    EXPECT_TRUE(block == FillBlockNew(3))
        << "after FillBlockInto(3, out) on a vector of " << start
        << " bytes, `out` is not FillBlockNew(3)";
  }
}

// task.h: "whatever its size before, larger ones included" and "must not
// allocate ... when `out` already held a block": a vector that held more
// than a block held one.
TEST_F(AllocatorCostTest, LargeReuseAllocatesNothingInALargerVector) {
  for (size_t start : {kBlockBytes + 1, 2 * kBlockBytes, 4 * kBlockBytes}) {
    std::vector<uint8_t> block(start, 0xCD);
    const uint64_t before = alloclab::ThreadAllocations();
    FillBlockInto(4, block);
    EXPECT_EQ(alloclab::ThreadAllocations() - before, 0u)
        << "FillBlockInto must not allocate when `out` already held a block; "
           "a vector of "
        << start << " bytes (more than a block, " << kBlockBytes
        << ") allocated again";
    EXPECT_TRUE(block == FillBlockNew(4))
        << "a vector of " << start << " bytes";
  }
}

TEST_F(AllocatorCostTest, LargeReuseAllocatesNothingOnceWarm) {
  std::vector<uint8_t> block;
  FillBlockInto(0, block);
  const uint64_t before = alloclab::ThreadAllocations();
  for (uint64_t seed = 1; seed <= 20; ++seed) FillBlockInto(seed, block);
  EXPECT_EQ(alloclab::ThreadAllocations() - before, 0u)
      << "FillBlockInto allocated in 20 calls although `out` already held a "
         "block";
}

// Makes one FillBlockInto() call into a vector that already held a block,
// one of FillBlockNew()'s, counting this thread's allocations in it.
FirstCallCount FillIntoHeldBlock(uint64_t seed) {
  std::vector<uint8_t> block = FillBlockNew(seed + 1);
  const uint64_t before = alloclab::ThreadAllocations();
  FillBlockInto(seed, block);
  return {alloclab::ThreadAllocations() - before, block == FillBlockNew(seed)};
}

// task.h: "Must not allocate ... when `out` already held a block": whatever
// filled it, and on a thread's first call too.
TEST_F(AllocatorCostTest, LargeReuseAllocatesNothingOnANewThreadsFirstCall) {
  const FirstCallCount main_first = FillIntoHeldBlock(5);
  EXPECT_EQ(main_first.allocations, 0u)
      << "FillBlockInto must not allocate when `out` already held a block "
         "(one of FillBlockNew()'s)";
  FirstCallCount first;
  std::thread thread([&] { first = FillIntoHeldBlock(6); });
  thread.join();
  EXPECT_EQ(first.allocations, 0u)
      << "FillBlockInto must not allocate when `out` already held a block: "
         "it allocated on a new thread's first call";
  EXPECT_TRUE(first.matches)
      << "on a new thread, FillBlockInto must make `out` hold exactly "
         "FillBlockNew(seed)";
}

// The process's first FillBlockInto(), into FillBlockNew()'s block, in a
// process of its own (what faults depends on the heap's history).
void LargeReuseFirstCall(alloclab::FreshCall& call) {
  alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
  std::vector<uint8_t> block = FillBlockNew(1);
  uint64_t allocations = 0;
  call.Measure("first", [&] {
    const uint64_t before = alloclab::ThreadAllocations();
    FillBlockInto(2, block);
    allocations = alloclab::ThreadAllocations() - before;
  });
  call.Record("allocations", static_cast<double>(allocations));
  call.Record("bytes_match", block == FillBlockNew(2) ? 1 : 0);
}
ALLOCLAB_FRESH_CALL("allocator_cost_large_reuse_first", LargeReuseFirstCall);

TEST_F(AllocatorCostTest, LargeReuseFirstCallTouchesNoNewPage) {
  absl::StatusOr<alloclab::FreshCallResult> fresh =
      alloclab::RunFreshCall("allocator_cost_large_reuse_first");
  ASSERT_TRUE(fresh.ok()) << "the fresh process of the first call failed: "
                          << fresh.status();
  EXPECT_EQ(fresh->values["allocations"], 0)
      << "FillBlockInto must not allocate when `out` already held a block: "
         "it allocated on the first call of a fresh process";
#if !defined(__SANITIZE_THREAD__)  // its buffers fault as the program runs
  EXPECT_EQ(fresh->values["first_minor_faults"], 0)
      << "FillBlockInto must not fault in a new page when `out` already "
         "held a block: page faults in the first call of a fresh process "
         "(getrusage(RUSAGE_THREAD))";
#endif
  EXPECT_EQ(fresh->values["bytes_match"], 1)
      << "FillBlockInto must make `out` hold exactly FillBlockNew(seed)";
}

// Ten warm calls after two that set the block up, in a program of their own:
// whether they fault depends on glibc's mmap threshold, which every earlier
// 256 KiB free in the process raises. In a fresh process the verdict is the
// same whatever ran before (alone, in the suite, shuffled).
void LargeReuseWarmCalls(alloclab::FreshCall& call) {
  std::vector<uint8_t> block;
  FillBlockInto(0, block);
  FillBlockInto(1, block);
  call.Measure("warm", [&] {
    for (uint64_t seed = 2; seed < 12; ++seed) FillBlockInto(seed, block);
  });
  call.Record("bytes_match", block == FillBlockNew(11) ? 1 : 0);
}
ALLOCLAB_FRESH_CALL("allocator_cost_large_reuse_warm", LargeReuseWarmCalls);

TEST_F(AllocatorCostTest, LargeReuseTouchesNoNewPageOnceWarm) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer's own buffers take page faults as the "
                  "program runs (over a hundred in these ten calls): a count "
                  "of faults says nothing about the code here";
#endif
  absl::StatusOr<alloclab::FreshCallResult> fresh =
      alloclab::RunFreshCall("allocator_cost_large_reuse_warm");
  ASSERT_TRUE(fresh.ok()) << "the fresh process of the warm calls failed: "
                          << fresh.status();
  EXPECT_EQ(fresh->values["warm_minor_faults"], 0)
      << "page faults in 10 warm calls in a fresh process "
         "(getrusage(RUSAGE_THREAD))";
  EXPECT_EQ(fresh->values["bytes_match"], 1)
      << "after 12 calls the block is not FillBlockNew(11)";
}

}  // namespace
}  // namespace allocator_cost
