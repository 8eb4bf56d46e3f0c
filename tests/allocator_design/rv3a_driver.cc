// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv3a_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv3a's drivers: one small scenario per promise a wrong allocator of
// RV3A_MUTATIONS (BUILD) breaks, run against that allocator or against the
// design it was made from (rv3a_reference_driver, rv3a_segregated_fit_driver,
// rv3a_thread_owned_pages_driver). Each prints its figures and exits 1 when
// the promise is broken, 0 when kept. The figures are the suite's own kinds:
// the page source's counts, lock.h's observer, ReadCounters().
//
// Example:
//
//   bazel run //tests/allocator_design:rv3a_reference_driver -- spares
//   // spares: bytes held after kDecayCheckOps calls 1572864 (bound
//   //   kIdleHeldBytes 4194304): kept

#include <stdio.h>
#include <string.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "labs/allocator_design/internal/lock_testing.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

#include "tests/allocator_design/review_driver.h"

// Promise 2, the freeing thread runs on: it churns bursts of 2 MiB of
// blocks (at least 8) in each of 41 sizes from 256 bytes to 256 KiB, then,
// after kDecayNs, is itself the thread that makes kDecayCheckOps calls.
int Spares() {
  internal::ScopedFakeClock clock;
  std::thread([&clock] {
    for (int round = 0; round < 2; ++round) {
      for (size_t size = 256; size <= (256 << 10); size += size / 4) {
        size_t count = (size_t{2} << 20) / size;
        std::vector<void*> blocks(count < 8 ? 8 : count);
        for (void*& p : blocks) p = Allocate(size, 16, false);
        for (void* p : blocks) Free(p);
      }
    }
    printf("spares: held %llu after the bursts\n",
           static_cast<unsigned long long>(Held()));
    clock.Advance(kDecayNs);
    for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
      Free(Allocate(64, 16, false));
    }
    exit(Verdict("spares", Held(), kIdleHeldBytes,
                 "bytes held after kDecayCheckOps calls of the freeing "
                 "thread"));
  }).join();
  return 1;
}

// Promise 2, blocks of an exited thread freed by another: thread A
// allocates 16 MiB of 64-byte blocks and exits; this thread frees them,
// and kDecayNs after the frees makes kDecayCheckOps calls (of 128 bytes: a
// thread short of 64-byte blocks would take A's spans for its own).
int Abandoned() {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks(size_t{16 << 20} / 64);
  std::thread([&blocks] {
    for (void*& p : blocks) p = Allocate(64, 16, false);
  }).join();
  clock.Advance(kDecayNs / 4);  // the abandoned list swept before the frees
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(128, 16, false));
  for (void* p : blocks) Free(p);
  clock.Advance(kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(128, 16, false));
  return Verdict("abandoned", Held(), kIdleHeldBytes,
                 "bytes held kDecayNs after the frees, after kDecayCheckOps "
                 "calls");
}

// Promise 2, the owner alive and idle: thread A allocates 16 MiB of 64-byte
// blocks and waits, alive, never calling again; this thread frees them,
// and each kDecayNs after the frees, three times, makes kDecayCheckOps
// calls. The finding that gave promise 2 its last sentence (blocks a
// running thread allocated may wait for that thread): BROKEN here is the
// promise as it read before, which thread_owned_pages cannot keep; the
// sentence's own edges are decay_edges_test.cc's DesignDecay.ARunningOwners*.
int IdleOwner() {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks(size_t{16 << 20} / 64);
  std::atomic<int> step{0};
  std::thread a([&] {
    for (void*& p : blocks) p = Allocate(64, 16, false);
    step = 1;
    while (step != 2) {
    }
  });
  while (step != 1) {
  }
  for (void* p : blocks) Free(p);
  for (int round = 1; round <= 3; ++round) {  // the owner never calls again
    clock.Advance(kDecayNs);
    for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
      Free(Allocate(64, 16, false));
    }
    printf("idle_owner: %d * kDecayNs after the frees, held %llu\n", round,
           static_cast<unsigned long long>(Held()));
  }
  const uint64_t held = Held();
  step = 2;
  a.join();
  return Verdict(
      "idle_owner", held, kIdleHeldBytes,
      "bytes held 3 * kDecayNs after the frees, the allocating thread "
      "alive and idle");
}

// Promise 1, bytes: blocks of `size` bytes (over 8 KiB), allocated in groups
// of `group` and then freed, after a warm-up of 4 rounds; central visits over
// 16 rounds against one per kBytesPerCentralVisit bytes asked for.
int GroupedVisits(const char* name, size_t size, size_t group) {
  std::vector<void*> blocks(group);
  auto round = [&] {
    for (void*& p : blocks) p = Allocate(size, 16, false);
    for (void* p : blocks) Free(p);
  };
  for (int i = 0; i < 4; ++i) round();
  const uint64_t before = ReadCounters().central_visits;
  constexpr int kRounds = 16;
  for (int i = 0; i < kRounds; ++i) round();
  const uint64_t visits = ReadCounters().central_visits - before;
  const uint64_t bytes = uint64_t{2} * kRounds * group * size;
  uint64_t allowed = bytes / kBytesPerCentralVisit;
  const uint64_t by_ops = 2 * kRounds * group / kOpsPerCentralVisit;
  if (by_ops > allowed) allowed = by_ops;
  printf("%s: %llu calls of %zu bytes, groups of %zu\n", name,
         static_cast<unsigned long long>(2 * kRounds * group), size, group);
  return Verdict(name, visits, allowed, "central visits");
}

