// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv2_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv2's drivers: one small scenario per promise a wrong allocator of
// RV2_MUTATIONS (BUILD) breaks, run against that allocator or against the
// reference (rv2_reference_driver). Each prints its figures and exits 1
// when the promise is broken, 0 when kept.
//
// Example:
//
//   bazel run //tests/allocator_design:rv2_reference_driver -- exit_trim
//   // exit_trim: held 5439488 bytes after the churning thread exited
//   //   (bound kThreadChurnHeldBytes 16777216): kept

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

// Promise 3: a thread that churns one block of `first` bytes, then four of
// 8 MiB live at once (32 MiB: a cache of large mappings full), exits.
int ChurnAndExit(const char* name, size_t first) {
  std::thread([first] {
    Free(Allocate(first, 16, false));
    void* b[4];
    for (void*& p : b) p = Allocate(8 << 20, 16, false);
    for (void* p : b) Free(p);
  }).join();
  return Verdict(name, Held(), kThreadChurnHeldBytes,
                 "bytes held after the churning thread exited");
}

// A small block first: the thread's cache is set up before its large frees.
int ExitTrim() { return ChurnAndExit("exit_trim", 64); }

// 64 MiB first: too big for any cache, unmapped at its free.
int PhantomLive() { return ChurnAndExit("phantom_live", 64 << 20); }

// Promise 2: 8 MiB of 64-byte blocks freed; after kDecayNs a fresh thread
// whose first two calls came before makes kDecayCheckOps calls, all large
// allocations and frees.
int LargeTicks() {
  internal::ScopedFakeClock clock;
  {
    std::vector<void*> blocks(size_t{8 << 20} / 64);
    for (void*& p : blocks) p = Allocate(64, 16, false);
    for (void* p : blocks) Free(p);
  }
  std::atomic<int> step{0};
  std::thread checker([&] {
    Free(Allocate(64, 16, false));  // a fresh thread: ticks at its first
    step = 1;
    while (step != 2) {
    }
    for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
      Free(Allocate(300 << 10, 16, false));
    }
  });
  while (step != 1) {
  }
  clock.Advance(kDecayNs);
  step = 2;
  checker.join();
  return Verdict("large_ticks", Held(), kIdleHeldBytes,
                 "bytes held after kDecayCheckOps large calls");
}

// Promise 2: 8 MiB of 100 KiB blocks (1 MiB spans) freed by a thread that
// exits; after kDecayNs this thread makes 2 * kDecayCheckOps calls.
int BigSpans() {
  internal::ScopedFakeClock clock;
  std::thread([] {
    std::vector<void*> blocks(80);
    for (void*& p : blocks) p = Allocate(100 << 10, 16, false);
    for (void* p : blocks) Free(p);
  }).join();
  const uint64_t before = Held();
  clock.Advance(kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 16, false));
  printf("big_spans: held %llu before the decay\n",
         static_cast<unsigned long long>(before));
  return Verdict("big_spans", Held(), kIdleHeldBytes,
                 "bytes held after the decay and the checking calls");
}

// Lines of the blocks [p, p + size).
void AddLines(std::set<uintptr_t>& lines, void* p, size_t size) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (uintptr_t l = a / kLine; l <= (a + size - 1) / kLine; ++l) {
    lines.insert(l);
  }
}

int Shared(const std::vector<void*>& a, const std::vector<void*>& b,
           size_t size) {
  std::set<uintptr_t> la, lb;
  for (void* p : a) AddLines(la, p, size);
  for (void* p : b) AddLines(lb, p, size);
  int shared = 0;
  for (uintptr_t l : lb) shared += la.count(l);
  return shared;
}

