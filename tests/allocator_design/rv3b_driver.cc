// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv3b_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv3b's drivers: one small scenario per promise a wrong allocator of
// RV3B_MUTATIONS (BUILD) breaks, run against that allocator or against the
// correct design it was made from (rv3b_reference_driver,
// rv3b_segregated_fit_driver, rv3b_thread_owned_pages_driver). Each prints
// its figures and exits 1 when the promise is broken, 0 when kept.
//
// Example:
//
//   bazel run //tests/allocator_design:rv3b_reference_driver -- growing
//   // growing: most bytes held while messages grew 1048576 (bound
//   //   kMessagePassingHeldBytes 16777216): kept

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/traces.h"

namespace allocator_design {
namespace {

#include "tests/allocator_design/review_driver.h"

// The lines of the blocks `blocks`, each `size` bytes, into `lines`.
void AddLines(std::set<uintptr_t>& lines, const std::vector<void*>& blocks,
              size_t size) {
  for (void* p : blocks) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t l = a / kLine; l <= (a + size - 1) / kLine; ++l) {
      lines.insert(l);
    }
  }
}

// How many lines of `a` are lines of `b` too, leaving out `exempt`'s.
int SharedLines(const std::set<uintptr_t>& a, const std::set<uintptr_t>& b,
                const std::set<uintptr_t>& exempt) {
  int shared = 0;
  for (uintptr_t l : a) shared += b.count(l) != 0 && exempt.count(l) == 0;
  return shared;
}

// Promise 6, blocks freed by another thread: A allocates 2048 blocks of 16
// bytes, frees the odd ones of its last 1792 itself, and hands its first
// 256 to B, which frees them (their lines are B's to reuse: left out) and
// then allocates 1024 blocks of 16 bytes while A's even ones stay live.
int DrainClaims() {
  constexpr size_t kSize = 16;
  std::vector<void*> all(2048), handed, a_live, b_live;
  for (void*& p : all) p = nullptr;
  std::atomic<int> step{0};
  std::thread a([&] {
    for (void*& p : all) p = Allocate(kSize, 16, false);
    for (size_t i = 256; i < all.size(); ++i) {
      if (i % 2 == 1) {
        Free(all[i]);
      } else {
        a_live.push_back(all[i]);
      }
    }
    handed.assign(all.begin(), all.begin() + 256);
    step = 1;
    while (step != 2) {
    }
    for (void* p : a_live) Free(p);
  });
  while (step != 1) {
  }
  std::thread b([&] {
    for (void* p : handed) Free(p);
    for (int i = 0; i < 1024; ++i) b_live.push_back(Allocate(kSize, 16, false));
  });
  b.join();
  std::set<uintptr_t> la, lb, exempt;
  AddLines(la, a_live, kSize);
  AddLines(lb, b_live, kSize);
  AddLines(exempt, handed, kSize);
  const int shared = SharedLines(la, lb, exempt);
  step = 2;
  a.join();
  for (void* p : b_live) Free(p);
  return Verdict("drain_claims", shared, 0,
                 "lines holding live blocks of both threads (lines of "
                 "blocks B freed for A left out)");
}

// Runs `body` on a thread whose stack (and so its thread-local state) is
// at an address no earlier thread had: `stacks` keeps every stack mapped.
void RunOnNewStack(void* (*body)(void*), void* arg,
                   std::vector<void*>& stacks) {
  constexpr size_t kStack = size_t{1} << 20;
  void* stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  stacks.push_back(stack);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack, kStack);
  pthread_t t;
  pthread_create(&t, &attr, body, arg);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
}

