// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv5a_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv5a's drivers: one small scenario per promise a wrong allocator of
// RV5A_MUTATIONS, RV5A_SEGREGATED_FIT_MUTATIONS or
// RV5A_THREAD_OWNED_PAGES_MUTATIONS (BUILD) breaks, run against that
// allocator or against the correct designs (rv5a_reference_driver,
// rv5a_segregated_fit_driver, rv5a_thread_owned_pages_driver). Each prints
// its figures and exits 1 when the promise is broken, 0 when kept.
//
// Promise 1 is counted per thread: its locks by lock.h's observer (those of
// ReadCounters() left out), and, where one thread runs at a time, its
// central visits by ReadCounters(), against what its calls allow (one per
// kOpsPerCentralVisit calls, or per kBytesPerCentralVisit of the sizes
// asked for, whichever allows more, call by call; rounded up, and one
// more). Promise 4 by the most bytes held seen.
//
// The scenarios: messages (a producer and a consumer taking turns, the
// producer allocating until 256 KiB are live, the consumer then freeing
// them all; promises 1 and 4):
//   messages turn          every class above 8 KiB at its least size, in
//                          turn: rv5a_cache_limit_doubled_before_scavenge,
//                          rv5a_free_counts_as_use (promise 4),
//                          rv5a_refill_one_span_per_heap_visit,
//                          rv5a_segfit_batch_grows_on_drain_only,
//                          rv5a_owned_pages_collects_at_every_allocation
//                          (promise 1, the producer);
//   messages phases R [down]  R messages of a size, then the next, up (or
//                          down), twice: rv5a_refill_never_scavenges at R =
//                          1600 down (promise 4; 14.8 MB since the
//                          reference's pool fix: the suite's sizes start
//                          above 2 KiB, not 8 KiB; retired as a known-bad
//                          since review rv11, within the bound with the
//                          reference's smaller batches, as is
//                          pool_kept_past_reuse); the reference itself at R
//                          = 50 up (promise 4, review rv5a's finding: 19.9
//                          MB held, 13.4 MB since its pool gives back as
//                          much as it takes back into use, which the
//                          known-bad pool_kept_past_reuse undoes);
//   messages size N        every message N bytes:
//                          rv5a_segfit_batch_grows_on_drain_only at 64
//                          (promise 1); the reference at 4096 and
//                          thread_owned_pages at 8193 (promise 1, the
//                          producer: review rv5a's findings; since its
//                          spans hold a visit's worth, thread_owned_pages
//                          keeps it: 644 visits, 1,250 allowed);
// and burst N R (R rounds of 1000 blocks of N bytes allocated, then all
// freed; promise 1): rv5a_refill_one_span_per_heap_visit at 16384; the
// reference itself at 4096 to 9000 (review rv5a's finding).
//
// The consumer's figures are printed and not judged: whether promise 1
// covers a thread that frees only blocks other threads allocated is for
// task.h to say (review rv5a's report).
//
// Example:
//
//   bazel run //tests/allocator_design:rv5a_reference_driver -- messages turn
//   // messages turn: producer's locks in the second half 7857 (bound
//   //   10657): kept ...

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "labs/allocator_design/internal/lock_testing.h"
#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

#include "tests/allocator_design/review_driver.h"

// The locks this thread has taken in its calls (lock.h's observer), not
// counting those of ReadCounters() (HeldUncounted()).
thread_local uint64_t my_locks = 0;
thread_local bool reading_counters = false;

void CountLock(const Lock&, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquired && !reading_counters) {
    ++my_locks;
  }
}

// Held(), its locks not counted as the calls'.
uint64_t HeldUncounted() {
  reading_counters = true;
  const uint64_t held = Held();
  reading_counters = false;
  return held;
}

// What promise 1 allows one call on a block of `size` bytes asked for.
double Allowance(size_t size) {
  const double by_calls = 1.0 / kOpsPerCentralVisit;
  const double by_bytes =
      static_cast<double>(size) / static_cast<double>(kBytesPerCentralVisit);
  return by_bytes > by_calls ? by_bytes : by_calls;
}

// The bound of a measured stretch: what its calls allow, rounded up, and
// one visit more (one under way as the stretch begins).
uint64_t Bound(double allowed) {
  return static_cast<uint64_t>(std::ceil(allowed)) + 1;
}

// The least size each class above 8 KiB holds (the size just past the
// class below): 8 KiB + 1, 10 KiB + 1, ..., 224 KiB + 1.
std::vector<size_t> LeastSizesAbove8KiB() {
  std::vector<size_t> sizes;
  size_t below = 8 << 10;
  for (size_t base = 8 << 10; base < (256 << 10); base *= 2) {
    for (size_t k = 1; k <= 4; ++k) {
      const size_t top = base + k * (base / 4);
      sizes.push_back(below + 1);
      below = top;
    }
  }
  return sizes;
}

// The central visits so far, its locks not counted as the calls'.
uint64_t VisitsUncounted() {
  reading_counters = true;
  const uint64_t visits = ReadCounters().central_visits;
  reading_counters = false;
  return visits;
}

// What one thread did in the measured half: its locks and central visits,
// and what its calls allow.
struct Side {
  uint64_t locks = 0;
  uint64_t visits = 0;
  double allowed = 0;
};

