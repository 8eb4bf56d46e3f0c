// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv4b_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv4b's drivers: one small scenario per promise a wrong allocator of
// RV4B_MUTATIONS (BUILD) breaks, run against that allocator or against the
// correct designs (rv4b_reference_driver, rv4b_segregated_fit_driver,
// rv4b_thread_owned_pages_driver). Each prints its figures and exits 1 when
// the promise is broken, 0 when kept.
//
// The wrong allocators' scenarios: after_exit (promise 6:
// rv4b_unowned_span_refilled_unowned,
// rv4b_segfit_region_owned_only_when_whole), handed_per_size (promise 3:
// rv4b_owned_pages_exit_skips_collect), aligned_only_exit (promise 3:
// rv4b_segfit_aligned_never_arms), concurrent_churn (promise 3:
// rv4b_pool_kept_at_exit at 400 threads, rv4b_segfit_exit_keeps_regions at
// 24) and mixed_sizes (promise 4: rv4b_thread_cache_unbounded). The others,
// remote_freed_then_exit and handed_each_size (promise 3), are review rv4b's
// evidence, with concurrent_churn and mixed_sizes, that the correct designs
// of the time broke promises 3 and 4 as task.h words them; each design now
// keeps them (the chapter's "Where the three designs did not keep the
// promises"), and the suite tries each shape (DesignThreadChurn.
// ThreadsLiveAtOnce*, DesignThreadChurn.AThread*OneBlockOfEverySize*,
// DesignMessagePassing.MessagesOfEverySizeFrom16To256KiBStayBounded).
//
// Example:
//
//   bazel run //tests/allocator_design:rv4b_reference_driver -- after_exit
//   // after_exit: lines holding live blocks of both B and C 0 (bound 0):
//   //   kept

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

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

// Promise 6, memory a thread that exited left: A allocates 4096 blocks of
// `kSize` bytes (40 unless given), frees all but one (handed to this
// thread) and exits. Then B and C, both running, take turns: 64 rounds of
// 16 blocks of that size each, every block kept live. Their lines must be
// apart.
int AfterExit(size_t kSize) {
  void* kept = nullptr;
  std::thread([&] {
    std::vector<void*> blocks(4096);
    for (void*& p : blocks) p = Allocate(kSize, 16, false);
    kept = blocks[2000];
    for (void* p : blocks) {
      if (p != kept) Free(p);
    }
  }).join();
  std::vector<void*> b_live, c_live;
  std::atomic<int> turn{0};
  auto run = [&](int me, std::vector<void*>* live) {
    for (int round = 0; round < 64; ++round) {
      while (turn.load() != 2 * round + me) {
      }
      for (int i = 0; i < 16; ++i) live->push_back(Allocate(kSize, 16, false));
      turn.fetch_add(1);
    }
    while (turn.load() != 128) {
    }
  };
  std::thread b(run, 0, &b_live), c(run, 1, &c_live);
  b.join();
  c.join();
  std::set<uintptr_t> lb, lc;
  AddLines(lb, b_live, kSize);
  AddLines(lc, c_live, kSize);
  int shared = 0;
  for (uintptr_t l : lb) shared += lc.count(l) != 0;
  for (void* p : b_live) Free(p);
  for (void* p : c_live) Free(p);
  Free(kept);
  return Verdict("after_exit", shared, 0,
                 "lines holding live blocks of both B and C");
}

// Promise 3: `kThreads` threads (400 unless given) live at once each
// allocate 8 blocks of 1 KiB, free them and exit. The clock stands still.
int ConcurrentChurn(int kThreads) {
  internal::ScopedFakeClock clock;
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      void* b[8];
      for (void*& p : b) p = Allocate(1024, 16, false);
      ready.fetch_add(1);
      while (ready.load() != kThreads) {
      }
      for (void* p : b) Free(p);
    });
  }
  for (std::thread& t : threads) t.join();
  return Verdict("concurrent_churn", Held(), kThreadChurnHeldBytes,
                 "bytes held once the threads, live at once, churned and "
                 "exited");
}

