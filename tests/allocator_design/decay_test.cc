// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Promise 2 of lab allocator_design (task.h): idle memory goes back.
// Fixed scenarios on the page source's fake clock (one thread, several,
// a thread that only frees, one whose checking calls free other threads'
// blocks, blocks of a thread that exited before their free, one that exits
// late, frees while another thread maps, many threads that call after the
// decay and run on, threads that run on without calling, waves, steps, a
// thread's own cache at its fullest, many large blocks) and the explorer's
// random schedules around kDecayNs.
//
// Part of the suite of task_test.cc (whose header says how it is run: in
// fresh processes, on the page source's fake clock, never the wall clock);
// what the files share is suite_support.h. Every failure message quotes
// the rule of task.h it checks.

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/syscalls.h"
#include "common/machine/cpu_facts.h"
#include "common/testing/scoped_env.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/lock_testing.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/traces.h"
#include "tests/allocator_design/run_fresh.h"
#include "tests/allocator_design/suite_support.h"

namespace allocator_design::suite {
namespace {

// ---------------------------------------------------------------------------
// Design, promise 2: idle memory goes back.
// ---------------------------------------------------------------------------

// Allocates at least `total` bytes of mixed sizes, touching each page,
// and frees them all (in another order than allocated).
void AllocateAndFreeMixed(size_t total, uint64_t seed) {
  Rng rng(seed);
  std::vector<Block> blocks;
  size_t sum = 0;
  const size_t page = PageSize();
  while (sum < total) {
    const size_t size = MixedSize(rng);
    void* p = Allocate(size, 1, false);
    if (p == nullptr) break;
    for (size_t i = 0; i < size; i += page) static_cast<char*>(p)[i] = 1;
    blocks.push_back({p, size, 0});
    sum += size;
  }
  for (size_t i = 0; i < blocks.size(); i += 2) Free(blocks[i].p);
  for (size_t i = 1; i < blocks.size(); i += 2) Free(blocks[i].p);
}

void DecayCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  std::thread t([] { AllocateAndFreeMixed(64 * kMiB, 2); });
  t.join();
  call.Record("held_before", ReadCounters().bytes_held);
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  call.Record("held_after", ReadCounters().bytes_held);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay", DecayCall);

// The other side of "the thread that next makes kDecayCheckOps calls": the
// thread that freed everything goes on living, and its next calls are
// allocations alone (it builds something new). Whatever its own cache and
// the central pool hold must go back all the same: the calls that count
// are any calls, and a thread's cache is held memory too. Its checking
// blocks, kDecayCheckOps of 64 bytes, are live when the bytes held are read.
void DecayOnAllocationsCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  AllocateAndFreeMixed(64 * kMiB, 2);
  call.Record("held_before", ReadCounters().bytes_held);
  clock.Advance(2 * kDecayNs);
  std::vector<void*> blocks(kDecayCheckOps);
  for (void*& p : blocks) p = Allocate(64, 1, false);
  call.Record("held_after", ReadCounters().bytes_held);
  for (void* p : blocks) Free(p);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_on_allocations",
                    DecayOnAllocationsCall);

TEST(DesignDecay, IdleMemoryGoesBackAfterTheDecay) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread allocated and freed 64 MiB and exited; "
      << "held " << r->values["held_before"] << " bytes then, and "
      << r->values["held_after"] << " after 2 * kDecayNs and " << kDecayCheckOps
      << " malloc/free pairs (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

TEST(DesignDecay, IdleMemoryGoesBackWhenTheSameThreadOnlyAllocates) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_on_allocations");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread allocated and freed 64 MiB; held "
      << r->values["held_before"] << " bytes then, and "
      << r->values["held_after"] << " after 2 * kDecayNs and its next "
      << kDecayCheckOps << " calls, each an Allocate(64) (the same thread, "
      << "still running; kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// The same thread, its checking calls allocations alone, past a design's
// own look at what it holds: first it leaves spares in many classes (about
// kSparesBytesPerSize of blocks of each size from kSparesFirstSize to
// kSparesLastSize a quarter apart, allocated, every byte written, and
// freed), then makes pairs of 64 bytes enough for two ticks (kDecayCheckOps
// calls each: the classes it left are idle for any sweep of its own), and
// kDecayNs after the frees its checking calls first allocate kSparesNewBlocks
// blocks of kSparesNewSize, a size it has not used (more than 1 MiB of spans:
// enough to make a design that sweeps the classes a thread has left sweep them
// then), then blocks of 64 bytes, all kept live. Idle time counts from the
// free, however often the thread looked at the clock: a sweep that stamps what
// it gives back idle from then, not from when it was freed, keeps it all past
// the checking calls (review rv8's rv8_owned_pages_scavenge_stamped_now: 15.3
// MB held). Records "held_before" (the spares' blocks live) and "held_after"
// (held.h's judged count).
constexpr size_t kSparesFirstSize = 8 * kKiB;
constexpr size_t kSparesLastSize = 128 * kKiB;
constexpr size_t kSparesBytesPerSize = kMiB;
constexpr size_t kSparesNewSize = 200 * kKiB;
constexpr int kSparesNewBlocks = 8;

void DecayAfterSparesCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  bool failed = false;
  std::thread t([&] {
    std::vector<void*> blocks;
    // The sizes a quarter apart, 8 KiB to 128 KiB.
    for (size_t size = kSparesFirstSize; size <= kSparesLastSize;
         size += size / 4) {
      for (size_t got = 0; got < kSparesBytesPerSize; got += size) {
        void* p = Allocate(size, 16, false);
        if (p == nullptr) {
          failed = true;
          continue;
        }
        memset(p, 0x5a, size);
        blocks.push_back(p);
      }
    }
    call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
    for (void* p : blocks) Free(p);
    blocks.clear();
    for (uint64_t i = 0; i < kDecayCheckOps + kDecayCheckOps / 8; ++i) {
      Free(Allocate(64, 16, false));
    }
    clock.Advance(kDecayNs);
    for (int i = 0; i < kSparesNewBlocks; ++i) {
      blocks.push_back(Allocate(kSparesNewSize, 16, false));
    }
    for (uint64_t i = kSparesNewBlocks; i < kDecayCheckOps; ++i) {
      blocks.push_back(Allocate(64, 16, false));
    }
    call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
    for (void* p : blocks) {
      if (p == nullptr) failed = true;
      Free(p);
    }
  });
  t.join();
  call.Record("failed", failed ? 1 : 0);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_after_spares",
                    DecayAfterSparesCall);

TEST(DesignDecay, IdleSparesGoBackWhenTheSameThreadsCheckingCallsTakeANewSize) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_after_spares");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["failed"], 0)
      << "task.h, Allocate(): nullptr only when the page source refuses, or "
         "the size is so large that rounding it up would overflow";
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << " (idle time counts from the free, however often the "
      << "thread looked at the clock): a thread allocated about "
      << kSparesBytesPerSize << " bytes of blocks of each size from "
      << kSparesFirstSize << " to " << kSparesLastSize
      << " a quarter apart, every byte written (" << r->values["held_before"]
      << " bytes held then), freed them all, and ran on: "
      << kDecayCheckOps + kDecayCheckOps / 8
      << " Allocate(64)/Free() pairs, then kDecayNs after the frees its next "
      << kDecayCheckOps << " calls allocated " << kSparesNewBlocks
      << " blocks of " << kSparesNewSize << " bytes (a size it had not used) "
      << "and then blocks of 64 bytes, all kept live; held.h judged "
      << r->values["held_after"]
      << " bytes held after them (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// memory freed at the start has been idle for 2 * kDecayNs at the end, however