// Promises 1 and 4, messages: a producer allocates `count` messages of the
// least size of every class above 8 KiB (`mode` "turn": each message the
// next size, seven apart; "phases": `phase` of a size, then the next,
// `down` from the largest; "size": every one of `phase` bytes, 64 or more),
// a consumer frees them. The two take turns: the
// producer allocates until the next message would pass 256 KiB live, then
// the consumer frees them all, so that each one's locks (lock.h's observer)
// and central visits (ReadCounters(), read at each turn's start and end)
// are its own. The first half is the warm-up; the second half's figures
// per thread against what its calls allow; the most bytes held over all.
int Messages(const char* mode, int phase, bool down) {
  const bool one_size = strcmp(mode, "size") == 0;
  const std::vector<size_t> sizes =
      one_size ? std::vector<size_t>{static_cast<size_t>(phase)}
               : LeastSizesAbove8KiB();
  const int n = static_cast<int>(sizes.size());
  const bool phases = strcmp(mode, "phases") == 0;
  const int count = phases ? phase * n * 2 : 40000;
  constexpr size_t kMostLive = 256 << 10;
  constexpr int kSlots = 64;
  void* slot[kSlots] = {};
  size_t slot_size[kSlots] = {};
  int in_window = 0;
  std::atomic<int> turn{0};  // 0: the producer's, 1: the consumer's, 2: done
  std::atomic<bool> measuring{false};
  uint64_t peak = 0;
  Side producer, consumer;
  internal::SetLockObserver(CountLock);
  std::thread consumer_thread([&] {
    for (;;) {
      int t;
      while ((t = turn.load()) == 0) {
      }
      if (t == 2) return;
      const bool measured = measuring.load();
      const uint64_t locks = my_locks;
      const uint64_t visits = VisitsUncounted();
      for (int i = 0; i < in_window; ++i) {
        Free(slot[i]);
        if (measured) consumer.allowed += Allowance(slot_size[i]);
      }
      if (measured) {
        consumer.visits += VisitsUncounted() - visits;
        consumer.locks += my_locks - locks;
      }
      in_window = 0;
      turn.store(0);
    }
  });
  size_t live = 0;
  uint64_t locks = my_locks;
  uint64_t visits = VisitsUncounted();
  for (int i = 0; i < count; ++i) {
    const size_t size =
        phases ? sizes[down ? n - 1 - (i / phase) % n : (i / phase) % n]
               : sizes[(i * 7) % n];
    if (live + size > kMostLive || in_window == kSlots) {
      const bool measured = measuring.load();
      if (measured) {
        producer.visits += VisitsUncounted() - visits;
        producer.locks += my_locks - locks;
      }
      turn.store(1);
      while (turn.load() != 0) {
      }
      live = 0;
      if (i >= count / 2) measuring.store(true);
      locks = my_locks;
      visits = VisitsUncounted();
    }
    void* p = Allocate(size, 0, false);
    if (p == nullptr) {
      fprintf(stderr, "Allocate(%zu) failed\n", size);
      return 2;
    }
    memset(p, 1, 64);  // every message is 64 bytes or more
    live += size;
    if (measuring.load()) producer.allowed += Allowance(size);
    slot[in_window] = p;
    slot_size[in_window] = size;
    ++in_window;
    const uint64_t held = HeldUncounted();
    if (held > peak) peak = held;
  }
  if (measuring.load()) {
    producer.visits += VisitsUncounted() - visits;
    producer.locks += my_locks - locks;
  }
  turn.store(1);
  while (turn.load() != 0) {
  }
  turn.store(2);
  consumer_thread.join();
  internal::SetLockObserver(nullptr);
  char name[64];
  snprintf(name, sizeof(name), "messages %s", mode);
  int broken = Verdict(name, producer.locks, Bound(producer.allowed),
                       "producer's locks in the second half");
  broken |= Verdict(name, producer.visits, Bound(producer.allowed),
                    "producer's central visits in the second half");
  // Informational: promise 1 is not read here to cover a thread that only
  // frees blocks other threads allocated (see the report).
  Verdict(name, consumer.locks, Bound(consumer.allowed),
          "consumer's locks in the second half (not judged)");
  Verdict(name, consumer.visits, Bound(consumer.allowed),
          "consumer's central visits in the second half (not judged)");
  broken |= Verdict(name, peak, kMessagePassingHeldBytes, "most bytes held");
  return broken;
}

// Promise 1, bursts: `rounds` times, a thousand blocks of `size` bytes
// allocated, then all freed; the second half's locks.
int Burst(size_t size, int rounds) {
  constexpr int kBlocks = 1000;
  std::vector<void*> blocks(kBlocks);
  internal::SetLockObserver(CountLock);
  uint64_t start = 0;
  double allowed = 0;
  for (int r = 0; r < rounds; ++r) {
    if (r == rounds / 2) start = my_locks;
    for (void*& p : blocks) {
      p = Allocate(size, 0, false);
      memset(p, 1, size < 64 ? size : 64);
    }
    for (void* p : blocks) Free(p);
    if (r >= rounds / 2) allowed += 2 * kBlocks * Allowance(size);
  }
  const uint64_t locks = my_locks - start;
  internal::SetLockObserver(nullptr);
  return Verdict("burst", locks, Bound(allowed),
                 "locks in the second half of the rounds");
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;
  if (argc < 2) {
    fprintf(stderr, "usage: rv5a_driver <scenario> [args]\n");
    return 2;
  }
  const char* s = argv[1];
  if (!strcmp(s, "messages")) {
    return Messages(argc >= 3 ? argv[2] : "turn",
                    argc >= 4 ? atoi(argv[3]) : 400,
                    argc >= 5 && !strcmp(argv[4], "down"));
  }
  if (!strcmp(s, "burst")) {
    return Burst(argc >= 3 ? strtoul(argv[2], nullptr, 10) : 16 << 10,
                 argc >= 4 ? atoi(argv[3]) : 40);
  }
  fprintf(stderr, "no scenario %s\n", s);
  return 2;
}
