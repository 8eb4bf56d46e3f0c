// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv9_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv9's driver: one small scenario per wrong allocator the review
// wrote (its five that passed the suite are known-bads, RV9_... in BUILD),
// linked with each known-bad's library and with each correct design
// (rv9_<name>_driver, rv9_reference_driver, rv9_segregated_fit_driver,
// rv9_thread_owned_pages_driver). Each prints its figure and exits 1 when
// the rule is broken, 0 when kept: the evidence each known-bad breaks what
// it is named for.
//
//   adopt           threads that come and go, each leaving its 64 blocks of
//                   100 B to main, which frees them after the thread exited
//                   (promise 3/4: bytes held, the clock standing still)
//   unarmed_decay   an exited thread's 20 MiB of 1 KiB blocks freed by main,
//                   which never allocates a small block; a second later
//                   main's 1024 checking calls are large pairs (promise 2)
//   visits          calls that take a lock.h lock but count no central visit
//                   (Counters: central_visits counts every lock taken)
//   zero_stale      a large block freed, the clock a second on, the same size
//                   asked zeroed (Validator: zeroed on recycled memory)
//   producer SIZE [DEPTH]  a producer's central visits against promise 1's
//                   byte rule, its consumer freeing one message per message
//                   allocated, DEPTH (32) live
//   large_ticks     8 MiB of 4 KiB blocks freed, a second, then 1024 calls
//                   of large pairs, at every phase of the thread's tick
//                   (promise 2)
//   bursts SIZE GROUP  one thread allocates GROUP blocks of SIZE and frees
//                   them, round after round (promise 1)
//   large_trace     traces like traces.h's "large", 20 seeds (promise 5)
//   aligned_cache   a cached large block, the same size asked at 128 KiB to
//                   1 MiB alignment (Validator: aligned as asked)
//   fork_mid_exit   a child forked while a thread's exit waits to abandon
//                   its spans frees that thread's blocks (promise 2)
//   adopted_producer [DEPTH]  a producer that adopted a span whose
//                   earlier owner had collected other threads' frees from
//                   it (promise 1)
//   abandoned_churn 64 producers of a 256 KiB block each, live at once,
//                   exit; 64 consumers free one each and exit (promise 3)
//   growing_large   a producer of large messages each 8 KiB larger than
//                   the last (256 KiB + 1 to 760 KiB), one live at a time
//                   (promise 4)

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "labs/allocator_design/internal/lock_testing.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

#include "tests/allocator_design/review_driver.h"

int Adopt() {
  internal::ScopedFakeClock clock;
  for (int round = 0; round < 1000; ++round) {
    void* blocks[64];
    std::thread t([&] {
      for (void*& b : blocks) b = Allocate(100, 0, false);
    });
    t.join();
    for (void* b : blocks) Free(b);
  }
  return Verdict("adopt", Held(), kThreadChurnHeldBytes,
                 "bytes held after 1000 threads each left 64 blocks of 100 B "
                 "to main, which freed them");
}

int UnarmedDecay() {
  internal::ScopedFakeClock clock;
  constexpr int kBlocks = 20 * 1024;
  std::vector<void*> blocks(kBlocks);  // main's only small allocation
  std::thread t([&] {
    for (void*& b : blocks) b = Allocate(1024, 0, false);
  });
  t.join();
  for (void* b : blocks) Free(b);
  const uint64_t before = Held();
  clock.Advance(kDecayNs + kDecayNs / 10);
  for (int i = 0; i < static_cast<int>(kDecayCheckOps) / 2; ++i) {
    Free(Allocate(300 << 10, 0, false));
  }
  printf("unarmed_decay: held before the second %llu\n",
         static_cast<unsigned long long>(before));
  return Verdict("unarmed_decay", Held(), kIdleHeldBytes,
                 "bytes held after 1024 large calls a second after the frees");
}

// Locks taken by this thread outside ReadCounters().
thread_local int locks_taken = 0;
thread_local bool reading = false;
void CountLock(const Lock&, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquired && !reading) ++locks_taken;
}
uint64_t Visits() {
  reading = true;
  const uint64_t v = ReadCounters().central_visits;
  reading = false;
  return v;
}