int BatchBytes() {
  int broken = 0;
  for (size_t size : {size_t{12 << 10} + 1, size_t{14 << 10} + 1,
                      size_t{20 << 10} + 1, size_t{28 << 10} + 1}) {
    broken |= GroupedVisits("batch_bytes", size, 64);
  }
  return broken;
}

// Promise 1, system calls: 100 KiB blocks (over 16 KiB: 1 MiB spans in the
// reference) allocated in groups of 40 and then freed; the page source's
// calls over 16 rounds after a warm-up of 4.
int BigSpanChurn() {
  std::vector<void*> blocks(40);
  auto round = [&] {
    for (void*& p : blocks) p = Allocate(100 << 10, 16, false);
    for (void* p : blocks) Free(p);
  };
  for (int i = 0; i < 4; ++i) round();
  const PageSourceCounts before = ReadPageSourceCounts();
  for (int i = 0; i < 16; ++i) round();
  const PageSourceCounts after = ReadPageSourceCounts();
  const uint64_t calls = (after.map_calls - before.map_calls) +
                         (after.unmap_calls - before.unmap_calls) +
                         (after.release_calls - before.release_calls);
  return Verdict("big_span_churn", calls, 0,
                 "page source calls over 16 warm rounds");
}

// Promise 1, no lock held while the page source maps: lock.h's observer
// counts the locks each thread holds; the map observer counts maps made
// while one was held, over large blocks, small refills and metadata.
thread_local int locks_held = 0;
std::atomic<int> maps_under_lock{0};
std::atomic<int> maps_seen{0};

void ObserveLock(const Lock&, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquired) ++locks_held;
  if (event == internal::LockEvent::kReleasing) --locks_held;
}

void ObserveMap() {
  ++maps_seen;
  if (locks_held != 0) ++maps_under_lock;
}

int LockAtMap() {
  internal::SetLockObserver(ObserveLock);
  internal::SetMapObserver(ObserveMap);
  std::vector<void*> live;
  for (size_t size : {size_t{300} << 10, size_t{1} << 20, size_t{4} << 20,
                      size_t{64}, size_t{100} << 10, size_t{16} << 20}) {
    for (int i = 0; i < 8; ++i) live.push_back(Allocate(size, 16, false));
  }
  for (void* p : live) Free(p);
  internal::SetMapObserver(nullptr);
  internal::SetLockObserver(nullptr);
  printf("lock_at_map: %d maps observed\n", maps_seen.load());
  return Verdict("lock_at_map", maps_under_lock.load(), 0,
                 "maps made with a lock held");
}

// Counters: bytes_held is what was mapped and not unmapped or released, a
// released range counted again once taken into use. Rounds of: 100 KiB
// blocks, every other one freed, the rest's free chunks idle for kDecayNs
// (released), then 40 KiB blocks carved from the released chunks, and all
// freed and idle again. Once everything is free and has decayed, held is
// at most what the page source has mapped and not unmapped.
int RestHeld() {
  internal::ScopedFakeClock clock;
  uint64_t worst = 0;
  int broken = 0;
  for (int round = 0; round < 4; ++round) {
    std::vector<void*> big(64), small;
    for (void*& p : big) p = Allocate(100 << 10, 16, false);
    for (size_t i = 0; i < big.size(); i += 2) Free(big[i]);
    clock.Advance(kDecayNs);
    for (uint64_t i = 0; i < 2 * kDecayCheckOps; ++i) {
      Free(Allocate(64, 16, false));
    }
    for (int i = 0; i < 64; ++i) small.push_back(Allocate(40 << 10, 16, false));
    for (size_t i = 1; i < big.size(); i += 2) Free(big[i]);
    for (void* p : small) Free(p);
    clock.Advance(kDecayNs);
    for (uint64_t i = 0; i < 2 * kDecayCheckOps; ++i) {
      Free(Allocate(64, 16, false));
    }
    const PageSourceCounts pc = ReadPageSourceCounts();
    const uint64_t mapped = pc.bytes_mapped - pc.bytes_unmapped;
    const uint64_t held = Held();
    printf("rest_held: round %d held %llu, mapped and not unmapped %llu\n",
           round, static_cast<unsigned long long>(held),
           static_cast<unsigned long long>(mapped));
    if (held > mapped) broken = 1;
    if (held > worst) worst = held;
  }
  printf("rest_held: %s\n", broken ? "BROKEN" : "kept");
  return broken;
}