// often the thread looked at the clock in between. A design that counts a
// cache's idle time from its last look at the clock, not from when its
// blocks were freed, keeps them for as long as the thread keeps calling.
void DecayInStepsCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  AllocateAndFreeMixed(64 * kMiB, 2);
  call.Record("held_before", ReadCounters().bytes_held);
  for (int step = 0; step < 8; ++step) {
    clock.Advance(kDecayNs / 4);
    for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  }
  call.Record("held_after", ReadCounters().bytes_held);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_in_steps", DecayInStepsCall);

TEST(DesignDecay, IdleMemoryGoesBackWhileTheClockMovesInSteps) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_in_steps");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread allocated and freed 64 MiB ("
      << r->values["held_before"] << " bytes held then), and ran on: eight "
      << "times kDecayNs / 4 passed and it made " << kDecayCheckOps
      << " malloc/free pairs of 64 bytes; " << r->values["held_after"]
      << " bytes were held after 2 * kDecayNs (kIdleHeldBytes = "
      << kIdleHeldBytes << ")";
}

// Promise 2 for a thread's own cache at its fullest, the thread running on
// and looking at the clock often. The thread keeps using every class from
// 4 KiB to 256 KiB, in kOwnCacheRounds rounds: in each, for every class in
// turn (EdgeSizes()' class edges there, the quarter steps), it allocates a
// group of kOwnCacheGroupBytes of blocks of that size and frees it, and
// then it makes a pair of 64 bytes, the size of its checking calls. A
// design whose thread cache keeps the classes its thread allocates from
// keeps them all, more than kIdleHeldBytes of them (what the allocator may
// keep for a thread that cycles through many sizes, promise 1). Then the
// clock moves in kOwnCacheSteps steps of kDecayNs / 8, to past kDecayNs
// after the frees, the thread making kDecayCheckOps calls (pairs of 64
// bytes) after each: its looks at the clock come kDecayNs / 8 apart. Idle
// time counts from the free: a design that re-stamps the cache at each look
// never gives it back. Records "held_before" (the cache full) and
// "held_after" (held.h's judged count).
constexpr int kOwnCacheRounds = 4;
constexpr size_t kOwnCacheGroupBytes = 2 * kMiB;
constexpr int kOwnCacheSteps = 9;
static_assert(kOwnCacheSteps * (kDecayNs / 8) > kDecayNs,
              "the last checking calls come past kDecayNs after the frees");

// OwnCacheSizes()
//
// The class edges from 4 KiB to 256 KiB: EdgeSizes()' multiples of 1 KiB
// there.
std::vector<size_t> OwnCacheSizes() {
  std::vector<size_t> sizes;
  for (size_t size : EdgeSizes(256 * kKiB)) {
    if (size >= 4 * kKiB && size % kKiB == 0) sizes.push_back(size);
  }
  return sizes;
}

void DecayOwnCacheInStepsCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  int failed = 0;
  for (int round = 0; round < kOwnCacheRounds; ++round) {
    for (size_t size : OwnCacheSizes()) {
      std::vector<void*> group((kOwnCacheGroupBytes + size - 1) / size);
      for (void*& p : group) {
        p = Allocate(size, 1, false);
        if (p == nullptr) ++failed;
      }
      for (void* p : group) Free(p);
    }
    Free(Allocate(64, 1, false));
  }
  call.Record("failed", failed);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  for (int step = 0; step < kOwnCacheSteps; ++step) {
    clock.Advance(kDecayNs / 8);
    for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
      Free(Allocate(64, 1, false));
    }
  }
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_own_cache_in_steps",
                    DecayOwnCacheInStepsCall);

TEST(DesignDecay, AThreadsOwnCacheGoesBackWhileItKeepsLookingAtTheClock) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_own_cache_in_steps");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ", whether the thread that freed the blocks runs on "
      << "(is itself the one that makes those calls), however often it "
      << "looked at the clock in between: idle time counts from the free. "
      << "A thread used every class from 4 KiB to 256 KiB, " << kOwnCacheRounds
      << " times in turn a group of " << kOwnCacheGroupBytes
      << " bytes of blocks of each size allocated "
      << "and freed (" << static_cast<int64_t>(r->values["held_before"])
      << " bytes held then), and ran on: " << kOwnCacheSteps
      << " times kDecayNs / 8 passed and it made " << kDecayCheckOps
      << " calls after each, Allocate(64) and Free() in pairs; "
      << static_cast<int64_t>(r->values["held_after"])
      << " bytes were held after the last, " << kOwnCacheSteps
      << " x kDecayNs / 8 after the frees, by the largest of the suite's "
      << "three counts (kIdleHeldBytes = " << kIdleHeldBytes << ")";
  for (const char* count : {"held_before", "held_after"}) {
    ::testing::Test::RecordProperty(count,
                                    static_cast<int64_t>(r->values[count]));
  }
}

// Promise 2 with the frees in two waves, kDecayNs / 2 apart: a decay that
// comes when the first wave is due gives it back and must still remember
// when the second is due. A design that forgets (nothing more is due until
// the next free) keeps the second wave for as long as nothing is freed.
void DecayTwoWavesCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  constexpr int kWaveBlocks = 1024;  // 16 MiB of 16 KiB blocks a wave
  std::vector<void*> blocks(2 * kWaveBlocks);
  std::vector<void*> first_check(kDecayCheckOps), second_check(kDecayCheckOps);
  for (void*& p : blocks) p = Allocate(16 * kKiB, 1, false);
  for (int i = 0; i < kWaveBlocks; ++i) Free(blocks[i]);
  clock.Advance(kDecayNs / 2);
  for (int i = kWaveBlocks; i < 2 * kWaveBlocks; ++i) Free(blocks[i]);
  call.Record("held_before", ReadCounters().bytes_held);
  // The first wave is due, the second not yet: allocations only, so that no
  // free can remind a forgetful design of the second.
  clock.Advance(kDecayNs / 2 + kDecayNs / 4);
  for (void*& p : first_check) p = Allocate(64, 1, false);
  call.Record("held_between", ReadCounters().bytes_held);
  clock.Advance(kDecayNs);
  for (void*& p : second_check) p = Allocate(64, 1, false);
  call.Record("held_after", ReadCounters().bytes_held);
  for (void* p : first_check) Free(p);
  for (void* p : second_check) Free(p);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_two_waves", DecayTwoWavesCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenItWasFreedInTwoWaves) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_two_waves");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread freed 16 MiB, kDecayNs / 2 later another "
      << "16 MiB (" << r->values["held_before"] << " bytes held then), and "
      << "ran on, allocating only: " << kDecayCheckOps << " calls when the "
      << "first wave was due (" << r->values["held_between"] << " bytes held), "
      << kDecayCheckOps << " more kDecayNs later, when "
      << "both were: " << r->values["held_after"] << " bytes held "
      << "(kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Promise 2 for blocks freed by threads that only free: this thread