int VisitsCounted() {
  internal::ScopedFakeClock clock;
  internal::SetLockObserver(CountLock);
  std::atomic<int> uncounted{0};
  // Every block stays live to the end: an abandoned span then has blocks
  // out and nothing on its thread-free list, and its adoption collects
  // nothing (a collection is a visit of its own).
  std::vector<void*> live;
  for (int round = 0; round < 200; ++round) {
    void* blocks[64];
    std::thread t([&] {
      for (void*& b : blocks) {
        const int locks = locks_taken;
        const uint64_t visits = Visits();
        b = Allocate(100, 0, false);
        if (locks_taken != locks && Visits() == visits) ++uncounted;
      }
    });
    t.join();
    live.insert(live.end(), blocks, blocks + 64);
  }
  internal::SetLockObserver(nullptr);
  for (void* b : live) Free(b);
  return Verdict("visits", uncounted.load(), 0,
                 "allocations that took a lock and counted no central visit");
}

int ZeroStale() {
  internal::ScopedFakeClock clock;
  int bad = 0;
  for (size_t size :
       {size_t{300} << 10, (size_t{256} << 10) + 1, size_t{1} << 20}) {
    char* p = static_cast<char*>(Allocate(size, 0, false));
    memset(p, 0xAB, size);
    Free(p);
    clock.Advance(kDecayNs + 1);
    char* q = static_cast<char*>(Allocate(size, 0, true));
    size_t nonzero = 0;
    for (size_t i = 0; i < size; ++i) nonzero += q[i] != 0;
    printf("zero_stale: size %zu: same block %d, nonzero bytes %zu\n", size,
           p == q, nonzero);
    bad += nonzero != 0;
    Free(q);
  }
  return Verdict("zero_stale", bad, 0, "zeroed requests that read non-zero");
}

int Producer(size_t size, int kDepth) {
  // One message at a time, in lockstep: the producer allocates message i,
  // then the consumer frees message i - kDepth + 1, the oldest live one, so
  // that other threads' frees reach the producer's spans one by one.
  constexpr int kMessages = 20000;
  constexpr int kWarmup = 2000;
  std::vector<void*> ring(kDepth);
  std::atomic<int> turn{0};  // 0: producer's, 1: consumer's, 2: done
  std::atomic<int> at{0};
  uint64_t visits = 0;
  uint64_t calls = 0;
  std::thread consumer([&] {
    for (;;) {
      int t;
      while ((t = turn.load()) == 0) std::this_thread::yield();
      if (t == 2) return;
      void*& oldest = ring[(at.load() + 1) % kDepth];
      Free(oldest);
      oldest = nullptr;
      turn.store(0);
    }
  });
  for (int i = 0; i < kMessages; ++i) {
    while (turn.load() != 0) std::this_thread::yield();
    const uint64_t before = ReadCounters().central_visits;
    ring[i % kDepth] = Allocate(size, 0, false);
    const uint64_t after = ReadCounters().central_visits;
    if (i >= kWarmup) {
      visits += after - before;
      ++calls;
    }
    at.store(i);
    turn.store(1);
  }
  while (turn.load() != 0) std::this_thread::yield();
  turn.store(2);
  consumer.join();
  const uint64_t per_call = size > kBytesPerCentralVisit / kOpsPerCentralVisit
                                ? size
                                : kBytesPerCentralVisit / kOpsPerCentralVisit;
  const uint64_t allowed = calls * per_call / kBytesPerCentralVisit;
  char name[64];
  snprintf(name, sizeof(name), "producer %zu depth %d", size, kDepth);
  return Verdict(name, visits, allowed,
                 "the producer's central visits after warm-up");
}

int LargeTicksAt(int offset) {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks(2048);
  for (void*& b : blocks) b = Allocate(4096, 0, false);
  for (void* b : blocks) Free(b);
  for (int i = 0; i < offset; ++i) Free(Allocate(64, 0, false));
  clock.Advance(kDecayNs + kDecayNs / 10);
  for (int i = 0; i < static_cast<int>(kDecayCheckOps) / 2; ++i) {
    Free(Allocate(300 << 10, 0, false));
  }
  printf("large_ticks: offset %d: held %llu\n", offset,
         static_cast<unsigned long long>(Held()));
  return Held() > kIdleHeldBytes;
}