// Promise 3: 400 threads live at once each allocate 8 blocks of 1 KiB and
// hand them to this thread, which frees them all while the threads still
// run; then every thread exits. The clock stands still.
int RemoteFreedThenExit() {
  internal::ScopedFakeClock clock;
  constexpr int kThreads = 400;
  std::vector<void*> blocks(kThreads * 8, nullptr);
  std::atomic<int> ready{0}, freed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 8; ++i) blocks[t * 8 + i] = Allocate(1024, 16, false);
      ready.fetch_add(1);
      while (freed.load() == 0) {
      }
    });
  }
  while (ready.load() != kThreads) {
  }
  for (void* p : blocks) Free(p);
  freed = 1;
  for (std::thread& t : threads) t.join();
  return Verdict("remote_freed_then_exit", Held(), kThreadChurnHeldBytes,
                 "bytes held once 400 threads whose blocks another thread "
                 "freed exited");
}

// Promise 3, blocks freed while their thread runs: P allocates one block
// of each size from 16 bytes to 256 KiB (16-byte steps to 128, then four
// per doubling) and hands them to F, which frees them all while P still
// runs; P exits, then F. The clock stands still. With "self", P frees
// them itself.
int HandedEachSize(bool self) {
  internal::ScopedFakeClock clock;
  std::vector<size_t> sizes;
  for (size_t n = 16; n <= 128; n += 16) sizes.push_back(n);
  for (size_t base = 128; base < (256 << 10); base *= 2) {
    for (size_t q = 1; q <= 4; ++q) sizes.push_back(base + q * base / 4);
  }
  std::vector<void*> blocks(sizes.size(), nullptr);
  std::atomic<int> step{0};
  std::thread p([&] {
    for (size_t i = 0; i < sizes.size(); ++i) {
      blocks[i] = Allocate(sizes[i], 16, false);
    }
    if (self) {
      for (void* b : blocks) Free(b);
      step = 2;
      return;
    }
    step = 1;
    while (step.load() != 2) {
    }
  });
  std::thread f([&] {
    while (step.load() == 0) {
    }
    if (!self) {
      for (void* b : blocks) Free(b);
      step = 2;
    }
    p.join();
  });
  f.join();
  return Verdict("handed_each_size", Held(), kThreadChurnHeldBytes,
                 "bytes held once a thread whose blocks of every size "
                 "another freed exited, and the other too");
}