// Promise 2, a thread that only frees: thread A allocates 16 MiB of 64-byte
// blocks and kDecayCheckOps more, and exits; this thread frees the 16 MiB,
// and kDecayNs later frees the kDecayCheckOps others, its only calls.
int RemoteTicks() {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks(size_t{16 << 20} / 64), checking(kDecayCheckOps);
  std::thread([&] {
    for (void*& p : blocks) p = Allocate(64, 16, false);
    for (void*& p : checking) p = Allocate(64, 16, false);
  }).join();
  for (void* p : blocks) Free(p);
  clock.Advance(kDecayNs);
  for (void* p : checking) Free(p);
  return Verdict("remote_ticks", Held(), kIdleHeldBytes,
                 "bytes held after kDecayCheckOps frees, kDecayNs after the "
                 "others");
}

// Promise 1, bursts: blocks over 8 KiB allocated in groups of 256 and freed.
int SpareBursts() {
  int broken = 0;
  for (size_t size : {size_t{10} << 10, size_t{12} << 10, size_t{16} << 10}) {
    broken |= GroupedVisits("spare_bursts", size, 256);
  }
  return broken;
}

// Counters, while another thread releases: three 100 KiB blocks a, b, c
// side by side; b freed (its thread exits, its cache given back) and idle
// kDecayNs; a thread's decay releases b's pages and is stopped (lock.h's
// observer) before it takes the lock again to file b, while another thread
// frees a, beside b. Then c is freed, and everything decays; the checking
// calls are large blocks (a mapping each, gone at their free). Once all is
// free and decayed, bytes_held is at most what the page source has mapped
// and not unmapped.
thread_local bool watched = false;
std::atomic<int> watched_acquires{0};
std::atomic<bool> parked{false}, go{false};

void ParkSecondAcquire(const Lock&, internal::LockEvent event) {
  if (!watched || event != internal::LockEvent::kAcquiring) return;
  if (++watched_acquires != 2) return;
  parked = true;
  while (!go) {
  }
}

void LargeCalls(uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) Free(Allocate(300 << 10, 16, false));
}

int MergeRace() {
  internal::ScopedFakeClock clock;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  std::thread([&] {
    a = Allocate(100 << 10, 16, false);
    b = Allocate(100 << 10, 16, false);
    c = Allocate(100 << 10, 16, false);
    Free(b);
  }).join();
  clock.Advance(kDecayNs);
  internal::SetLockObserver(ParkSecondAcquire);
  std::thread decayer([] {
    watched = true;
    LargeCalls(1);  // its first call ticks: the decay pass
    watched = false;
  });
  while (!parked) {
  }
  std::thread([&] { Free(a); }).join();
  go = true;
  decayer.join();
  internal::SetLockObserver(nullptr);
  std::thread([&] { Free(c); }).join();
  for (int i = 0; i < 3; ++i) {
    clock.Advance(kDecayNs);
    std::thread([] { LargeCalls(kDecayCheckOps); }).join();
  }
  const PageSourceCounts pc = ReadPageSourceCounts();
  const uint64_t mapped = pc.bytes_mapped - pc.bytes_unmapped;
  printf("merge_race: mapped and not unmapped %llu, released %llu\n",
         static_cast<unsigned long long>(mapped),
         static_cast<unsigned long long>(pc.bytes_released));
  return Verdict("merge_race", Held(), mapped,
                 "bytes held once everything is free and decayed");
}

// Promise 1, two sizes of one bin of segregated_fit (1100 and 1200 bytes),
// allocated and freed in pairs: central visits per kOpsPerCentralVisit calls.
int TwoSizes() {
  auto round = [] {
    void* a = Allocate(1100, 16, false);
    void* b = Allocate(1200, 16, false);
    Free(a);
    Free(b);
  };
  for (int i = 0; i < 64; ++i) round();
  const uint64_t before = ReadCounters().central_visits;
  constexpr int kRounds = 256;
  for (int i = 0; i < kRounds; ++i) round();
  const uint64_t visits = ReadCounters().central_visits - before;
  return Verdict("two_sizes", visits, 4 * kRounds / kOpsPerCentralVisit,
                 "central visits over 1024 calls");
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;  // NOLINT: a driver's main
  if (argc != 2) {
    fprintf(stderr, "usage: %s <scenario>\n", argv[0]);
    return 2;
  }
  const char* s = argv[1];
  if (!strcmp(s, "spares")) return Spares();
  if (!strcmp(s, "abandoned")) return Abandoned();
  if (!strcmp(s, "idle_owner")) return IdleOwner();
  if (!strcmp(s, "batch_bytes")) return BatchBytes();
  if (!strcmp(s, "big_span_churn")) return BigSpanChurn();
  if (!strcmp(s, "lock_at_map")) return LockAtMap();
  if (!strcmp(s, "rest_held")) return RestHeld();
  if (!strcmp(s, "two_sizes")) return TwoSizes();
  if (!strcmp(s, "remote_ticks")) return RemoteTicks();
  if (!strcmp(s, "spare_bursts")) return SpareBursts();
  if (!strcmp(s, "merge_race")) return MergeRace();
  fprintf(stderr, "unknown scenario %s\n", s);
  return 2;
}