int LargeTicks() {
  int broken = 0;
  for (int offset = 0; offset < 1024; offset += 128) {
    const pid_t pid = fork();
    if (pid == 0) {
      const int broken = LargeTicksAt(offset);
      fflush(stdout);
      _exit(broken);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    broken += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  return Verdict("large_ticks", broken, 0,
                 "phases of the tick at which 1024 calls left more than "
                 "kIdleHeldBytes held");
}

int AbandonedChurn() {
  // 64 producers live at once, each allocating one block of 256 KiB (a span
  // of its own each) and exiting; then 64 consumers, one at a time, each
  // freeing one of those blocks and exiting. The clock stands still.
  internal::ScopedFakeClock clock;
  constexpr int kThreads = 64;
  void* blocks[kThreads];
  std::atomic<int> ready{0};
  std::vector<std::thread> producers;
  for (int i = 0; i < kThreads; ++i) {
    producers.emplace_back([&, i] {
      blocks[i] = Allocate(256 << 10, 0, false);
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
    });
  }
  for (std::thread& t : producers) t.join();
  const uint64_t peak = Held();
  for (int i = 0; i < kThreads; ++i) {
    std::thread([&, i] { Free(blocks[i]); }).join();
  }
  printf("abandoned_churn: held with the blocks live %llu\n",
         static_cast<unsigned long long>(peak));
  return Verdict("abandoned_churn", Held(), kThreadChurnHeldBytes,
                 "bytes held once producers and consumers all exited");
}

int GrowingLarge() {
  // A producer of large messages, each 8 KiB larger than the last (a
  // buffer that grows) from 256 KiB + 1 to 760 KiB, round after round, its
  // consumer freeing each before the next: one message live at a time.
  // The clock stands still.
  internal::ScopedFakeClock clock;
  uint64_t most = 0;
  void* msg = nullptr;
  std::atomic<int> turn{0};
  std::thread consumer([&] {
    for (int i = 0; i < 400; ++i) {
      while (turn.load() != 1) std::this_thread::yield();
      Free(msg);
      turn.store(0);
    }
  });
  std::thread producer([&] {
    for (int i = 0; i < 400; ++i) {
      while (turn.load() != 0) std::this_thread::yield();
      // 256 KiB + 1 to 760 KiB, then again from the start.
      msg = Allocate((size_t{256} << 10) + 1 + (i % 64) * (size_t{8} << 10), 0,
                     false);
      const uint64_t held = Held();
      if (held > most) most = held;
      turn.store(1);
    }
  });
  producer.join();
  consumer.join();
  return Verdict("growing_large", most, kMessagePassingHeldBytes,
                 "the most bytes held, one growing large message live");
}

int Bursts(size_t size, int group) {
  // One thread allocates `group` blocks of `size` and frees them all, round
  // after round: its central visits after a warm-up against promise 1's
  // count (once per kOpsPerCentralVisit calls, or per kBytesPerCentralVisit
  // of the sizes asked for above 8 KiB).
  std::vector<void*> blocks(group);
  constexpr int kRounds = 200;
  uint64_t visits = 0;
  uint64_t calls = 0;
  for (int round = 0; round < kRounds; ++round) {
    const uint64_t before = ReadCounters().central_visits;
    for (void*& b : blocks) b = Allocate(size, 0, false);
    for (void* b : blocks) Free(b);
    const uint64_t after = ReadCounters().central_visits;
    if (round >= 20) {
      visits += after - before;
      calls += 2 * group;
    }
  }
  const uint64_t allowed = size > kBytesPerCentralVisit / kOpsPerCentralVisit
                               ? calls * size / kBytesPerCentralVisit
                               : calls / kOpsPerCentralVisit;
  char name[64];
  snprintf(name, sizeof(name), "bursts %zu x %d", size, group);
  return Verdict(name, visits, allowed, "central visits after warm-up");
}

int LargeTrace() {
  // Traces like traces.h's "large": blocks of 256 KiB to 4 MiB, 4 to 8 of
  // them live, replaced at random, 120 operations; each seed in a child of
  // its own. Promise 5: peak live bytes asked for / peak bytes held.
  double worst = 1.0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0) return 2;
    const pid_t pid = fork();
    if (pid == 0) {
      uint64_t x = seed * 0x9E3779B97F4A7C15ull;
      auto next = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
      };
      auto uniform = [&](uint64_t lo, uint64_t hi) {
        return lo + next() % (hi - lo + 1);
      };
      std::vector<std::pair<void*, size_t>> live;
      uint64_t live_bytes = 0, peak_live = 0, peak_held = 0;
      const uint64_t base = Held();
      for (int i = 0; i < 120; ++i) {
        const bool allocate =
            live.size() < 4 || (live.size() < 8 && uniform(0, 1) == 0);
        if (allocate) {
          const size_t lo = size_t{1} << uniform(18, 21);
          const size_t size = uniform(lo, 2 * lo - 1);
          live.push_back({Allocate(size, 0, false), size});
          live_bytes += size;
        } else {
          const size_t k = uniform(0, live.size() - 1);
          Free(live[k].first);
          live_bytes -= live[k].second;
          live[k] = live.back();
          live.pop_back();
        }
        peak_live = std::max(peak_live, live_bytes);
        peak_held = std::max<uint64_t>(peak_held, Held() - base);
      }
      const double u = static_cast<double>(peak_live) / peak_held;
      if (write(pipe_fd[1], &u, sizeof(u)) != sizeof(u)) _exit(2);
      _exit(0);
    }
    double u = 0;
    if (read(pipe_fd[0], &u, sizeof(u)) != sizeof(u)) u = 0;
    waitpid(pid, nullptr, 0);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    worst = std::min(worst, u);
  }
  printf(
      "large_trace: the worst utilization of 20 seeds %.3f (at least %.2f)"
      ": %s\n",
      worst, kMinUtilization, worst >= kMinUtilization ? "kept" : "BROKEN");
  return worst >= kMinUtilization ? 0 : 1;
}