// allocates, 16 others each free a share of the blocks and exit without
// one Allocate() of their own. Whatever they kept must go back too.
void DecayFreeOnlyCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  constexpr int kThreads = 16;
  Rng rng(16);
  std::vector<std::vector<void*>> shares(kThreads);
  for (int i = 0; i < 4000; ++i) {
    void* p = Allocate(MixedSize(rng) % (256 * kKiB) + 1, 1, false);
    if (p != nullptr) shares[i % kThreads].push_back(p);
  }
  RunThreadsInWaves(kThreads, 4, [&](int t) {
    for (void* p : shares[t]) Free(p);
  });
  call.Record("held_before", ReadCounters().bytes_held);
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  call.Record("held_after", ReadCounters().bytes_held);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_free_only", DecayFreeOnlyCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenTheFreeingThreadsOnlyFreed) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_free_only");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ", whether the thread that freed the blocks has "
      << "exited or runs on: this thread allocated 4000 blocks of up to "
      << "256 KiB, 16 threads that never allocated freed them and exited ("
      << r->values["held_before"] << " bytes held then); "
      << r->values["held_after"] << " after 2 * kDecayNs and " << kDecayCheckOps
      << " malloc/free pairs (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Promise 2 for blocks whose thread exited before they were freed: thread A
// allocates 16 MiB of 64-byte blocks and exits with all of them live. A
// quarter of kDecayNs later this thread makes kDecayCheckOps calls (pairs
// of 128 bytes: it looks at the clock after A's exit, before the frees),
// then frees A's blocks, and kDecayNs after those frees makes
// kDecayCheckOps allocations of 128 bytes. Idle time counts from the free:
// not from a look at the clock after it. Records "held_before" and
// "held_after" (held.h's judged count).
void DecayExitedOwnerCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  std::vector<void*> wave(size_t{16} * kMiB / 64);
  std::thread([&] {
    for (void*& p : wave) p = Allocate(64, 1, false);
  }).join();
  clock.Advance(kDecayNs / 4);
  for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
    Free(Allocate(128, 1, false));
  }
  for (void* p : wave) Free(p);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  std::vector<void*> checking(kDecayCheckOps);
  for (void*& p : checking) p = Allocate(128, 1, false);
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  for (void* p : checking) Free(p);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_exited_owner",
                    DecayExitedOwnerCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenItsThreadExitedBeforeTheFree) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_exited_owner");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ", idle time counting from the free: a thread "
      << "allocated 16 MiB of 64-byte blocks and exited; kDecayNs / 4 later "
      << "this thread made " << kDecayCheckOps << " calls, then freed the "
      << "blocks (" << r->values["held_before"] << " bytes held then), and "
      << "kDecayNs after those frees made " << kDecayCheckOps
      << " allocations: " << r->values["held_after"] << " bytes held "
      << "(kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Promise 2 for blocks of a thread that exited, while other threads keep
// exiting: eight threads each allocate and free a 48-byte block and wait;
// thread A allocates 16 MiB of 64-byte blocks and exits with them live;
// this thread frees them, and every block is free. Then, eight times,
// kDecayNs / 4 passes, one of the waiting threads exits (no call of its
// own since the frees) and this thread makes kDecayCheckOps calls (pairs of
// 128 bytes). An exit is no reason to keep what an exited thread left: a
// design that puts its next look at that memory off at each exit never
// looks while threads come and go. Records "held_before" and "held_after"
// (held.h's judged count).
constexpr int kLateExits = 8;

void DecayWhileThreadsExitCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  std::atomic<int> ready{0};
  std::atomic<int> may_exit{0};
  std::vector<std::thread> waiting;
  for (int t = 0; t < kLateExits; ++t) {
    waiting.emplace_back([&, t] {
      Free(Allocate(48, 1, false));
      ready.fetch_add(1);
      while (may_exit.load() <= t) sched_yield();
    });
  }
  while (ready.load() != kLateExits) sched_yield();
  std::vector<void*> wave(size_t{16} * kMiB / 64);
  std::thread([&] {
    for (void*& p : wave) p = Allocate(64, 1, false);
  }).join();
  for (void* p : wave) Free(p);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  for (int round = 0; round < kLateExits; ++round) {
    clock.Advance(kDecayNs / 4);
    may_exit.store(round + 1);
    waiting[round].join();
    for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
      Free(Allocate(128, 1, false));
    }
  }
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_while_threads_exit",
                    DecayWhileThreadsExitCall);

TEST(DesignDecay, IdleMemoryGoesBackWhileOtherThreadsKeepExiting) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_while_threads_exit");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ", whether the thread that allocated the blocks has "
      << "exited or runs on: a thread allocated 16 MiB of 64-byte blocks and "
      << "exited, this thread freed them (" << r->values["held_before"]
      << " bytes held then); every kDecayNs / 4 for 2 * kDecayNs another "
      << "thread exited and this thread made " << kDecayCheckOps
      << " calls: " << r->values["held_after"] << " bytes held "
      << "(kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Promise 2 when the thread that next makes kDecayCheckOps calls only frees,
// and frees only blocks other threads allocated. Thread A allocates 16 MiB
// of 64-byte blocks and exits; this thread, which never allocates, frees
// them. Once kDecayNs has passed, two threads that each made a pair of
// calls before it all (their first, when a thread may look at the clock)
// allocate kDecayCheckOps / 2 blocks of 16 bytes each, one at a time, and
// this thread frees each as soon as it is had: its kDecayCheckOps frees are
// the first kDecayCheckOps calls of any thread since every block was freed
// and kDecayNs passed ("any calls": a free into another thread's memory is
// a call as much as one into its own). Then the two exit.
// Records "held_before" and "held_after" (held.h's judged count).
void DecayRemoteFreesCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  ScheduledThread first, second;
  for (ScheduledThread* t : {&first, &second}) {
    t->Run([] { Free(Allocate(16, 1, false)); });
  }
  std::vector<void*> wave(size_t{16} * kMiB / 64);
  std::thread([&] {
    for (void*& p : wave) p = Allocate(64, 1, false);
  }).join();
  for (void* p : wave) Free(p);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
    void* p = nullptr;
    (i < kDecayCheckOps / 2 ? first : second).Run([&] {
      p = Allocate(16, 1, false);
    });
    Free(p);
  }
  first.Exit();
  second.Exit();
  const HeldNow after = ReadHeldNow();
  call.Record("held_after", static_cast<double>(after.judged));
  call.Record("counted_after", static_cast<double>(after.counted));
  call.Record("mapped_left_after", static_cast<double>(after.mapped_left));
  call.Record("resident_after",
              static_cast<double>(after.resident.value_or(0)));
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_remote_frees",
                    DecayRemoteFreesCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenTheCheckingCallsFreeOthersBlocks) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_remote_frees");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << " (any calls), whether it only freed: a thread "
      << "allocated 16 MiB of 64-byte blocks and exited, this thread freed "
      << "them (" << r->values["held_before"] << " bytes held then); "
      << "kDecayNs later two threads allocated " << kDecayCheckOps / 2
      << " blocks of 16 bytes each, one at a time, and this thread freed "
      << "each of those " << kDecayCheckOps << " at once, its only calls "
      << "since; the two exited: " << r->values["held_after"]
      << " bytes held (counted " << r->values["counted_after"]
      << ", mapped and not given back " << r->values["mapped_left_after"]
      << ", resident " << r->values["resident_after"]
      << "; kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Promise 2 with two threads that run on, when one freed while another
