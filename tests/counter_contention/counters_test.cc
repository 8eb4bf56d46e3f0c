// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The experiment's slot tables (labs/counter_contention/counters.h), kPacked
// and kPadded, given threads whose first count comes late: in a pthread key's
// destructor, after the thread's thread_locals' destructors have run. Each
// such thread takes a slot; it must give it back as it exits, or the table
// fills with slots of threads long gone and every thread after counts in the
// shared overflow atomic. Counts and addresses only.

#include "labs/counter_contention/counters.h"

#include <pthread.h>

#include <cstdint>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace counter_contention {
namespace {

// More late threads than a table has slots.
constexpr int kLateThreads = kMaxSlots + 44;

struct Table {
  const char* name;
  const alloclab::AllocationCounter* counter;
  const void* (*slot)();
};

class LateFirstCountTest : public testing::TestWithParam<Table> {};

// The key destructor of a late thread: its only count.
void CountInTable(void* table) {
  static_cast<const Table*>(table)->counter->count();
}

TEST_P(LateFirstCountTest, GivesItsSlotBack) {
  const Table& table = GetParam();
  pthread_key_t key;
  ASSERT_EQ(pthread_key_create(&key, &CountInTable), 0);
  const uint64_t before = table.counter->total();
  for (int t = 0; t < kLateThreads; ++t) {
    std::thread([&] {
      pthread_setspecific(key, const_cast<Table*>(&table));
    }).join();
  }
  pthread_key_delete(key);
  EXPECT_EQ(table.counter->total() - before, uint64_t{kLateThreads})
      << table.name << ": every count kept, also a thread's first, made in "
      << "a pthread key's destructor as it exits";
  // Every slot free again: kMaxSlots live threads have one each.
  std::vector<const void*> slots(kMaxSlots);
  std::latch taken(kMaxSlots);
  std::vector<std::thread> live;
  for (int t = 0; t < kMaxSlots; ++t) {
    live.emplace_back([&, t] {
      slots[static_cast<size_t>(t)] = table.slot();
      taken.arrive_and_wait();  // all alive while slots are taken
    });
  }
  for (std::thread& t : live) t.join();
  const std::set<const void*> distinct(slots.begin(), slots.end());
  EXPECT_EQ(distinct.size(), slots.size())
      << table.name << ": after " << kLateThreads << " threads whose only "
      << "count was made in a pthread key's destructor exited, " << kMaxSlots
      << " live threads found only " << distinct.size()
      << " distinct slots (the rest in the overflow atomic): the late "
      << "threads' slots were never given back";
}

INSTANTIATE_TEST_SUITE_P(
    Tables, LateFirstCountTest,
    testing::Values(Table{"kPacked", &kPacked, &PackedSlot},
                    Table{"kPadded", &kPadded, &PaddedSlot}),
    [](const testing::TestParamInfo<Table>& info) {
      return std::string(info.param.name + 1);  // Packed, Padded
    });

}  // namespace
}  // namespace counter_contention