int AlignedCache() {
  // A large block at the default alignment freed into the cache, then the
  // same size asked at each alignment from 128 KiB to 1 MiB.
  int misaligned = 0;
  for (size_t alignment = size_t{128} << 10; alignment <= (size_t{1} << 20);
       alignment *= 2) {
    for (int i = 0; i < 8; ++i) {
      void* p = Allocate(300 << 10, 0, false);
      Free(p);
      void* q = Allocate(300 << 10, alignment, false);
      if (reinterpret_cast<uintptr_t>(q) % alignment != 0) {
        printf("aligned_cache: %p at alignment %zu (the cached block %p)\n", q,
               alignment, p);
        ++misaligned;
      }
      Free(q);
    }
  }
  return Verdict("aligned_cache", misaligned, 0, "blocks not aligned as asked");
}

// Parks the thread that set `exiting` at its next lock (its ThreadExit()'s
// first: the abandoned list's, its spans taken off its lists), until
// `exit_go`.
std::atomic<bool> exit_parked{false};
std::atomic<bool> exit_go{false};
thread_local bool exiting = false;
void ParkExit(const Lock&, internal::LockEvent event) {
  if (event != internal::LockEvent::kAcquiring || !exiting) return;
  exiting = false;
  exit_parked.store(true);
  while (!exit_go.load()) std::this_thread::yield();
}