// Promise 3, blocks freed while their thread runs, one size a thread: for
// each size from 16 bytes to 16 KiB (16-byte steps to 128, then four per
// doubling), a thread allocates 1 MiB of blocks of it and hands them to F,
// a thread that runs throughout, which frees them all while the first
// still runs; then it exits. F exits last. The clock stands still.
int HandedPerSize() {
  internal::ScopedFakeClock clock;
  std::vector<size_t> sizes;
  for (size_t n = 16; n <= 128; n += 16) sizes.push_back(n);
  for (size_t base = 128; base < (16 << 10); base *= 2) {
    for (size_t q = 1; q <= 4; ++q) sizes.push_back(base + q * base / 4);
  }
  std::vector<void*> blocks;
  blocks.reserve(size_t{1} << 16);
  std::atomic<int> step{0};  // 1: handed, 2: freed, 3: F may exit
  std::thread f([&] {
    for (;;) {
      int now;
      while ((now = step.load()) != 1 && now != 3) {
      }
      if (now == 3) return;
      for (void* b : blocks) Free(b);
      step = 2;
    }
  });
  for (size_t size : sizes) {
    std::thread([&] {
      blocks.clear();
      for (size_t got = 0; got < (size_t{1} << 20); got += size) {
        blocks.push_back(Allocate(size, 16, false));
      }
      step = 1;
      while (step.load() != 2) {
      }
    }).join();
  }
  step = 3;
  f.join();
  return Verdict("handed_per_size", Held(), kThreadChurnHeldBytes,
                 "bytes held once threads whose blocks another freed "
                 "while they ran exited, and the other too");
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

// Promise 3, a thread whose only calls are aligned allocations: 64 threads,
// one after another, each on a stack of its own, allocate one block of 64
// bytes aligned to 64, which outlives them, and exit; this thread frees
// them all at the end. The clock stands still.
void* OneAligned(void* arg) {
  static_cast<std::vector<void*>*>(arg)->push_back(Allocate(64, 64, false));
  return nullptr;
}
int AlignedOnlyExit() {
  internal::ScopedFakeClock clock;
  std::vector<void*> kept, stacks;
  kept.reserve(1024);
  stacks.reserve(1024);
  for (int t = 0; t < 64; ++t) RunOnNewStack(OneAligned, &kept, stacks);
  const uint64_t held = Held();
  for (void* p : kept) Free(p);
  for (void* s : stacks) munmap(s, size_t{1} << 20);
  return Verdict("aligned_only_exit", held, kThreadChurnHeldBytes,
                 "bytes held once 64 threads that each left one aligned "
                 "block live exited");
}

// Promise 4, messages of mixed sizes: a producer sends messages of every
// size from 16 KiB to 256 KiB (each class edge of the large small classes,
// in turn) to a consumer that frees them, at most 256 KiB live at once;
// the most bytes held seen after each message.
int MixedSizes() {
  static const size_t kSizes[] = {
      16 << 10,  20 << 10,  24 << 10,  28 << 10,  32 << 10, 40 << 10,
      48 << 10,  56 << 10,  64 << 10,  80 << 10,  96 << 10, 112 << 10,
      128 << 10, 160 << 10, 192 << 10, 224 << 10, 256 << 10};
  constexpr int kMessages = 20000;
  constexpr size_t kMostLive = 256 << 10;
  std::atomic<void*> slot[64] = {};
  std::atomic<size_t> live{0};
  std::atomic<uint64_t> sizes_in[64] = {};
  uint64_t peak = 0;
  std::thread consumer([&] {
    for (int i = 0; i < kMessages; ++i) {
      void* p;
      while ((p = slot[i % 64].exchange(nullptr)) == nullptr) {
      }
      const size_t n = sizes_in[i % 64].load();
      Free(p);
      live.fetch_sub(n);
    }
  });
  for (int i = 0; i < kMessages; ++i) {
    const size_t n = kSizes[(i * 7) % 17];
    while (live.load() + n > kMostLive) {
    }
    void* p = Allocate(n, 16, false);
    memset(p, 1, 64);
    live.fetch_add(n);
    while (slot[i % 64].load() != nullptr) {
    }
    sizes_in[i % 64].store(n);
    slot[i % 64].store(p);
    const uint64_t h = Held();
    if (h > peak) peak = h;
  }
  consumer.join();
  return Verdict("mixed_sizes", peak, kMessagePassingHeldBytes,
                 "most bytes held while messages of 16 to 256 KiB passed");
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;
  if (argc < 2) {
    fprintf(stderr, "usage: rv4b_driver <scenario>\n");
    return 2;
  }
  const char* s = argv[1];
  if (!strcmp(s, "after_exit")) {
    return AfterExit(argc == 3 ? strtoul(argv[2], nullptr, 10) : 40);
  }
  if (!strcmp(s, "remote_freed_then_exit")) return RemoteFreedThenExit();
  if (!strcmp(s, "concurrent_churn")) {
    return ConcurrentChurn(argc == 3 ? atoi(argv[2]) : 400);
  }
  if (!strcmp(s, "handed_each_size"))
    return HandedEachSize(argc == 3 && !strcmp(argv[2], "self"));
  if (!strcmp(s, "handed_per_size")) return HandedPerSize();
  if (!strcmp(s, "aligned_only_exit")) return AlignedOnlyExit();
  if (!strcmp(s, "mixed_sizes")) return MixedSizes();
  fprintf(stderr, "no scenario %s\n", s);
  return 2;
}