// Promise 3: 64 threads, one after the other, each on a stack of its own,
// allocate two blocks of 64 bytes that outlive them (its cache empty as it
// exits) and exit; this thread frees them all at the end.
void* TwoLive(void* arg) {
  auto* kept = static_cast<std::vector<void*>*>(arg);
  kept->push_back(Allocate(64, 16, false));
  kept->push_back(Allocate(64, 16, false));
  return nullptr;
}
int EmptyCacheExit() {
  internal::ScopedFakeClock clock;
  std::vector<void*> kept, stacks;
  kept.reserve(1024);
  stacks.reserve(1024);
  for (int t = 0; t < 64; ++t) RunOnNewStack(TwoLive, &kept, stacks);
  const uint64_t held = Held();
  for (void* p : kept) Free(p);
  for (void* s : stacks) munmap(s, size_t{1} << 20);
  return Verdict("empty_cache_exit", held, kThreadChurnHeldBytes,
                 "bytes held once 64 threads that each left two blocks "
                 "live exited");
}

// Promise 3: 100 threads, one after the other, each allocate 40 blocks of
// 16 KiB and 40 of 8 KiB, free them all and exit.
int SparesAtExit() {
  internal::ScopedFakeClock clock;
  for (int t = 0; t < 100; ++t) {
    std::thread([] {
      void* b[80];
      for (int i = 0; i < 80; ++i) {
        b[i] = Allocate(i < 40 ? 16 << 10 : 8 << 10, 16, false);
      }
      for (void* p : b) Free(p);
    }).join();
  }
  return Verdict("spares_at_exit", Held(), kThreadChurnHeldBytes,
                 "bytes held once 100 threads that churned 16 KiB and "
                 "8 KiB blocks exited");
}

// A bounded queue from one producer to one consumer.
struct Queue {
  static constexpr size_t kSlots = 1024;
  void* slot[kSlots];
  std::atomic<uint64_t> head{0}, tail{0};
  void Push(void* p, size_t most) {
    while (tail.load() - head.load() >= most) {
    }
    slot[tail.load() % kSlots] = p;
    tail.fetch_add(1);
  }
  void* Pop() {
    while (head.load() == tail.load()) {
    }
    void* p = slot[head.load() % kSlots];
    head.fetch_add(1);
    return p;
  }
};

// Promise 4: `count` messages of `size(i)` bytes, at most `most` live, one
// thread allocating and another freeing; the most bytes held seen by the
// producer after each message.
template <typename SizeOf>
uint64_t MessagePassing(int count, size_t most, SizeOf size) {
  Queue q;
  std::atomic<uint64_t> peak{0};
  std::thread consumer([&] {
    for (int i = 0; i < count; ++i) Free(q.Pop());
  });
  std::thread producer([&] {
    for (int i = 0; i < count; ++i) {
      void* p = Allocate(size(i), 16, false);
      memset(p, 1, 64);
      q.Push(p, most);
      const uint64_t h = Held();
      if (h > peak.load()) peak = h;
    }
  });
  producer.join();
  consumer.join();
  return peak.load();
}

// 80,000 messages of 1 KiB, 256 live at most (256 KiB).
int SmallMessages() {
  internal::ScopedFakeClock clock;  // no sweep, no decay: only the design
  const uint64_t peak =
      MessagePassing(80000, 256, [](int) { return size_t{1} << 10; });
  return Verdict("small_messages", peak, kMessagePassingHeldBytes,
                 "most bytes held while 1 KiB messages passed");
}

// Messages that grow from 260 KiB to 1 MiB, 4 KiB at a time, one live.
int GrowingMessages() {
  internal::ScopedFakeClock clock;
  const uint64_t peak = MessagePassing(190, 1, [](int i) {
    return (size_t{260} << 10) + (size_t{4} << 10) * i;
  });
  return Verdict("growing", peak, kMessagePassingHeldBytes,
                 "most bytes held while messages grew");
}

