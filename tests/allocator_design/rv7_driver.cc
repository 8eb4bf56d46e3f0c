// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv7_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv7's drivers: one small scenario per promise a wrong allocator of
// RV7_MUTATIONS and RV7_SEGREGATED_FIT_MUTATIONS (BUILD) breaks, run against
// that allocator or against the correct designs (rv7_reference_driver,
// rv7_segregated_fit_driver, rv7_thread_owned_pages_driver). Each prints its
// figures and exits 1 when the promise is broken, 0 when kept. Every one is
// a fork while the parent's threads give memory back with no lock held,
// each stopped by the page source's table observer at the first check of
// a release or unmap, so that the child inherits work in flight.
//
// The scenarios: returned_across_fork (the Counters: bytes_returned never
// goes down, and a child's go on from the parent's;
// rv7_fork_child_counts_begun_unmap_held), decay_pass_in_flight (promise 2
// in a child forked while a decay pass releases every idle span;
// rv7_fork_recovered_spans_never_due), batch_unmap_in_flight (promise 2 in
// a child forked while an exit unmaps a batch of large mappings;
// rv7_forgotten_large_marked_unmapping), two_exits_in_flight (promise 2 in
// a child forked while two exits release what they emptied;
// rv7_segfit_fork_recovers_first_record_only), regions_in_flight (the
// Counters say what the page source counted, in a child forked while a
// decay pass unmaps regions; rv7_segfit_fork_child_counts_gone_again) and
// child_frees_others_blocks (promise 2 in a child that frees the blocks of
// a parent's thread it does not have).
//
// Example:
//
//   bazel run //tests/allocator_design:rv7_reference_driver --
//   returned_across_fork
//   // returned_across_fork (child): bytes by which bytes_returned went
//   //   down across the fork 0 (bound 0): kept

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

#include "tests/allocator_design/review_driver.h"

// Parks the thread of the first release or unmap check after each Arm(),
// until Go(): the thread is then inside the allocator's giving-back, with
// no lock held.
std::atomic<int> park_armed{0};
std::atomic<int> parked{0};
std::atomic<bool> park_go{false};

void ParkAtCheck(internal::TableStep step, int) {
  if (step != internal::TableStep::kWalkRead) return;
  int expected = 1;
  if (!park_armed.compare_exchange_strong(expected, 0)) return;
  parked.fetch_add(1);
  while (!park_go.load()) sched_yield();
}

// Arms the park and waits until `then` has made a thread park there, or
// (a design with nothing to give back there) for two seconds of the real
// clock, a driver's patience only: the scenario goes on either way.
void ArmAndWait(const std::function<void()>& then) {
  const int before = parked.load();
  park_armed = 1;
  then();
  for (int i = 0; i < 2000 && parked.load() == before; ++i) usleep(1000);
  if (parked.load() == before) {
    park_armed = 0;
    printf("(no thread parked: nothing given back there)\n");
  }
}

// Bytes the page source has mapped and not unmapped.
uint64_t PageSourceLive() {
  const PageSourceCounts c = ReadPageSourceCounts();
  return c.bytes_mapped - c.bytes_unmapped;
}

// `mib` MiB of blocks of 8,000 bytes, every byte written.
std::vector<void*> Blocks(int mib) {
  std::vector<void*> blocks;
  for (int i = 0; i < mib * 131; ++i) {
    void* p = Allocate(8000, 16, false);
    memset(p, 1, 8000);
    blocks.push_back(p);
  }
  return blocks;
}

// The child's checking calls once kDecayNs has passed: then at most
// kIdleHeldBytes held, by the allocator's count and by the resident bytes.
int ChildDecays(const char* name, internal::ScopedFakeClock& clock) {
  clock.Advance(kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; i += 2) {
    Free(Allocate(64, 16, false));
  }
  const uint64_t counted = Held();
  const uint64_t resident = internal::ResidentMappedBytes().value_or(0);
  return Verdict(name, counted, kIdleHeldBytes,
                 "bytes_held after the checking calls") |
         Verdict(name, resident, kIdleHeldBytes,
                 "resident bytes after the checking calls");
}

