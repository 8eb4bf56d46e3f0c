// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv10_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv10's driver: one small scenario per wrong allocator the review
// wrote (the one that passed the suite and breaks a promise is a known-bad,
// RV10_MUTATIONS in BUILD), linked with its library and with each correct
// design (rv10_<name>_driver, rv10_reference_driver, ...). Each prints its
// figure and exits 1 when the rule is broken.
//
//   lines       two running threads take turns allocating 1 to 48 blocks of
//               64 to 1024 bytes (multiples of 64 among them) or freeing half
//               of their own; lines of 64 and of 128 bytes holding live
//               blocks of both are counted (promise 6 on a 128-byte machine)
//   decay_due   wave A (8 MiB of 4 KiB blocks) freed at 0, wave B at 0.5 s,
//               checking calls at 1.0 s and again at 1.6 s: B idle 1.1 s
//               (promise 2: idle time counts from the free)
//   exit_stamp  8 threads each free 1 MiB of 256 B blocks at 0, exit at
//               0.9 s; checking calls at 1.1 s (promise 2, the exit's flush)
//   scattered   32 MiB of blocks of 48 B to 8 KiB freed in address order,
//               a second passes, checking calls (promise 2)
//   phases      64 B blocks to 16 MiB live, all freed, then 100 KiB blocks
//               to 16 MiB; peak live / peak held (promise 5, like traces.h's
//               `phases`), and the same with 24 B to 1000 B blocks mixed
//   exit_regions 64 threads live at once each keep 1 block and free 900 KiB
//               of 1000 B blocks, exit; bytes held (promise 3)
//   messages [KIB]  a producer of messages of random sizes 16 B to 256 KiB,
//               a consumer, at most KIB (512) KiB live: the most held
//               (promise 4)
//   restamp     one 16 B block kept per 1 MiB of 4 KiB blocks freed (32
//               MiB), a second, checking calls of 40 sizes (promise 2)

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

#include "tests/allocator_design/review_driver.h"

void CheckingCalls(size_t size) {
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(size, 0, false));
}

// --- lines -----------------------------------------------------------------

struct Live {
  uintptr_t start;
  size_t size;
};

int SharedLines(const std::vector<Live>& a, const std::vector<Live>& b,
                uintptr_t line) {
  std::vector<uintptr_t> la, lb;
  for (const Live& x : a)
    for (uintptr_t l = x.start / line; l <= (x.start + x.size - 1) / line; ++l)
      la.push_back(l);
  for (const Live& x : b)
    for (uintptr_t l = x.start / line; l <= (x.start + x.size - 1) / line; ++l)
      lb.push_back(l);
  std::sort(la.begin(), la.end());
  std::sort(lb.begin(), lb.end());
  la.erase(std::unique(la.begin(), la.end()), la.end());
  lb.erase(std::unique(lb.begin(), lb.end()), lb.end());
  std::vector<uintptr_t> both;
  std::set_intersection(la.begin(), la.end(), lb.begin(), lb.end(),
                        std::back_inserter(both));
  return static_cast<int>(both.size());
}

int Lines() {
  internal::ScopedFakeClock clock;
  constexpr size_t kSizes[] = {64, 64, 128, 192, 256, 320, 512, 1024, 48, 100};
  std::vector<Live> live[2];
  std::atomic<int> turn{0};
  constexpr int kTurns = 1000;
  int sharing64 = 0, sharing128 = 0, most128 = 0;
  auto run = [&](int me) {
    std::mt19937_64 rng(me + 1);
    for (int t = me; t < kTurns; t += 2) {
      while (turn.load(std::memory_order_acquire) != t)
        std::this_thread::yield();
      std::vector<Live>& mine = live[me];
      if (mine.size() > 400 || (mine.size() > 8 && rng() % 3 == 0)) {
        std::shuffle(mine.begin(), mine.end(), rng);
        const size_t half = mine.size() / 2;
        for (size_t i = 0; i < half; ++i) {
          Free(reinterpret_cast<void*>(mine.back().start));
          mine.pop_back();
        }
      } else {
        const int n = 1 + static_cast<int>(rng() % 200);
        const size_t size = kSizes[rng() % 10];
        for (int i = 0; i < n; ++i) {
          void* p = Allocate(size, 0, false);
          if (p != nullptr)
            mine.push_back({reinterpret_cast<uintptr_t>(p), size});
        }
      }
      const int s64 = SharedLines(live[0], live[1], 64);
      const int s128 = SharedLines(live[0], live[1], 128);
      if (s64 != 0 && getenv("RV10_DEBUG") != nullptr) {
        fprintf(stderr,
                "turn %d (thread %d, %zu and %zu live) shares %d lines:\n", t,
                me, live[0].size(), live[1].size(), s64);
        for (int w = 0; w < 2; ++w)
          for (const Live& x : live[w])
            for (const Live& y : live[1 - w])
              if (w == 0 && x.start / 64 <= (y.start + y.size - 1) / 64 &&
                  y.start / 64 <= (x.start + x.size - 1) / 64)
                fprintf(stderr, "  A %#lx+%zu  B %#lx+%zu\n", x.start, x.size,
                        y.start, y.size);
      }
      sharing64 += s64 != 0;
      sharing128 += s128 != 0;
      most128 = std::max(most128, s128);
      turn.store(t + 1, std::memory_order_release);
    }
    // Both run to the end: an exited thread's blocks are nobody's.
    while (turn.load(std::memory_order_acquire) < kTurns) {
      std::this_thread::yield();
    }
  };
  std::thread a(run, 0), b(run, 1);
  a.join();
  b.join();
  printf(
      "lines: turns with a shared 64-byte line %d of %d; with a shared "
      "128-byte line %d (up to %d lines at once)\n",
      sharing64, kTurns, sharing128, most128);
  for (auto& l : live)
    for (const Live& x : l) Free(reinterpret_cast<void*>(x.start));
  return Verdict(
      "lines", sharing128, 0,
      "turns whose live blocks of both threads share a 128-byte line");
}