// Promise 5: one fixed trace of traces.h replayed (this process is fresh).
int ReplayOne(const char* name) {
  const std::optional<Trace> trace = BuildTrace(name);
  if (!trace.has_value()) {
    fprintf(stderr, "no trace %s\n", name);
    return 2;
  }
  const absl::StatusOr<TraceResult> r = ReplayTrace(*trace);
  if (!r.ok()) {
    fprintf(stderr, "%s\n", r.status().ToString().c_str());
    return 2;
  }
  printf(
      "trace %s: peak live %llu, peak held %llu: utilization %.3f "
      "(kMinUtilization %.2f): %s\n",
      name, static_cast<unsigned long long>(r->peak_live_bytes),
      static_cast<unsigned long long>(r->peak_held_bytes), r->utilization,
      kMinUtilization, r->utilization >= kMinUtilization ? "kept" : "BROKEN");
  return r->utilization >= kMinUtilization ? 0 : 1;
}

// Promise 6, blocks of 1 KiB and more: A allocates 256 blocks of 1256
// bytes and frees every other one by address (its cache drains them to the
// heap); B allocates 14 of 1032 bytes (refills of 2, 4 and 8: its cache
// empty), frees three with live neighbours, and after kDecayNs / 2 makes
// kDecayCheckOps calls on 64-byte blocks, whose tick flushes its cache: three
// free chunks of its own at the head of the list of chunks of 1 KiB to
// 1280 bytes, smaller than its next request, A's behind them. B then
// allocates 64 blocks of 1192 bytes.
int BestFit() {
  internal::ScopedFakeClock clock;
  std::vector<void*> a_live, b_live, b_small;
  std::atomic<int> step{0};
  std::thread a([&] {
    std::vector<void*> all(256);
    for (void*& p : all) p = Allocate(1256, 16, false);
    std::sort(all.begin(), all.end());  // neighbours in memory
    for (size_t i = 0; i < all.size(); ++i) {
      if (i % 2 == 1) {
        Free(all[i]);
      } else {
        a_live.push_back(all[i]);
      }
    }
    step = 1;
    while (step != 2) {
    }
    for (void* p : a_live) Free(p);
  });
  while (step != 1) {
  }
  std::thread b([&] {
    std::vector<void*> mine(14);
    for (void*& p : mine) p = Allocate(1032, 16, false);
    std::sort(mine.begin(), mine.end());
    for (size_t i = 0; i < mine.size(); ++i) {
      if (i == 2 || i == 6 || i == 10) {
        Free(mine[i]);
      } else {
        b_small.push_back(mine[i]);
      }
    }
    clock.Advance(kDecayNs / 2);
    for (uint64_t i = 0; i <= kDecayCheckOps; ++i) {
      Free(Allocate(64, 16, false));
    }
    for (int i = 0; i < 64; ++i) b_live.push_back(Allocate(1192, 16, false));
  });
  b.join();
  std::set<uintptr_t> la, lb;
  AddLines(la, a_live, 1256);
  AddLines(lb, b_live, 1192);
  AddLines(lb, b_small, 1032);
  const int shared = SharedLines(la, lb, {});
  step = 2;
  a.join();
  for (void* p : b_live) Free(p);
  for (void* p : b_small) Free(p);
  return Verdict("best_fit", shared, 0,
                 "lines holding live blocks of both threads");
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;
  if (argc < 2) {
    fprintf(stderr, "usage: rv3b_driver <scenario> [trace]\n");
    return 2;
  }
  const char* s = argv[1];
  if (!strcmp(s, "drain_claims")) return DrainClaims();
  if (!strcmp(s, "empty_cache_exit")) return EmptyCacheExit();
  if (!strcmp(s, "spares_at_exit")) return SparesAtExit();
  if (!strcmp(s, "small_messages")) return SmallMessages();
  if (!strcmp(s, "growing")) return GrowingMessages();
  if (!strcmp(s, "trace") && argc == 3) return ReplayOne(argv[2]);
  if (!strcmp(s, "best_fit")) return BestFit();
  fprintf(stderr, "no scenario %s\n", s);
  return 2;
}
