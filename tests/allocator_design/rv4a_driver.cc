// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv4a_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv4a's drivers: one small scenario per promise of task.h (1, 2 and
// 5, and the Counters' rules) that a wrong allocator of the RV4A_*_MUTATIONS
// (BUILD) breaks, run against that allocator or against a correct design
// (rv4a_reference_driver, rv4a_segregated_fit_driver,
// rv4a_thread_owned_pages_driver). Each prints its figures and exits 1 when
// the promise is broken, 0 when kept. Every scenario starts from a fresh
// process (main() runs one), and each counts what the promise says by the
// suite's means: lock.h's observer, ReadCounters(), the blocks it has live,
// the page source's clock and a replay of traces.h.
//
// Example:
//
//   bazel run //tests/allocator_design:rv4a_owned_pages_sweep_skips_full_driver
//   -- running_owner
//   // running_owner: bytes held after the owner's kDecayCheckOps calls
//   // 17498112 (bound 4194304): BROKEN
//   bazel run //tests/allocator_design:rv4a_thread_owned_pages_driver --
//   running_owner
//   // running_owner: bytes held after the owner's kDecayCheckOps calls
//   // 786432 (bound 4194304): kept
//
// The scenarios: alignment_zero and zeroed (promise 1), running_owner,
// exiting_threads and boundary (promise 2), second_wave (Counters) and
// trace=<name> (promise 5, a trace of traces.h).

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
#include "labs/allocator_design/traces.h"

namespace allocator_design {
namespace {

#include "tests/allocator_design/review_driver.h"

// Promise 1 at the default alignment: alignment 0 is kMinAlignment (the
// shim's malloc() passes it). After a warm-up, 1600 calls (800 pairs of
// 64-byte blocks, in groups of 50) may take a lock at most 1600 /
// kOpsPerCentralVisit times: lock.h's observer counts this thread's.
thread_local uint64_t locks_taken = 0;
void CountLock(const Lock&, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquired) ++locks_taken;
}

int AlignmentZero() {
  void* blocks[50];
  auto round = [&blocks] {
    for (void*& p : blocks) p = Allocate(64, 0, false);
    for (void* p : blocks) Free(p);
  };
  for (int i = 0; i < 4; ++i) round();  // the warm-up
  internal::SetLockObserver(CountLock);
  for (int i = 0; i < 16; ++i) round();
  internal::SetLockObserver(nullptr);
  const uint64_t calls = 16 * 2 * 50;
  return Verdict("alignment_zero", locks_taken, calls / kOpsPerCentralVisit,
                 "locks taken over 1600 warm calls at alignment 0");
}

// Promise 1 for zeroed requests (calloc()): the same groups as
// alignment_zero, each block asked for zeroed, at alignment 16.
int Zeroed() {
  void* blocks[50];
  auto round = [&blocks] {
    for (void*& p : blocks) p = Allocate(64, kMinAlignment, true);
    for (void* p : blocks) Free(p);
  };
  for (int i = 0; i < 4; ++i) round();  // the warm-up
  internal::SetLockObserver(CountLock);
  for (int i = 0; i < 16; ++i) round();
  internal::SetLockObserver(nullptr);
  const uint64_t calls = 16 * 2 * 50;
  return Verdict("zeroed", locks_taken, calls / kOpsPerCentralVisit,
                 "locks taken over 1600 warm calls, zeroed");
}

// Promise 2, blocks a still-running thread allocated: thread A allocates
// 16 MiB of 1 KiB blocks and runs on; this thread frees them all; kDecayNs
// later A makes kDecayCheckOps calls (64-byte blocks), and so does this
// thread (128-byte ones). Everything is freed, kDecayNs has passed, the
// allocating thread has made its calls: at most kIdleHeldBytes held.
int RunningOwner() {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks(size_t{16 << 20} / 1024);
  std::atomic<int> step{0};
  std::thread a([&] {
    for (void*& p : blocks) p = Allocate(1024, 16, false);
    step = 1;
    while (step != 2) {
    }
    for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
      Free(Allocate(64, 16, false));
    }
    step = 3;
    while (step != 4) {
    }
  });
  while (step != 1) {
  }
  for (void* p : blocks) Free(p);
  printf("running_owner: held %llu after the frees\n",
         static_cast<unsigned long long>(Held()));
  clock.Advance(kDecayNs);
  step = 2;
  while (step != 3) {
  }
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(128, 16, false));
  const uint64_t held = Held();  // A still runs
  step = 4;
  a.join();
  return Verdict("running_owner", held, kIdleHeldBytes,
                 "bytes held after the owner's kDecayCheckOps calls");
}