// mapped. Thread B allocates kMapRaceBlocks blocks of kMapRaceBytes;
// thread A allocates one more with the page source's map gate closed, and
// while A waits there (inside the page source: no lock held), B frees all
// of its blocks; then the gate opens, A exits, and this thread frees A's
// block. A design that decided what to carve before letting go of its lock
// for the map finds B's memory free when it comes back, and must keep its
// books right for both: what it mapped and what B gave back. kDecayNs after
// the frees, B, the thread that freed and runs on, makes kDecayCheckOps
// calls (pairs of 64 bytes): everything goes back but what this thread's
// one free may keep. (A design that needs no map for A's block has no race
// here, and the same promise to keep.)
// Records "parked", "stopped" (B's frees had not ended kStoppedBound after
// they began), "held_before" and "held_after" (held.h's judged count).
constexpr int kMapRaceBlocks = 64;
constexpr size_t kMapRaceBytes = 256 * kKiB;

void DecayFreesDuringAMapCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  ScheduledThread a, b;
  std::vector<void*> blocks(kMapRaceBlocks);
  b.Run([&] {
    for (void*& p : blocks) p = Allocate(kMapRaceBytes, 1, false);
  });
  void* mapped = nullptr;
  internal::CloseMapGate();
  a.Start([&] { mapped = Allocate(kMapRaceBytes, 1, false); });
  WaitUntil([&] { return internal::ParkedAtMapGate() || a.Done(); });
  const bool parked = internal::ParkedAtMapGate();
  if (!parked) internal::OpenMapGate();  // B's frees must not stop there
  b.Start([&] {
    for (void* p : blocks) Free(p);
  });
  call.Record("parked", parked ? 1 : 0);
  call.Record("stopped", WaitUntil([&] { return b.Done(); }) ? 0 : 1);
  internal::OpenMapGate();
  a.Wait();
  b.Wait();
  a.Exit();
  Free(mapped);
  call.Record("failed", mapped == nullptr ? 1 : 0);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  b.Run([] {
    for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
      Free(Allocate(64, 1, false));
    }
  });
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_frees_during_a_map",
                    DecayFreesDuringAMapCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenAThreadFreedWhileAnotherMapped) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_frees_during_a_map");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["stopped"], 0)
      << kRuleNotStopped << ": thread B's frees did not end while thread A "
      << "waited inside the page source's map";
  EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ", whether the thread that freed the blocks runs on: "
      << "thread B allocated " << kMapRaceBlocks << " blocks of "
      << kMapRaceBytes << " bytes; thread A allocated one more, and "
      << (r->values["parked"] != 0
              ? "while it waited inside the page source's map"
              : "then (it needed no map)")
      << " B freed all of its blocks; A exited, and another thread freed "
      << "A's block (" << static_cast<int64_t>(r->values["held_before"])
      << " bytes held then). kDecayNs later B made " << kDecayCheckOps
      << " calls, Allocate(64) and Free() in pairs: "
      << static_cast<int64_t>(r->values["held_after"])
      << " bytes held (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Promise 2 for several threads that run on and call after the decay.
// kRunOnThreads threads each leave memory idle in one of two shapes (the
// fresh call's argument) and stay alive:
//   "every_class"  every class from 4 KiB to 256 KiB (OwnCacheSizes()): a
//                  group of kRunOnGroupBytes of blocks of each size,
//                  allocated and freed;
//   "spread"       kRunOnSpreadRounds times, kRunOnSpreadBytes of blocks of
//                  4 KiB and of 5 KiB, allocated and freed with every
//                  kRunOnSpreadStride-th block last: what a thread's cache
//                  keeps of them is a few blocks spread over all that
//                  memory, each keeping its span or region from going back.
// kDecayNs passes. Thread 0 makes its kDecayCheckOps calls until it stops
// inside the page source (its decay's first unmap or release, the page
// source's table observer), and the other threads, one after another, make
// all of theirs meanwhile; then thread 0 goes on. Each thread's calls are
// pairs of a size of its own (kRunOnCheckSizes, in turn). k =
// kRunOnThreads threads made their calls: kIdleHeldBytes + (k - 1) x
// kIdleThreadBytes may stay held. A thread whose calls never reach the page
// source does not stop, and the others call after it; one that holds a lock
// there goes on once another's calls have waited kStoppedBound. Records
// "parked", "held_before" and "held_after" (held.h's judged count), and
// "failed".
constexpr int kRunOnThreads = 16;
constexpr size_t kRunOnGroupBytes = kMiB;
constexpr int kRunOnSpreadRounds = 4;
constexpr size_t kRunOnSpreadBytes = 6 * kMiB;
constexpr size_t kRunOnSpreadStride = 16;
constexpr size_t kRunOnCheckSizes[] = {
    16, 64, 1000, 4 * kKiB, 16 * kKiB, 64 * kKiB, 256 * kKiB, 100'000};

// 0: off; 1: the next table step of the thread that `stops_in_page_source`
// stops there; 2: a thread stopped; 3: let go.
constinit std::atomic<int> run_on_state{0};
thread_local bool stops_in_page_source = false;

void StopInPageSource(internal::TableStep, int) {
  if (!stops_in_page_source) return;
  int armed = 1;
  if (!run_on_state.compare_exchange_strong(armed, 2)) return;
  while (run_on_state.load() != 3) sched_yield();
}

// Blocks of `size`, `bytes` of them, allocated and freed, every `stride`-th
// freed last; false when an allocation failed.
bool AllocateAndFreeSpread(size_t size, size_t bytes, size_t stride) {
  std::vector<void*> blocks((bytes + size - 1) / size);
  bool ok = true;
  for (void*& p : blocks) {
    p = Allocate(size, 1, false);
    ok = ok && p != nullptr;
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i % stride != 0) Free(blocks[i]);
  }
  for (size_t i = 0; i < blocks.size(); i += stride) Free(blocks[i]);
  return ok;
}