// Promise 6: thread A fills its spans with 32-byte blocks, frees every
// other one of the first span's worth itself, keeps the rest live and runs
// on; thread B then allocates 1024 blocks of 32 bytes.
int OwnLinesFull() {
  constexpr size_t kSize = 32;
  std::vector<void*> a_live, b_live;
  std::atomic<int> step{0};
  std::thread a([&] {
    std::vector<void*> all(4096);
    for (void*& p : all) p = Allocate(kSize, 16, false);
    for (size_t i = 0; i < all.size(); ++i) {
      if (i < 2048 && i % 2 == 0) {
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
    for (int i = 0; i < 1024; ++i) b_live.push_back(Allocate(kSize, 16, false));
  });
  b.join();
  const int shared = Shared(a_live, b_live, kSize);
  step = 2;
  a.join();
  for (void* p : b_live) Free(p);
  return Verdict("own_lines_full", shared, 0,
                 "lines holding live blocks of both threads");
}

// Promise 6 in a forked child: the forking thread's 94 live blocks of 48
// bytes (refills of 2, 4, 8, 16, 32 and 32: its cache empty at the fork,
// the last block's line half used), and those of a thread the child starts.
int ForkedChild() {
  constexpr size_t kSize = 48;
  std::vector<void*> mine(94);
  for (void*& p : mine) p = Allocate(kSize, 16, false);
  fflush(stdout);
  ForkPrepare();  // as the shim's pthread_atfork() handlers do
  const pid_t pid = fork();
  if (pid != 0) ForkParent();
  if (pid == 0) {
    allocator_design::ForkChild();
    std::vector<void*> theirs;
    std::thread t([&] {
      for (int i = 0; i < 200; ++i)
        theirs.push_back(Allocate(kSize, 16, false));
    });
    t.join();
    const int shared = Shared(mine, theirs, kSize);
    const int verdict =
        Verdict("fork_child", shared, 0,
                "lines holding live blocks of the forking thread and "
                "the child's thread");
    fflush(stdout);
    _exit(verdict);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

// Counters, exact when no other thread is in the allocator: four threads
// map large blocks (and so metadata pieces) at once, each map slowed.
void SlowMap() { usleep(200); }
int MetaRace() {
  internal::SetMapObserver(SlowMap);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      std::vector<void*> blocks(2500);
      for (void*& p : blocks) p = Allocate(300 << 10, 16, false);
      for (void* p : blocks) Free(p);
    });
  }
  for (std::thread& t : threads) t.join();
  internal::SetMapObserver(nullptr);
  const Counters c = ReadCounters();
  const PageSourceCounts s = ReadPageSourceCounts();
  const uint64_t returned = s.bytes_unmapped + s.bytes_released;
  printf("meta_race: bytes_returned %llu, the page source's %llu\n",
         static_cast<unsigned long long>(c.bytes_returned),
         static_cast<unsigned long long>(returned));
  const uint64_t off = c.bytes_returned > returned
                           ? c.bytes_returned - returned
                           : returned - c.bytes_returned;
  return Verdict("meta_race", off, 0, "bytes_returned off by");
}

// Promise 2, waves: 8 MiB of 64-byte blocks freed by a thread that exits,
// then, kDecayNs / 2 later, four blocks of 6 MiB; each wave then waits
// kDecayNs from its own free, and a fresh thread (whose cache is never
// flushed) makes 2 * kDecayCheckOps calls.
int LargeWave() {
  internal::ScopedFakeClock clock;
  std::thread([] {
    std::vector<void*> blocks(size_t{8 << 20} / 64);
    for (void*& p : blocks) p = Allocate(64, 16, false);
    for (void* p : blocks) Free(p);
  }).join();
  clock.Advance(kDecayNs / 2);
  void* b[4];  // this thread's, which runs on: no exit trims the cache
  for (void*& p : b) p = Allocate(6 << 20, 16, false);
  for (void* p : b) Free(p);
  auto check = [] {
    std::thread([] {
      for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
        Free(Allocate(64, 16, false));
      }
    }).join();
  };
  clock.Advance(kDecayNs / 2);
  check();
  printf("large_wave: held %llu once the first wave decayed\n",
         static_cast<unsigned long long>(Held()));
  clock.Advance(kDecayNs / 2);
  check();
  return Verdict("large_wave", Held(), kIdleHeldBytes,
                 "bytes held once the second wave decayed");
}

// The child's counters go on from the parent's.
int ForkVisits() {
  for (int i = 0; i < 1000; ++i) Free(Allocate(64 << 10, 16, false));
  const uint64_t parent = ReadCounters().central_visits;
  fflush(stdout);
  ForkPrepare();
  const pid_t pid = fork();
  if (pid != 0) ForkParent();
  if (pid == 0) {
    allocator_design::ForkChild();
    const uint64_t child = ReadCounters().central_visits;
    printf("fork_visits: parent %llu, child %llu\n",
           static_cast<unsigned long long>(parent),
           static_cast<unsigned long long>(child));
    const int verdict = child >= parent ? 0 : 1;
    printf("fork_visits: %s\n", verdict == 0 ? "kept" : "BROKEN");
    fflush(stdout);
    _exit(verdict);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;
  if (argc != 2) {
    fprintf(stderr, "usage: rv2_driver <scenario>\n");
    return 2;
  }
  const char* s = argv[1];
  if (!strcmp(s, "exit_trim")) return ExitTrim();
  if (!strcmp(s, "phantom_live")) return PhantomLive();
  if (!strcmp(s, "large_ticks")) return LargeTicks();
  if (!strcmp(s, "big_spans")) return BigSpans();
  if (!strcmp(s, "own_lines_full")) return OwnLinesFull();
  if (!strcmp(s, "fork_child")) return ForkedChild();
  if (!strcmp(s, "meta_race")) return MetaRace();
  if (!strcmp(s, "large_wave")) return LargeWave();
  if (!strcmp(s, "fork_visits")) return ForkVisits();
  fprintf(stderr, "no scenario %s\n", s);
  return 2;
}