// Promise 2, blocks of an exited thread, while other threads keep exiting:
// eight threads each allocate and free a 48-byte block and wait; thread A
// allocates 16 MiB of 64-byte blocks and exits; this thread frees them:
// every block is freed now. Then, eight times, kDecayNs / 4 passes, one of
// the waiting threads exits (no call of its own since the frees), and this
// thread makes kDecayCheckOps calls (pairs of 128 bytes). Two kDecayNs
// after the frees: at most kIdleHeldBytes held.
int ExitingThreads() {
  internal::ScopedFakeClock clock;
  constexpr int kWaiting = 8;
  std::atomic<int> ready{0};
  std::atomic<int> may_exit{0};
  std::vector<std::thread> waiting;
  for (int t = 0; t < kWaiting; ++t) {
    waiting.emplace_back([&, t] {
      Free(Allocate(48, 16, false));
      ++ready;
      while (may_exit.load() <= t) {
      }
    });
  }
  while (ready != kWaiting) {
  }
  std::vector<void*> blocks(size_t{16 << 20} / 64);
  std::thread([&blocks] {
    for (void*& p : blocks) p = Allocate(64, 16, false);
  }).join();
  for (void* p : blocks) Free(p);
  for (int round = 0; round < kWaiting; ++round) {
    clock.Advance(kDecayNs / 4);
    may_exit = round + 1;
    waiting[round].join();
    for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
      Free(Allocate(128, 16, false));
    }
  }
  return Verdict("exiting_threads", Held(), kIdleHeldBytes,
                 "bytes held 2 * kDecayNs after the frees, a thread exiting "
                 "every kDecayNs / 4");
}

// Promise 2 with the clock exactly at the boundary: this thread allocates
// and frees groups of 64 blocks of 16 sizes from 16 KiB to 256 KiB (its
// cache fills), then exactly kDecayNs passes and it makes kDecayCheckOps
// calls (pairs of 64 bytes).
int Boundary() {
  internal::ScopedFakeClock clock;
  void* blocks[64];
  for (size_t size = 16 << 10; size <= (256 << 10); size += 15 << 10) {
    for (void*& p : blocks) p = Allocate(size, 16, false);
    for (void* p : blocks) Free(p);
  }
  printf("boundary: held %llu after the frees\n",
         static_cast<unsigned long long>(Held()));
  clock.Advance(kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
    Free(Allocate(64, 16, false));
  }
  return Verdict("boundary", Held(), kIdleHeldBytes,
                 "bytes held exactly kDecayNs after the frees, after "
                 "kDecayCheckOps calls");
}

// Counters: a released range taken into use again is held again. A thread
// allocates 16 MiB of 64-byte blocks, frees them and exits; after kDecayNs
// and kDecayCheckOps calls the decay has released them; a second wave
// allocates 16 MiB of 64-byte blocks again and writes each: bytes_held may
// not be less than the bytes of the live blocks.
int SecondWave() {
  internal::ScopedFakeClock clock;
  const size_t count = size_t{16 << 20} / 64;
  std::thread([count] {
    std::vector<void*> blocks(count);
    for (void*& p : blocks) p = Allocate(64, 16, false);
    for (void* p : blocks) Free(p);
  }).join();
  clock.Advance(kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(128, 16, false));
  const Counters after_decay = ReadCounters();
  printf("second_wave: held %llu, returned %llu after the decay\n",
         static_cast<unsigned long long>(after_decay.bytes_held),
         static_cast<unsigned long long>(after_decay.bytes_returned));
  uint64_t shortfall = 0;
  std::thread([count, &shortfall] {
    std::vector<void*> blocks(count);
    for (void*& p : blocks) {
      p = Allocate(64, 16, false);
      memset(p, 1, 64);
    }
    const uint64_t held = Held();
    const uint64_t live = count * 64;
    printf("second_wave: %llu bytes live, %llu held\n",
           static_cast<unsigned long long>(live),
           static_cast<unsigned long long>(held));
    shortfall = held < live ? live - held : 0;
    for (void* p : blocks) Free(p);
  }).join();
  return Verdict("second_wave", shortfall, 0,
                 "bytes of live blocks beyond bytes_held");
}

// Promise 5: the trace `name` of traces.h, replayed in this fresh process:
// its utilization at least kMinUtilization.
int Utilization(const char* name) {
  std::optional<Trace> trace = BuildTrace(name);
  if (!trace.has_value()) {
    fprintf(stderr, "no trace %s\n", name);
    return 2;
  }
  absl::StatusOr<TraceResult> r = ReplayTrace(*trace);
  if (!r.ok()) {
    printf("trace %s: %s\n", name, r.status().ToString().c_str());
    return 1;
  }
  const bool kept = r->utilization >= kMinUtilization;
  printf(
      "trace %s: peak live %llu, peak held %llu, utilization %.3f "
      "(at least %.2f): %s\n",
      name, static_cast<unsigned long long>(r->peak_live_bytes),
      static_cast<unsigned long long>(r->peak_held_bytes), r->utilization,
      kMinUtilization, kept ? "kept" : "BROKEN");
  return kept ? 0 : 1;
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
  if (!strcmp(s, "alignment_zero")) return AlignmentZero();
  if (!strcmp(s, "zeroed")) return Zeroed();
  if (!strcmp(s, "running_owner")) return RunningOwner();
  if (!strcmp(s, "exiting_threads")) return ExitingThreads();
  if (!strcmp(s, "boundary")) return Boundary();
  if (!strcmp(s, "second_wave")) return SecondWave();
  if (!strncmp(s, "trace=", 6)) return Utilization(s + 6);
  fprintf(stderr, "unknown scenario %s\n", s);
  return 2;
}