void DecayManyRunOnCall(alloclab::FreshCall& call) {
  const bool spread = call.arg() == "spread";
  if (!spread && call.arg() != "every_class") {
    call.Fail(absl::StrCat("not a shape (every_class, spread): ", call.arg()));
    return;
  }
  internal::ScopedFakeClock clock;
  std::vector<std::unique_ptr<ScheduledThread>> threads;
  int failed = 0;
  for (int t = 0; t < kRunOnThreads; ++t) {
    threads.push_back(std::make_unique<ScheduledThread>());
    threads.back()->Run([&] {
      if (spread) {
        for (int round = 0; round < kRunOnSpreadRounds; ++round) {
          for (size_t size : {4 * kKiB, 5 * kKiB}) {
            if (!AllocateAndFreeSpread(size, kRunOnSpreadBytes,
                                       kRunOnSpreadStride)) {
              ++failed;
            }
          }
        }
        return;
      }
      for (size_t size : OwnCacheSizes()) {
        if (!AllocateAndFreeSpread(size, kRunOnGroupBytes, 1)) ++failed;
      }
    });
  }
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  auto checking_calls = [&](int t) {
    return [&, t] {
      const size_t size = kRunOnCheckSizes[t % std::size(kRunOnCheckSizes)];
      for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
        Free(Allocate(size, 1, false));
      }
    };
  };
  internal::SetTableObserver(StopInPageSource);
  run_on_state.store(1);
  threads[0]->Run([] { stops_in_page_source = true; });
  threads[0]->Start(checking_calls(0));
  WaitUntil([&] { return run_on_state.load() == 2 || threads[0]->Done(); });
  const bool parked = run_on_state.load() == 2;
  for (int t = 1; t < kRunOnThreads; ++t) {
    threads[t]->Start(checking_calls(t));
    // A design may hold a lock while it gives back (promise 1 asks that of
    // maps only); then thread 0 goes on, and thread t after it.
    if (!WaitUntil([&] { return threads[t]->Done(); })) run_on_state.store(3);
    threads[t]->Wait();
  }
  run_on_state.store(3);
  threads[0]->Wait();
  internal::SetTableObserver(nullptr);
  call.Record("parked", parked ? 1 : 0);
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  call.Record("failed", failed);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_many_run_on", DecayManyRunOnCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenManyThreadsCallAfterTheDecayAndRunOn) {
  const uint64_t bound =
      IdleBound(kRunOnThreads, *std::max_element(std::begin(kRunOnCheckSizes),
                                                 std::end(kRunOnCheckSizes)));
  for (const char* shape : {"every_class", "spread"}) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_decay_many_run_on", shape);
    ASSERT_TRUE(r.ok()) << shape << ": " << r.status();
    EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
    const std::string what =
        absl::string_view(shape) == "spread"
            ? absl::StrCat(kRunOnSpreadRounds, " times allocated ",
                           kRunOnSpreadBytes, " bytes of blocks of 4 KiB and ",
                           "of 5 KiB and freed them, every ",
                           kRunOnSpreadStride, "th block last")
            : absl::StrCat(
                  "used every class from 4 KiB to 256 KiB (a group "
                  "of ",
                  kRunOnGroupBytes,
                  " bytes of blocks of each size, allocated and "
                  "freed)");
    EXPECT_LE(r->values["held_after"], bound)
        << kRuleDecay << "; " << kRuleDecayRunningThreads << ": "
        << kRunOnThreads << " threads each " << what << " ("
        << static_cast<int64_t>(r->values["held_before"])
        << " bytes held then) and ran on; kDecayNs later each made "
        << kDecayCheckOps << " calls of a size of its own, "
        << (r->values["parked"] != 0
                ? "thread 0 stopped inside the page source (its first unmap "
                  "or release) while the others made theirs"
                : "in turn (thread 0's never reached the page source)")
        << ": " << static_cast<int64_t>(r->values["held_after"])
        << " bytes held, by the largest of the suite's three counts, where "
        << "kIdleHeldBytes + " << kRunOnThreads - 1
        << " x kIdleThreadBytes = " << bound << " are allowed";
  }
}

// Promise 2's "a thread that has not made such calls adds nothing":
// kQuietThreads threads each make a pair of calls (48 bytes) and stay alive,
// making no call after the decay; thread W allocates and frees
// kQuietSmallBytes of 16 KiB blocks and kQuietLargeBlocks blocks of 1 MiB
// (above 256 KiB: a mapping each, maybe cached); kDecayNs later W alone
// makes kDecayCheckOps calls (pairs of 64 bytes). One thread called:
// kIdleHeldBytes, however many others run on (the quiet threads' own
// 48-byte blocks may wait for them, and are a few KiB). Records
// "held_before" and "held_after" (held.h's judged count), and "failed".
constexpr int kQuietThreads = 8;
constexpr size_t kQuietSmallBytes = 16 * kMiB;
constexpr int kQuietLargeBlocks = 16;

void DecayQuietThreadsCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  std::vector<std::unique_ptr<ScheduledThread>> quiet;
  for (int t = 0; t < kQuietThreads; ++t) {
    quiet.push_back(std::make_unique<ScheduledThread>());
    quiet.back()->Run([] { Free(Allocate(48, 1, false)); });
  }
  ScheduledThread w;
  int failed = 0;
  w.Run([&] {
    if (!AllocateAndFreeSpread(16 * kKiB, kQuietSmallBytes, 1)) ++failed;
    std::vector<void*> large(kQuietLargeBlocks);
    for (void*& p : large) {
      p = Allocate(kMiB, 1, false);
      if (p == nullptr) ++failed;
    }
    for (void* p : large) Free(p);
  });
  call.Record("failed", failed);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  w.Run([] {
    for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
      Free(Allocate(64, 1, false));
    }
  });
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_quiet_threads",
                    DecayQuietThreadsCall);

TEST(DesignDecay, IdleMemoryGoesBackWhileOtherThreadsRunOnWithoutCalling) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_quiet_threads");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
  // One thread made the checking calls, on blocks of 64 bytes: the quiet
  // ones made none, and add nothing.
  const uint64_t bound = IdleBound(1, 64);
  EXPECT_LE(r->values["held_after"], bound)
      << kRuleDecay << "; " << kRuleDecayRunningThreads << ": " << kQuietThreads
      << " threads each allocated and freed a block of 48 "
      << "bytes and ran on, calling no more; another allocated and freed "
      << kQuietSmallBytes << " bytes of blocks of 16 KiB and "
      << kQuietLargeBlocks << " blocks of 1 MiB ("
      << static_cast<int64_t>(r->values["held_before"])
      << " bytes held then), and kDecayNs later it alone made "
      << kDecayCheckOps << " calls, Allocate(64) and Free() in pairs: "
      << static_cast<int64_t>(r->values["held_after"])
      << " bytes held (at most " << bound << ", kIdleHeldBytes)";
}

// Promise 2 for consumers that go quiet: thread P allocates
// kQuietConsumerBytes of blocks of each of kQuietConsumerSizes and exits
// with them live; `consumers` threads (the fresh call's argument, 1 or
// kQuietConsumers) each free a share of them, in allocation order, the
// highest block of each kQuietConsumerPiece last (so that whatever a
// consumer keeps of its latest frees holds a block of each of many pieces,
// and those pieces in use), then run on without another call. kDecayNs
// later this thread alone makes kDecayCheckOps calls (pairs of 64 bytes).
// No consumer allocated any of the blocks and P has exited: nothing may
// wait for any of them ("blocks that a thread still running allocated may
// wait for that thread", and a consumer made no calls, so it adds nothing,
// however many there are). Records "held_before", "held_after" (held.h's
// judged count) and "failed".
constexpr size_t kQuietConsumerSizes[] = {64, 256, 1000, 2000};
constexpr size_t kQuietConsumerBytes = 6 * kMiB;  // of each size
constexpr size_t kQuietConsumerPiece = 64 * kKiB;
constexpr int kQuietConsumers = 16;