int ForkMidExit() {
  // A thread allocates 20 MiB of 1 KiB blocks, hands them to main and
  // exits; main forks while that exit has taken its spans off its lists and
  // waits to abandon them. The child frees every block, a second passes,
  // and it makes 1024 calls (promise 2 in a forked child).
  internal::ScopedFakeClock clock;
  constexpr int kBlocks = 20 * 1024;
  std::vector<void*> blocks(kBlocks);
  internal::SetLockObserver(ParkExit);
  std::thread t([&] {
    for (void*& b : blocks) b = Allocate(1024, 0, false);
    exiting = true;
  });
  while (!exit_parked.load()) std::this_thread::yield();
  ForkPrepare();
  const pid_t pid = fork();
  if (pid == 0) {
    ForkChild();
    internal::SetLockObserver(nullptr);
    for (void* b : blocks) Free(b);
    clock.Advance(kDecayNs + kDecayNs / 10);
    for (int i = 0; i < static_cast<int>(kDecayCheckOps) / 2; ++i) {
      Free(Allocate(64, 0, false));
    }
    const int verdict =
        Verdict("fork_mid_exit (child)", Held(), kIdleHeldBytes,
                "bytes held after the child freed an exiting thread's "
                "blocks and made 1024 calls a second later");
    fflush(stdout);
    _exit(verdict);
  }
  ForkParent();
  exit_go.store(true);
  t.join();
  internal::SetLockObserver(nullptr);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int AdoptedProducer(int depth) {
  // Thread A allocates a span's worth of blocks of 8193 bytes (51 in its
  // 512 KiB span), main frees 50 of them, A allocates 50 more (its collection
  // takes those back) and exits with all 51 out; main frees 50 again. Then a
  // producer adopts that span and sends messages of 8193 bytes to a
  // consumer, `depth` live at once (promise 1 for the producer).
  constexpr size_t kSize = 8193;
  std::vector<void*> first(51), second(50);
  std::atomic<int> step{0};
  std::thread a([&] {
    for (void*& b : first) b = Allocate(kSize, 0, false);
    step.store(1);
    while (step.load() != 2) std::this_thread::yield();
    for (void*& b : second) b = Allocate(kSize, 0, false);
  });
  while (step.load() != 1) std::this_thread::yield();
  for (int i = 0; i < 50; ++i) Free(first[i]);
  step.store(2);
  a.join();
  for (void* b : second) Free(b);
  uint64_t visits = 0, calls = 0;
  std::vector<void*> ring(depth);
  std::atomic<int> turn{0};
  std::atomic<int> at{0};
  std::thread consumer([&] {
    for (;;) {
      int t;
      while ((t = turn.load()) == 0) std::this_thread::yield();
      if (t == 2) return;
      void*& oldest = ring[(at.load() + 1) % depth];
      Free(oldest);
      oldest = nullptr;
      turn.store(0);
    }
  });
  std::thread producer([&] {
    for (int i = 0; i < 20000; ++i) {
      while (turn.load() != 0) std::this_thread::yield();
      const uint64_t before = ReadCounters().central_visits;
      ring[i % depth] = Allocate(kSize, 0, false);
      const uint64_t after = ReadCounters().central_visits;
      if (i >= 2000) {
        visits += after - before;
        ++calls;
      }
      at.store(i);
      turn.store(1);
    }
    while (turn.load() != 0) std::this_thread::yield();
    turn.store(2);
  });
  producer.join();
  consumer.join();
  Free(first[50]);
  char name[64];
  snprintf(name, sizeof(name), "adopted_producer depth %d", depth);
  return Verdict(name, visits, calls * kSize / kBytesPerCentralVisit,
                 "the adopting producer's central visits after warm-up");
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;
  const char* s = argc > 1 ? argv[1] : "";
  if (strcmp(s, "adopt") == 0) return Adopt();
  if (strcmp(s, "unarmed_decay") == 0) return UnarmedDecay();
  if (strcmp(s, "visits") == 0) return VisitsCounted();
  if (strcmp(s, "zero_stale") == 0) return ZeroStale();
  if (strcmp(s, "producer") == 0 && argc > 2) {
    return Producer(strtoull(argv[2], nullptr, 10),
                    argc > 3 ? atoi(argv[3]) : 32);
  }
  if (strcmp(s, "large_ticks") == 0) return LargeTicks();
  if (strcmp(s, "abandoned_churn") == 0) return AbandonedChurn();
  if (strcmp(s, "fork_mid_exit") == 0) return ForkMidExit();
  if (strcmp(s, "adopted_producer") == 0) {
    return AdoptedProducer(argc > 2 ? atoi(argv[2]) : 40);
  }
  if (strcmp(s, "large_trace") == 0) return LargeTrace();
  if (strcmp(s, "aligned_cache") == 0) return AlignedCache();
  if (strcmp(s, "bursts") == 0 && argc > 3) {
    return Bursts(strtoull(argv[2], nullptr, 10), atoi(argv[3]));
  }
  if (strcmp(s, "growing_large") == 0) return GrowingLarge();
  fprintf(stderr, "usage: %s SCENARIO [SIZE]\n", argv[0]);
  return 2;
}