// --- decay_due ---------------------------------------------------------------

int DecayDue() {
  internal::ScopedFakeClock clock;
  constexpr int kBlocks = 2048;  // 8 MiB each wave
  std::vector<void*> a(kBlocks), b(kBlocks);
  for (void*& p : a) p = Allocate(4096, 0, false);
  for (void*& p : b) p = Allocate(4096, 0, false);
  for (void* p : a) Free(p);
  clock.Advance(kDecayNs / 2);
  for (void* p : b) Free(p);
  clock.Advance(kDecayNs / 2);
  CheckingCalls(64);
  const uint64_t mid = Held();
  clock.Advance(kDecayNs * 6 / 10);
  CheckingCalls(64);
  printf("decay_due: held after the first checking calls %llu\n",
         static_cast<unsigned long long>(mid));
  return Verdict("decay_due", Held(), kIdleHeldBytes,
                 "bytes held 1.1 s after wave B's frees, 1024 calls made");
}

// --- exit_stamp --------------------------------------------------------------

int ExitStamp() {
  internal::ScopedFakeClock clock;
  constexpr int kThreads = 8;
  std::atomic<int> freed{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> ts;
  for (int i = 0; i < kThreads; ++i) {
    ts.emplace_back([&] {
      std::vector<void*> v(4096);
      for (void*& p : v) p = Allocate(256, 0, false);
      for (void* p : v) Free(p);
      freed.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
    });
  }
  while (freed.load() != kThreads) std::this_thread::yield();
  clock.Advance(kDecayNs * 9 / 10);
  go.store(true);
  for (auto& t : ts) t.join();
  const uint64_t at_exit = Held();
  clock.Advance(kDecayNs * 2 / 10);
  CheckingCalls(64);
  printf("exit_stamp: held after the exits %llu\n",
         static_cast<unsigned long long>(at_exit));
  return Verdict("exit_stamp", Held(), kIdleHeldBytes,
                 "bytes held 1.1 s after the frees, 1024 calls made");
}

// --- scattered ---------------------------------------------------------------

int Scattered() {
  internal::ScopedFakeClock clock;
  std::mt19937_64 rng(7);
  std::vector<void*> v;
  size_t total = 0;
  while (total < (32u << 20)) {
    const size_t size = 48 + rng() % 8144;
    v.push_back(Allocate(size, 0, false));
    total += size;
  }
  std::sort(v.begin(), v.end());
  for (void* p : v) Free(p);
  const uint64_t before = Held();
  clock.Advance(kDecayNs + kDecayNs / 10);
  CheckingCalls(64);
  CheckingCalls(64);
  printf("scattered: held before the second %llu\n",
         static_cast<unsigned long long>(before));
  return Verdict("scattered", Held(), kIdleHeldBytes,
                 "bytes held after 2048 calls a second after 32 MiB was freed");
}

// --- phases
// --------------------------------------------------------------------

int Phases() {
  internal::ScopedFakeClock clock;
  const uint64_t base = Held();
  uint64_t live = 0, peak_live = 0, peak_held = 0;
  auto note = [&] {
    peak_live = std::max(peak_live, live);
    peak_held = std::max(peak_held, Held() - base);
  };
  std::mt19937_64 rng(11);
  std::vector<std::pair<void*, size_t>> v;
  auto phase = [&](auto size_of) {
    while (live < (16u << 20)) {
      const size_t s = size_of();
      v.push_back({Allocate(s, 0, false), s});
      live += s;
      note();
      if (rng() % 4 == 0) {  // some churn inside the phase
        const size_t i = rng() % v.size();
        Free(v[i].first);
        live -= v[i].second;
        v[i] = v.back();
        v.pop_back();
      }
    }
    for (auto& [p, s] : v) {
      Free(p);
      live -= s;
    }
    v.clear();
    note();
  };
  phase([] { return size_t{64}; });
  phase([] { return size_t{100} << 10; });
  phase([&] { return size_t{24} + rng() % 977; });
  phase([&] { return size_t{1024} + rng() % (63 << 10); });
  const double u = double(peak_live) / double(peak_held);
  printf("phases: peak live %llu, peak held %llu, utilization %.3f\n",
         (unsigned long long)peak_live, (unsigned long long)peak_held, u);
  return u >= kMinUtilization ? 0 : 1;
}

// --- exit_regions
// ----------------------------------------------------------------

int ExitRegions() {
  internal::ScopedFakeClock clock;
  constexpr int kThreads = 64;
  std::vector<void*> kept(kThreads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> ts;
  for (int i = 0; i < kThreads; ++i) {
    ts.emplace_back([&, i] {
      std::vector<void*> v(900);
      for (void*& p : v) p = Allocate(1000, 0, false);
      kept[i] = v.back();
      v.pop_back();
      for (void* p : v) Free(p);
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
    });
  }
  while (ready.load() != kThreads) std::this_thread::yield();
  go.store(true);
  for (auto& t : ts) t.join();
  const int r = Verdict("exit_regions", Held(), kThreadChurnHeldBytes,
                        "bytes held after 64 threads exited, each leaving one "
                        "block of 1000 B");
  for (void* p : kept) Free(p);
  return r;
}

// --- restamp
// -------------------------------------------------------------------

int Restamp() {
  internal::ScopedFakeClock clock;
  std::vector<void*> v, keep;
  for (int i = 0; i < 8192; ++i) {
    v.push_back(Allocate(4096, 0, false));
    if (i % 256 == 255) keep.push_back(Allocate(16, 0, false));
  }
  for (void* p : v) Free(p);
  clock.Advance(kDecayNs + kDecayNs / 10);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
    Free(Allocate(2048 + (i % 40) * 512, 0, false));
  }
  CheckingCalls(64);
  const int r = Verdict("restamp", Held(), kIdleHeldBytes,
                        "bytes held after calls of 40 sizes, a second after "
                        "32 MiB was freed around 32 live blocks");
  for (void* p : keep) Free(p);
  return r;
}

// --- messages
// -------------------------------------------------------------------

// A producer sends messages of every size from 16 B to 256 KiB (a size a
// message, up and down), a consumer frees them; at most 512 KiB live.
// Bytes held at the peak (promise 4).
int Messages(uint64_t live_cap) {
  internal::ScopedFakeClock clock;
  constexpr int kSlots = 4096;
  std::vector<std::atomic<void*>> ring(kSlots);
  std::vector<std::atomic<size_t>> sizes(kSlots);
  std::atomic<uint64_t> head{0}, tail{0}, live{0};
  constexpr int kMessages = 20000;
  uint64_t peak = 0;
  std::atomic<bool> done{false};
  std::thread consumer([&] {
    uint64_t t = 0;
    while (t < kMessages) {
      if (t == head.load(std::memory_order_acquire)) {
        std::this_thread::yield();
        continue;
      }
      Free(ring[t % kSlots].load());
      live.fetch_sub(sizes[t % kSlots].load());
      tail.store(++t, std::memory_order_release);
    }
    done = true;
  });
  std::mt19937_64 rng(3);
  for (uint64_t h = 0; h < kMessages; ++h) {
    const size_t size = 16 + rng() % ((256 << 10) - 15);  // 16 B to 256 KiB
    while (live.load() + size > live_cap ||
           h - tail.load(std::memory_order_acquire) >= kSlots) {
      std::this_thread::yield();
    }
    void* p = Allocate(size, 0, false);
    sizes[h % kSlots].store(size);
    ring[h % kSlots].store(p);
    live.fetch_add(size);
    head.store(h + 1, std::memory_order_release);
    peak = std::max(peak, Held());
  }
  consumer.join();
  return Verdict("messages", peak, kMessagePassingHeldBytes,
                 "the most bytes held, messages of 16 B to 256 KiB");
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
    return 2;
  }
  const char* s = argv[1];
  if (!strcmp(s, "lines")) return Lines();
  if (!strcmp(s, "decay_due")) return DecayDue();
  if (!strcmp(s, "exit_stamp")) return ExitStamp();
  if (!strcmp(s, "scattered")) return Scattered();
  if (!strcmp(s, "phases")) return Phases();
  if (!strcmp(s, "exit_regions")) return ExitRegions();
  if (!strcmp(s, "restamp")) return Restamp();
  if (!strcmp(s, "messages")) {
    return Messages(uint64_t{argc > 2 ? strtoull(argv[2], nullptr, 10) : 512}
                    << 10);
  }
  fprintf(stderr, "no scenario %s\n", s);
  return 2;
}