void DecayQuietConsumerCall(alloclab::FreshCall& call) {
  int consumers = 0;
  if (!absl::SimpleAtoi(call.arg(), &consumers) || consumers < 1 ||
      consumers > kQuietConsumers) {
    call.Fail(absl::StrCat("not a number of consumers (1 to ", kQuietConsumers,
                           "): ", call.arg()));
    return;
  }
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks;
  int failed = 0;
  std::thread([&] {
    for (size_t size : kQuietConsumerSizes) {
      for (size_t i = 0; i < kQuietConsumerBytes / size; ++i) {
        void* p = Allocate(size, 1, false);
        if (p == nullptr) {
          ++failed;
        } else {
          blocks.push_back(p);
        }
      }
    }
  }).join();
  // Consumer t frees the blocks of every `consumers`-th piece, from the
  // t-th: each meets pieces of every size, as many as one consumer alone
  // meets of a `consumers`-th of the memory.
  std::vector<std::vector<void*>> shares(consumers);
  for (void* p : blocks) {
    shares[reinterpret_cast<uintptr_t>(p) / kQuietConsumerPiece % consumers]
        .push_back(p);
  }
  std::vector<std::unique_ptr<ScheduledThread>> quiet;
  for (const std::vector<void*>& share : shares) {
    quiet.push_back(std::make_unique<ScheduledThread>());
    quiet.back()->Run(
        [&] { FreeHighestOfEachPieceLast(share, kQuietConsumerPiece); });
  }
  call.Record("failed", failed);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
    Free(Allocate(64, 1, false));
  }
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_quiet_consumer",
                    DecayQuietConsumerCall);

void ExpectQuietConsumersKeepNothing(int consumers) {
  absl::StatusOr<alloclab::FreshCallResult> r = RunFresh(
      "allocator_design_decay_quiet_consumer", absl::StrCat(consumers));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
  // One thread made the checking calls, on blocks of 64 bytes; the
  // consumers made none, and allocated none of what they freed.
  const uint64_t bound = IdleBound(1, 64);
  EXPECT_LE(r->values["held_after"], bound)
      << kRuleDecay << "; " << kRuleDecayOwner << ": a thread allocated "
      << kQuietConsumerBytes
      << " bytes of blocks of each of 64, 256, 1000 and 2000 bytes and "
      << "exited; " << consumers << " other thread(s) freed a share of them "
      << "each, the highest block of each " << kQuietConsumerPiece
      << " bytes last (" << static_cast<int64_t>(r->values["held_before"])
      << " bytes held then), and ran on, calling no more; kDecayNs later "
      << "one more made " << kDecayCheckOps << " calls, Allocate(64) and "
      << "Free() in pairs: " << static_cast<int64_t>(r->values["held_after"])
      << " bytes held (at most " << bound << ", kIdleHeldBytes). Blocks may "
      << "wait only for a running thread that allocated them: what threads "
      << "keep of other threads' blocks they freed is held memory too, "
      << "however many threads keep some";
}

TEST(DesignDecay, IdleMemoryGoesBackWhileItsFreeingThreadRunsOnWithoutCalling) {
  ExpectQuietConsumersKeepNothing(1);
}

TEST(DesignDecay,
     IdleMemoryGoesBackWhileManyFreeingThreadsRunOnWithoutCalling) {
  ExpectQuietConsumersKeepNothing(kQuietConsumers);
}

// Promise 2's "at least once per kDecayCheckOps calls", in every phase: a
// thread four times frees 24 MiB, lets 2 * kDecayNs pass and makes
// kDecayCheckOps allocations. Each cycle is 5120 calls, so its checking
// calls start a quarter of 4096 later each time: a design that looks at
// the clock once per 2048 or 4096 calls misses it in some cycle.
constexpr int kPhaseCycles = 4;

void DecayPhasesCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  constexpr int kBlocks = 1536;  // 2 * 1536 + 2 * 1024 calls = 5120 a cycle
  std::vector<void*> blocks(kBlocks), checking(kDecayCheckOps);
  for (int cycle = 0; cycle < kPhaseCycles; ++cycle) {
    for (void*& p : blocks) p = Allocate(16 * kKiB, 1, false);
    for (void* p : blocks) Free(p);
    clock.Advance(2 * kDecayNs);
    for (void*& p : checking) p = Allocate(64, 1, false);
    call.Record(absl::StrCat("held_", cycle), ReadCounters().bytes_held);
    for (void* p : checking) Free(p);
  }
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_phases", DecayPhasesCall);

TEST(DesignDecay, IdleMemoryGoesBackWhateverThePhaseOfTheCalls) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_phases");
  ASSERT_TRUE(r.ok()) << r.status();
  for (int cycle = 0; cycle < kPhaseCycles; ++cycle) {
    EXPECT_LE(r->values[absl::StrCat("held_", cycle)], kIdleHeldBytes)
        << kRuleDecay << " (kDecayCheckOps: a thread looks at the clock at "
        << "least once per this many calls): cycle " << cycle << " of "
        << kPhaseCycles << ", 1536 blocks of 16 KiB allocated and freed, 2 * "
        << "kDecayNs, then " << kDecayCheckOps << " Allocate(64) calls "
        << "starting " << cycle * 5120 % 4096 << " calls into a 4096-call "
        << "phase; " << r->values[absl::StrCat("held_", cycle)]
        << " bytes held (kIdleHeldBytes = " << kIdleHeldBytes << ")";
  }
}

// Promise 2's "idle time counts from the free" across a thread's exit: a
// thread frees about 26 MB of blocks of 32 to 160 KiB and exits
// `call.arg()` tenths of kDecayNs later; 11 tenths after the free, this
// thread makes kDecayCheckOps calls. A design that counts what the exiting
// thread kept as idle from its exit, not from its free, still holds it.
// Records the bytes held by the allocator's count ("held") and by the page
// source's ("mapped_left": mapped, less unmapped and released, which no
// design can hold less than).
void DecayExitLateCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  int exit_tenths = 0;
  if (!absl::SimpleAtoi(call.arg(), &exit_tenths)) {
    call.Fail(absl::StrCat("not a number of tenths: '", call.arg(), "'"));
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool freed = false, go = false;
  std::thread t([&] {
    Rng rng(34);
    std::vector<void*> blocks;
    for (size_t sum = 0; sum < 26'000'000;) {
      const size_t size = rng.Between(32 * kKiB, 160 * kKiB);
      blocks.push_back(Allocate(size, 1, false));
      sum += size;
    }
    for (void* p : blocks) Free(p);
    std::unique_lock<std::mutex> lock(mu);
    freed = true;
    cv.notify_all();
    cv.wait(lock, [&] { return go; });
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return freed; });
    clock.Advance(exit_tenths * (kDecayNs / 10));
    go = true;
    cv.notify_all();
  }
  t.join();
  clock.Advance((11 - exit_tenths) * (kDecayNs / 10));
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  call.Record("held", ReadCounters().bytes_held);
  call.Record("mapped_left", MappedLeft());
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_exit_late", DecayExitLateCall);

TEST(DesignDecay, IdleTimeCountsFromTheFreeNotTheExit) {
  for (int exit_tenths : {0, 5, 9}) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_decay_exit_late", absl::StrCat(exit_tenths));
    ASSERT_TRUE(r.ok()) << r.status();
    for (const char* count : {"held", "mapped_left"}) {
      EXPECT_LE(r->values[count], kIdleHeldBytes)
          << kRuleDecay << " (idle time counts from the free, whether the "
          << "thread that freed the blocks has exited): a thread freed 26 MB "
          << "of blocks of 32 to 160 KiB and exited 0." << exit_tenths
          << " x kDecayNs later; 1.1 x kDecayNs after the free, after "
          << kDecayCheckOps << " malloc/free pairs of 64 bytes on this "
          << "thread, " << r->values[count] << " bytes held by "
          << (count == std::string("held")
                  ? "ReadCounters()"
                  : "the page source's count (mapped, less unmapped and "
                    "released)")
          << " (kIdleHeldBytes = " << kIdleHeldBytes << ")";
    }
  }
}