// Forks with every thread parked (ForkPrepare(), fork(), ForkChild()),
// runs `child` in the child and returns its verdict; the parked threads
// go on in the parent once the child is done.
int ForkAndJudge(const std::function<int()>& child) {
  fflush(stdout);
  ForkPrepare();
  const pid_t pid = fork();
  if (pid == 0) {
    ForkChild();
    internal::SetTableObserver(nullptr);
    const int verdict = child();
    fflush(stdout);
    _exit(verdict);
  }
  ForkParent();
  int status = 0;
  waitpid(pid, &status, 0);
  park_go = true;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

// The Counters across a fork: thread T frees a block of 64 MiB (past any
// cache: unmapped at once) and is stopped inside its unmap. This thread
// reads the counters, then forks; the child's first read must not have
// bytes_returned (nor central_visits) below the parent's last.
int ReturnedAcrossFork() {
  internal::SetTableObserver(ParkAtCheck);
  void* big = Allocate(size_t{64} << 20, 16, false);
  std::thread t;
  ArmAndWait([&] { t = std::thread([big] { Free(big); }); });
  const Counters before = ReadCounters();
  const int verdict = ForkAndJudge([&] {
    const Counters after = ReadCounters();
    printf(
        "returned_across_fork: parent's last read returned %llu, child's "
        "first %llu\n",
        static_cast<unsigned long long>(before.bytes_returned),
        static_cast<unsigned long long>(after.bytes_returned));
    const uint64_t down = after.bytes_returned < before.bytes_returned
                              ? before.bytes_returned - after.bytes_returned
                              : 0;
    const uint64_t visits_down =
        after.central_visits < before.central_visits
            ? before.central_visits - after.central_visits
            : 0;
    return Verdict("returned_across_fork (child)", down, 0,
                   "bytes by which bytes_returned went down across the fork") |
           Verdict("returned_across_fork (child)", visits_down, 0,
                   "central visits by which central_visits went down");
  });
  t.join();
  internal::SetTableObserver(nullptr);
  return verdict;
}

// Promise 2 in a child forked while a decay pass gives back: thread T
// allocates 40 MiB of blocks of 8,000 bytes, frees them and runs on; the
// clock moves by kDecayNs and T makes its checking calls, whose decay pass
// takes every idle span and is stopped inside its first release. The child
// then waits kDecayNs and makes its own checking calls.
int DecayPassInFlight() {
  internal::ScopedFakeClock clock;
  internal::SetTableObserver(ParkAtCheck);
  std::atomic<int> step{0};
  std::thread t([&] {
    std::vector<void*> blocks = Blocks(40);
    for (void* p : blocks) Free(p);
    step = 1;
    while (step.load() != 2) sched_yield();
    for (uint64_t i = 0; i < kDecayCheckOps; i += 2) {
      Free(Allocate(64, 16, false));
    }
  });
  while (step.load() != 1) sched_yield();
  clock.Advance(kDecayNs);
  ArmAndWait([&] { step = 2; });
  const int verdict = ForkAndJudge(
      [&] { return ChildDecays("decay_pass_in_flight (child)", clock); });
  t.join();
  internal::SetTableObserver(nullptr);
  return verdict;
}

// Promise 2 in a child forked while an exit unmaps a batch: thread T
// allocates 12 blocks of 2 MiB (every byte written), frees them (a cache of
// recent large mappings may keep them) and exits; its exit gives back what
// it keeps past a few MiB, and is stopped inside the first unmap. The child
// waits kDecayNs and makes its checking calls: only the one mapping whose
// unmap had begun may stay.
int BatchUnmapInFlight() {
  internal::ScopedFakeClock clock;
  internal::SetTableObserver(ParkAtCheck);
  std::atomic<int> step{0};
  std::thread t([&] {
    std::vector<void*> blocks;
    for (int i = 0; i < 12; ++i) {
      void* p = Allocate(size_t{2} << 20, 16, false);
      memset(p, 1, size_t{2} << 20);
      blocks.push_back(p);
    }
    for (void* p : blocks) Free(p);
    step = 1;
    while (step.load() != 2) sched_yield();
  });
  while (step.load() != 1) sched_yield();
  ArmAndWait([&] { step = 2; });
  const int verdict = ForkAndJudge([&] {
    printf("batch_unmap_in_flight (child): page source live %llu, held %llu\n",
           static_cast<unsigned long long>(PageSourceLive()),
           static_cast<unsigned long long>(Held()));
    return ChildDecays("batch_unmap_in_flight (child)", clock);
  });
  t.join();
  internal::SetTableObserver(nullptr);
  return verdict;
}

// Promise 2 in a child forked while two exits give back: threads A, then
// B, each allocate 20 MiB of blocks of 8,000 bytes (every byte written),
// free them and exit; each exit is stopped inside its first release. The
// child waits kDecayNs and makes its checking calls.
int TwoExitsInFlight() {
  internal::ScopedFakeClock clock;
  internal::SetTableObserver(ParkAtCheck);
  std::thread a, b;
  auto churn = [] {
    std::vector<void*> blocks = Blocks(20);
    for (void* p : blocks) Free(p);
  };
  ArmAndWait([&] { a = std::thread(churn); });
  ArmAndWait([&] { b = std::thread(churn); });
  const int verdict = ForkAndJudge(
      [&] { return ChildDecays("two_exits_in_flight (child)", clock); });
  a.join();
  b.join();
  internal::SetTableObserver(nullptr);
  return verdict;
}

// The Counters in a child forked while a decay pass unmaps: thread T
// allocates 20 MiB of blocks of 8,000 bytes, frees them and runs on; the
// clock moves by kDecayNs and T's checking calls give back what is idle,
// stopped inside the first release or unmap. In the child, bytes_held is
// what the page source holds: its mapped and not unmapped bytes less
// bytes_held may be no more than what it released, and the one mapping
// (of at most 1 MiB here) whose unmap had begun.
int RegionsInFlight() {
  internal::ScopedFakeClock clock;
  internal::SetTableObserver(ParkAtCheck);
  std::atomic<int> step{0};
  std::thread t([&] {
    std::vector<void*> blocks = Blocks(20);
    for (void* p : blocks) Free(p);
    step = 1;
    while (step.load() != 2) sched_yield();
    for (uint64_t i = 0; i < kDecayCheckOps; i += 2) {
      Free(Allocate(64, 16, false));
    }
  });
  while (step.load() != 1) sched_yield();
  clock.Advance(kDecayNs);
  ArmAndWait([&] { step = 2; });
  const int verdict = ForkAndJudge([&] {
    const int64_t live = static_cast<int64_t>(PageSourceLive());
    const int64_t held = static_cast<int64_t>(Held());
    const int64_t released =
        static_cast<int64_t>(ReadPageSourceCounts().bytes_released);
    printf(
        "regions_in_flight (child): page source live %lld, released %lld, "
        "bytes_held %lld\n",
        static_cast<long long>(live), static_cast<long long>(released),
        static_cast<long long>(held));
    const int64_t missing = live - held - released;
    return Verdict("regions_in_flight (child)",
                   missing < 0 ? 0 : static_cast<uint64_t>(missing), 1 << 20,
                   "bytes the page source holds beyond bytes_held and its "
                   "releases");
  });
  t.join();
  internal::SetTableObserver(nullptr);
  return verdict;
}

// Promise 2 in a child that frees what a parent's thread allocated: thread
// T allocates 40 MiB of blocks of 8,000 bytes (every byte written) and waits;
// this thread forks. The child, which has no T, frees them all, waits
// kDecayNs and makes its checking calls.
int ChildFreesOthersBlocks() {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks;
  std::atomic<int> step{0};
  std::thread t([&] {
    blocks = Blocks(40);
    step = 1;
    while (step.load() != 2) sched_yield();
  });
  while (step.load() != 1) sched_yield();
  const int verdict = ForkAndJudge([&] {
    for (void* p : blocks) Free(p);
    return ChildDecays("child_frees_others_blocks (child)", clock);
  });
  step = 2;
  t.join();
  for (void* p : blocks) Free(p);
  return verdict;
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;
  if (argc < 2) {
    fprintf(stderr, "usage: rv7_driver <scenario>\n");
    return 2;
  }
  const char* s = argv[1];
  if (!strcmp(s, "returned_across_fork")) return ReturnedAcrossFork();
  if (!strcmp(s, "decay_pass_in_flight")) return DecayPassInFlight();
  if (!strcmp(s, "batch_unmap_in_flight")) return BatchUnmapInFlight();
  if (!strcmp(s, "two_exits_in_flight")) return TwoExitsInFlight();
  if (!strcmp(s, "regions_in_flight")) return RegionsInFlight();
  if (!strcmp(s, "child_frees_others_blocks")) return ChildFreesOthersBlocks();
  fprintf(stderr, "no scenario %s\n", s);
  return 2;
}