// ---------------------------------------------------------------------------
// Design, explored: promise 2 at its edges. Random schedules of calls from
// several threads, each run in a fresh process from its own seed, checked
// after every step against the suite's own record (the blocks it has live,
// when it last freed one, which threads have called and exited) and the
// page source's counts. The fixed scenarios above reach the cases their
// authors had in mind; these reach the boundaries a design's own numbers
// make special: a pass due just before the check, a thread that exits
// just under kDecayNs after its free, only large blocks.
// ---------------------------------------------------------------------------

constexpr int kDecaySchedules = SchedulesToRun(24);
constexpr int kDecayScheduleSteps = 80;
constexpr int kDecayThreads = 4;
constexpr size_t kDecayMostLive = 48 * kMiB;
constexpr int kDecayEndGroups = 8;

// DecayExplorer
//
// One schedule: steps drawn from `seed`, each an allocation of a group of
// blocks, frees (a thread's own blocks or another's), a thread's exit, a
// step of the fake clock to just under, at or just over kDecayNs after one
// of the recent frees (or half of it, or a sixteenth), or a thread's
// kDecayCheckOps calls. After every step, when promise 2 applies (no block
// live, kDecayNs passed since the last free, every thread that called
// since exited but at most one), that one thread (or a new one) makes its
// kDecayCheckOps calls, allocations only (freed after), and the bytes held
// must be at most kIdleHeldBytes, by ReadCounters() and by the page source
// (mapped, less unmapped and released). Every third schedule has only
// large blocks. Its end: every block freed (in half the schedules by
// thread 0, after kDecayEndGroups groups of its own, and thread 0 then
// looks at the clock in steps shorter than kDecayNs / 2), the other
// threads exit, each at its own time, and the check at kDecayNs after the
// last free.
class DecayExplorer {
 public:
  // The schedule of `seed` with `steps` random steps before its end.
  DecayExplorer(internal::ScopedFakeClock& clock, uint64_t seed, int steps)
      : clock_(clock),
        seed_(seed),
        steps_count_(steps),
        rng_(seed),
        edges_(EdgeSizes(kSmallMax)) {}

  // "" when every check held, else the failure, with the seed and the
  // schedule's steps so far.
  std::string Run() {
    for (int step = 0; step < steps_count_ && failure_.empty(); ++step) {
      RandomStep();
      MaybeCheck();
    }
    // The end: every block freed, every thread but one exited, each at its
    // own time, and the clock just past the last free's kDecayNs.
    const bool runs_on = rng_.Next() % 2 == 0;  // thread 0 frees, calls on
    // The thread that runs on has blocks of many sizes to free: enough in
    // its own cache to matter if its idle time restarted at each look.
    for (int i = 0; runs_on && i < kDecayEndGroups && failure_.empty(); ++i) {
      AllocateGroup(0);
    }
    while (failure_.empty() && !live_.empty()) {
      FreeSome(runs_on ? 0 : PickThread(), rng_.Next() % 2 == 0);
    }
    for (int t = 0; t < kDecayThreads && failure_.empty(); ++t) {
      if (rng_.Next() % 2 == 0) StepClock();
      if (t != 0) ExitThread(t);
    }
    // Thread 0 looks at the clock in steps shorter than kDecayNs / 2.
    while (runs_on && failure_.empty() && NowNs() < last_free_ + kDecayNs) {
      Advance(rng_.Between(kDecayNs / 8, kDecayNs / 3), "the clock on");
      Calls(0, kDecayCheckOps);
    }
    if (failure_.empty()) {
      const uint64_t due = last_free_ + kDecayNs + rng_.Between(0, 1);
      if (due > NowNs()) {
        Advance(due - NowNs(), "to the last free + kDecayNs (+0 or 1 ns)");
      }
      MaybeCheck();
    }
    for (int t = 0; t < kDecayThreads; ++t) ExitThread(t);
    return failure_;
  }

  int checks() const { return checks_; }

 private:
  struct Live {
    void* p;
    size_t size;
    int owner;
  };

  static constexpr size_t kSmallMax = 256 * kKiB;

  void RandomStep() {
    const uint64_t pick = rng_.Next() % 100;
    const int t = PickThread();
    if (pick < 30) {
      AllocateGroup(t);
    } else if (pick < 55) {
      FreeSome(t, rng_.Next() % 2 == 0);
    } else if (pick < 65) {
      ExitThread(t);
    } else if (pick < 85) {
      StepClock();
    } else {
      Calls(t, rng_.Next() % 2 == 0 ? kDecayCheckOps : kDecayCheckOps / 4);
    }
  }

  int PickThread() { return static_cast<int>(rng_.Next() % kDecayThreads); }

  ScheduledThread& Thread(int t) {
    if (threads_[t] == nullptr)
      threads_[t] = std::make_unique<ScheduledThread>();
    return *threads_[t];
  }

  // On thread t: a block of a size of this schedule's kind, in a group.
  size_t Size() {
    if (seed_ % 3 == 0) return rng_.Between(kSmallMax + 1, 4 * kMiB);
    const size_t edge = edges_[rng_.Next() % edges_.size()];
    return std::max<size_t>(edge, 1);
  }

  void AllocateGroup(int t) {
    std::vector<Live> got = DrawGroup(t);
    Thread(t).Run([&] {
      for (Live& b : got) b.p = Allocate(b.size, 1, false);
    });
    KeepGroup(t, got);
  }

  // A group of 1 to 64 blocks for thread t, kDecayMostLive at most live.
  std::vector<Live> DrawGroup(int t) {
    const int n = static_cast<int>(rng_.Between(1, 64));
    std::vector<Live> got;
    size_t bytes = 0;
    for (int i = 0; i < n && live_bytes_ + bytes < kDecayMostLive; ++i) {
      const size_t size = Size();
      got.push_back({nullptr, size, t});
      bytes += size;
    }
    return got;
  }

  // Thread t allocated `got`: they are live now.
  void KeepGroup(int t, const std::vector<Live>& got) {
    size_t bytes = 0;
    called_[t] = true;
    for (const Live& b : got) {
      if (b.p == nullptr) {
        return Fail(
            absl::StrCat(kRuleAvailable, ": Allocate(", b.size, ") failed"));
      }
      live_.push_back(b);
      live_bytes_ += b.size;
      bytes += b.size;
    }
    Note(absl::StrCat("thread ", t, " allocates ", got.size(), " blocks, ",
                      bytes, " bytes"));
  }

  // Thread t frees some live blocks: its own, or other threads'
  // (`others`), or all that are left when it is the end.
  void FreeSome(int t, bool others) {
    std::vector<Live> chosen, kept;
    const uint64_t share = rng_.Between(1, 4);  // a quarter to all
    for (const Live& b : live_) {
      const bool mine = b.owner == t;
      if ((mine != others || live_.size() < 4) && rng_.Next() % 4 < share) {
        chosen.push_back(b);
      } else {
        kept.push_back(b);
      }
    }
    if (chosen.empty()) return;
    Thread(t).Run([&] {
      for (const Live& b : chosen) Free(b.p);
    });
    called_[t] = true;
    for (const Live& b : chosen) live_bytes_ -= b.size;
    live_ = std::move(kept);
    last_free_ = NowNs();
    frees_.push_back(last_free_);
    Note(absl::StrCat("thread ", t, " frees ", chosen.size(),
                      others ? " blocks of other threads" : " of its blocks"));
  }

  void ExitThread(int t) {
    if (threads_[t] == nullptr) return;
    threads_[t]->Exit();
    threads_[t] = nullptr;
    called_[t] = false;
    Note(absl::StrCat("thread ", t, " exits"));
  }

  // The clock to a boundary of a recent free's decay, or on a little.
  void StepClock() {
    const uint64_t now = NowNs();
    const uint64_t free =
        frees_.empty()
            ? now
            : frees_[frees_.size() - 1 -
                     rng_.Next() % std::min<size_t>(frees_.size(), 4)];
    const uint64_t pick = rng_.Next() % 6;
    const uint64_t target = pick == 0   ? free + kDecayNs - 1
                            : pick == 1 ? free + kDecayNs
                            : pick == 2 ? free + kDecayNs + 1
                            : pick == 3 ? now + kDecayNs / 2
                            : pick == 4 ? now + kDecayNs / 16 + 1
                                        : now + 1;
    if (target > now) {
      Advance(target - now, "the clock on");
    }
  }

  void Advance(uint64_t ns, absl::string_view what) {
    clock_.Advance(ns);
    Note(absl::StrCat(what, " (", ns, " ns)"));
  }

  // Thread t makes `n` calls: malloc/free pairs of 64 bytes, the thread
  // looking at the clock. As in DesignDecay's fixed scenarios, their frees
  // (and the checking calls') do not move the last free: a few KiB, beside
  // kIdleHeldBytes, that a design restamping what it freed long ago at
  // each look would otherwise hide behind.
  void Calls(int t, uint64_t n) {
    Thread(t).Run([&] {
      for (uint64_t i = 0; i < n / 2; ++i) Free(Allocate(64, 1, false));
    });
    called_[t] = true;
    Note(absl::StrCat("thread ", t, " makes ", n, " calls"));
  }

  // Promise 2, when it applies: see the class comment.
  void MaybeCheck() {
    if (!failure_.empty() || !live_.empty()) return;
    if (NowNs() < last_free_ + kDecayNs) return;
    int checker = -1;
    for (int t = 0; t < kDecayThreads; ++t) {
      if (!called_[t]) continue;
      if (checker >= 0) return;  // two threads that called still run
      checker = t;
    }
    if (checker < 0) checker = PickThread();
    std::vector<void*> blocks(kDecayCheckOps);
    Counters held;
    int64_t mapped_left = 0;
    Thread(checker).Run([&] {
      for (void*& p : blocks) p = Allocate(64, 1, false);
      held = ReadCounters();
      mapped_left = MappedLeft();
      for (void* p : blocks) Free(p);
    });
    called_[checker] = true;
    ++checks_;
    Note(absl::StrCat("thread ", checker, " makes ", kDecayCheckOps,
                      " allocations and reads ", held.bytes_held,
                      " bytes held (page source: ", mapped_left, ")"));
    if (held.bytes_held > kIdleHeldBytes ||
        mapped_left > static_cast<int64_t>(kIdleHeldBytes)) {
      Fail(absl::StrCat(
          kRuleDecay, ": ", held.bytes_held, " bytes held by ReadCounters(), ",
          mapped_left, " by the page source (kIdleHeldBytes = ", kIdleHeldBytes,
          ")"));
    }
  }

  void Note(std::string step) { log_.Note(std::move(step)); }

  void Fail(const std::string& what) {
    failure_ = log_.Failure(what, "decay explorer", seed_, steps_count_);
  }

  internal::ScopedFakeClock& clock_;
  const uint64_t seed_;
  const int steps_count_;
  Rng rng_;
  const std::vector<size_t> edges_;
  std::unique_ptr<ScheduledThread> threads_[kDecayThreads];
  bool called_[kDecayThreads] = {};  // called since it started
  std::vector<Live> live_;
  size_t live_bytes_ = 0;
  uint64_t last_free_ = 0;
  std::vector<uint64_t> frees_;
  ScheduleLog log_;
  std::string failure_;
  int checks_ = 0;
};

void DecayExplorerCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  uint64_t seed = 0;
  int steps = kDecayScheduleSteps;
  if (!ParseSchedule(call, seed, steps)) return;
  DecayExplorer explorer(clock, seed, steps);
  const std::string failure = explorer.Run();
  call.Record("checks", explorer.checks());
  if (!failure.empty()) call.Fail(failure);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_explorer", DecayExplorerCall);

// ShortestDecaySchedule()
//
// Seed `seed`'s decay schedule failed with `failure`: the shortest
// schedule of that seed that fails too (ShortestSchedule()).
std::string ShortestDecaySchedule(uint64_t seed, const absl::Status& failure) {
  return ShortestSchedule("allocator_design_decay_explorer", seed,
                          kDecayScheduleSteps, failure);
}

TEST(DesignDecayExplorer, RandomSchedulesGiveIdleMemoryBack) {
  int checks = 0;
  for (uint64_t seed = 1; seed <= kDecaySchedules; ++seed) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_decay_explorer", absl::StrCat(seed));
    ASSERT_TRUE(r.ok()) << ShortestDecaySchedule(seed, r.status());
    checks += static_cast<int>(r->values["checks"]);
  }
  EXPECT_GE(checks, kDecaySchedules) << "the explorer checked too rarely";
  ::testing::Test::RecordProperty("checks", checks);
}

// ---------------------------------------------------------------------------
// Tests the mutation report asked for (tests/allocator_design/mutation.md).
// ---------------------------------------------------------------------------

// Promise 2 for many large blocks at once: a thread allocates
// kManyLargeBlocks blocks of kManyLargeBlockBytes (above 256 KiB, so each
// may be a mapping of its own), all live together, frees them all, and runs
// on after 2 * kDecayNs. Whatever keeps large mappings for reuse must give
// back every one of them, however many went idle together (a design that
// bounds such a cache by its entries must also count them right).
constexpr int kManyLargeBlocks = 64;
constexpr size_t kManyLargeBlockBytes = 300 * kKiB;

void DecayManyLargeCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks(kManyLargeBlocks);
  int failed = 0;
  for (void*& p : blocks) {
    p = Allocate(kManyLargeBlockBytes, 1, false);
    if (p == nullptr) ++failed;
  }
  for (void* p : blocks) Free(p);
  call.Record("failed", failed);
  call.Record("held_before", ReadCounters().bytes_held);
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  call.Record("held_after", ReadCounters().bytes_held);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_many_large", DecayManyLargeCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenManyLargeBlocksWereFreedTogether) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_many_large");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread allocated " << kManyLargeBlocks
      << " blocks of " << kManyLargeBlockBytes << " bytes, all live at once, "
      << "and freed them (" << r->values["held_before"] << " bytes held "
      << "then); 2 * kDecayNs later it made " << kDecayCheckOps
      << " malloc/free pairs of 64 bytes: " << r->values["held_after"]
      << " bytes were held (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

}  // namespace
}  // namespace allocator_design::suite
