// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv3c_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv3c's drivers: one small scenario per rule of task.h (the
// Validator part, the rules of the game) that a wrong allocator of the
// RV3C_*_MUTATIONS (BUILD) breaks, run against that allocator or against a
// correct design (rv3c_reference_driver, rv3c_segregated_fit_driver,
// rv3c_thread_owned_pages_driver). Each prints its figures and exits 1 when
// the rule is broken, 0 when kept. Every scenario starts from a fresh
// process (main() runs one), and each is what the rule says, counted by the
// page source, lock.h's observer or the block's own bytes.
//
// Example:
//
//   bazel run
//   //tests/allocator_design:rv3c_zero_size_large_alignment_fails_driver --
//   zero_size
//   // zero_size: Allocate(0) aligned to 524288: (nil) and (nil)
//   // zero_size: Allocate(0) aligned to 1048576: (nil) and (nil)
//   // zero_size: BROKEN
//   bazel run //tests/allocator_design:rv3c_reference_driver -- zero_size
//   // zero_size: kept

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

int Verdict(const char* name, bool kept) {
  printf("%s: %s\n", name, kept ? "kept" : "BROKEN");
  return kept ? 0 : 1;
}

// The shim's malloc() passes alignment 0 (task.h: "aligned to `alignment`,
// a power of two, or to kMinAlignment when that is larger"): blocks of
// every size, small and large.
int AlignmentZero() {
  bool kept = true;
  for (size_t size : {size_t{100}, size_t{300} << 10, size_t{4} << 20}) {
    void* p = Allocate(size, 0, false);
    printf("alignment_zero: Allocate(%zu, 0) = %p\n", size, p);
    kept = kept && p != nullptr;
    Free(p);
  }
  return Verdict("alignment_zero", kept);
}

// Size 0: a unique block of its own, at every alignment to 1 MiB.
int ZeroSize() {
  bool kept = true;
  for (size_t a = 1; a <= (size_t{1} << 20); a <<= 1) {
    void* p = Allocate(0, a, false);
    void* q = Allocate(0, a, false);
    const bool ok = p != nullptr && q != nullptr && p != q &&
                    reinterpret_cast<uintptr_t>(p) % a == 0 &&
                    reinterpret_cast<uintptr_t>(q) % a == 0;
    if (!ok) {
      printf("zero_size: Allocate(0) aligned to %zu: %p and %p\n", a, p, q);
    }
    kept = kept && ok;
    Free(p);
    Free(q);
  }
  return Verdict("zero_size", kept);
}

// The locks (lock.h) the calling thread holds now, by lock.h's observer.
thread_local int locks_held = 0;
void CountLocks(const Lock&, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquired) ++locks_held;
  if (event == internal::LockEvent::kReleasing) --locks_held;
}

// A refused map gives nullptr and no lock stays held: requests of every
// alignment, each in a fresh process's first call (which must map).
int Refusal() {
  bool kept = true;
  for (size_t a : {size_t{16}, size_t{64}, size_t{4096}, size_t{1} << 20}) {
    const pid_t pid = fork();
    if (pid == 0) {
      internal::SetLockObserver(CountLocks);
      void* p;
      {
        internal::ScopedMapRefusal refusal;
        p = Allocate(100, a, false);
      }
      const int held = locks_held;
      printf("refusal: Allocate(100, %zu) refused = %p, locks held after: %d\n",
             a, p, held);
      fflush(stdout);
      _exit(p == nullptr && held == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    kept = kept && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return Verdict("refusal", kept);
}

// A refused map: the counters stay exact. In a fresh process, every map
// refused, a large block asked for (nullptr), then bytes_held beside what
// the page source holds mapped.
int RefusedCounters() {
  void* p;
  {
    internal::ScopedMapRefusal refusal;
    p = Allocate(size_t{9} << 20, 16, false);
  }
  const Counters c = ReadCounters();
  const PageSourceCounts pages = ReadPageSourceCounts();
  const uint64_t mapped =
      pages.bytes_mapped - pages.bytes_unmapped - pages.bytes_released;
  printf(
      "refused_counters: Allocate(9 MiB) refused = %p; bytes_held %llu, "
      "the page source's mapped and not returned %llu\n",
      p, static_cast<unsigned long long>(c.bytes_held),
      static_cast<unsigned long long>(mapped));
  return Verdict("refused_counters", p == nullptr && c.bytes_held == mapped);
}

// A block of at least `size` bytes: a block freed and a larger one of the
// same thread asked for after it, sizes 1 KiB and above in 16-byte steps.
int AtLeastSize() {
  int short_blocks = 0;
  for (size_t first = 1000; first < 2200; first += 16) {
    for (size_t second = first + 16; second < first + 400; second += 16) {
      Free(Allocate(first, 16, false));
      void* p = Allocate(second, 16, false);
      if (UsableSize(p) < second) {
        if (short_blocks++ == 0) {
          printf("at_least_size: %zu freed, then %zu asked: UsableSize %zu\n",
                 first, second, UsableSize(p));
        }
      }
      Free(p);
    }
  }
  printf("at_least_size: %d blocks shorter than asked\n", short_blocks);
  return Verdict("at_least_size", short_blocks == 0);
}

// Impossible sizes: near SIZE_MAX, at every alignment to 1 MiB, nullptr.
int ImpossibleSizes() {
  int blocks = 0;
  for (size_t a = 16; a <= (size_t{1} << 20); a <<= 1) {
    for (size_t below : {size_t{0}, size_t{1}, size_t{4096}, size_t{4097}, a,
                         a + 4096, a + 8192, 2 * a}) {
      // In a child: a wrapped size may write past what it mapped.
      fflush(stdout);
      const pid_t pid = fork();
      if (pid == 0)
        _exit(Allocate(SIZE_MAX - below, a, false) == nullptr ? 0 : 1);
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (blocks++ == 0) {
          printf("impossible: Allocate(SIZE_MAX - %zu, %zu): %s\n", below, a,
                 WIFEXITED(status) ? "a block" : "crashed");
        }
      }
    }
  }
  printf("impossible: %d impossible sizes gave a block or crashed\n", blocks);
  return Verdict("impossible", blocks == 0);
}

// UsableSize(): no more than the block has. A large block's mapping is the
// bytes the page source mapped for it (M), starting at or below the page of
// the block: the block's usable bytes end by that page plus M.
int UsableLarge() {
  bool kept = true;
  for (size_t size : {size_t{300} << 10, size_t{1} << 20, size_t{5} << 20}) {
    for (size_t a : {size_t{16}, size_t{64}, size_t{4096}}) {
      const uint64_t before = ReadPageSourceCounts().bytes_mapped;
      void* p = Allocate(size, a, false);
      const uint64_t mapped = ReadPageSourceCounts().bytes_mapped - before;
      const uintptr_t start = reinterpret_cast<uintptr_t>(p);
      const uintptr_t page_start = start & ~(uintptr_t{PageSize()} - 1);
      const size_t usable = UsableSize(p);
      const bool ok = mapped == 0 || start + usable <= page_start + mapped;
      printf(
          "usable_large: %zu at %zu: usable %zu, mapped %llu, %zu past\n", size,
          a, usable, static_cast<unsigned long long>(mapped),
          ok ? 0 : static_cast<size_t>(start + usable - page_start - mapped));
      kept = kept && ok;
      Free(p);
    }
  }
  return Verdict("usable_large", kept);
}

// Zeroed requests on recycled memory: one thread writes 3000 blocks of 64
// bytes, frees them all, and asks for 3000 zeroed ones.
int ZeroRecycled() {
  constexpr int kBlocks = 3000;
  std::vector<void*> blocks(kBlocks);
  for (void*& p : blocks) {
    p = Allocate(64, 16, false);
    memset(p, 0xAB, 64);
  }
  for (void* p : blocks) Free(p);
  int dirty = 0;
  for (void*& p : blocks) {
    p = Allocate(64, 16, true);
    const unsigned char* b = static_cast<const unsigned char*>(p);
    for (int i = 0; i < 64; ++i) {
      if (b[i] != 0) {
        ++dirty;
        break;
      }
    }
  }
  for (void* p : blocks) Free(p);
  printf("zero_recycled: %d of %d zeroed blocks not zero\n", dirty, kBlocks);
  return Verdict("zero_recycled", dirty == 0);
}

// A forked child allocates while another thread holds any lock: a thread
// that exits with a block of its own still live (another thread has it)
// is parked inside the k-th lock it takes as it exits, for each k; the
// process forks; the child's own thread does the same (allocates, hands
// the block over, exits) and the child allocates, within kChildSeconds.
constexpr unsigned kChildSeconds = 10;
std::atomic<bool> watch_exit{false};
std::atomic<int> park_at{-1};
std::atomic<int> taken{0};
std::atomic<bool> parked{false};
std::atomic<bool> go{false};
std::atomic<const Lock*> parked_lock{nullptr};
thread_local bool exiting = false;

// The exiting thread parks inside its k-th lock until another thread waits
// for that very lock (ForkPrepare() taking it: the fork waits for the exit
// to leave it) or the fork is over.
void ParkInside(const Lock& lock, internal::LockEvent event) {
  if (!exiting) {
    if (event == internal::LockEvent::kAcquiring && parked.load() &&
        parked_lock.load() == &lock) {
      go.store(true);
    }
    return;
  }
  if (event != internal::LockEvent::kAcquired) return;
  if (taken.fetch_add(1) != park_at.load()) return;
  parked_lock.store(&lock);
  parked.store(true);
  while (!go.load()) sched_yield();
}

// One k: 0 kept, 1 broken, 2 when the exit takes fewer than k + 1 locks.
int ForkAtLock(int k) {
  internal::SetLockObserver(ParkInside);
  park_at.store(k);
  std::atomic<void*> handed{nullptr};
  std::atomic<bool> done{false};
  std::thread t([&] {
    handed.store(Allocate(64, 16, false));
    exiting = true;  // its thread-exit hook runs after this body
  });
  // Until it parks, or has exited without taking k + 1 locks.
  std::thread joiner([&] {
    t.join();
    done.store(true);
  });
  while (!parked.load() && !done.load()) sched_yield();
  if (!parked.load()) {
    joiner.join();
    return 2;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(kChildSeconds);
    std::atomic<void*> child_block{nullptr};
    std::thread c([&] { child_block.store(Allocate(64, 16, false)); });
    c.join();
    void* p = Allocate(64, 16, false);
    Free(p);
    Free(child_block.load());
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  go.store(true);
  joiner.join();
  const bool kept = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  printf("fork_locks: forked at the exit's lock %d: the child %s\n", k,
         kept ? "allocated and exited"
              : (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
                     ? "hung (killed after its alarm)"
                     : "failed"));
  Free(handed.load());
  return kept ? 0 : 1;
}

int ForkLocks() {
  bool kept = true;
  for (int k = 0;; ++k) {
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      const int verdict = ForkAtLock(k);
      fflush(stdout);
      _exit(verdict);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status)) return Verdict("fork_locks", false);
    if (WEXITSTATUS(status) == 2) {
      printf("fork_locks: the exit took %d locks\n", k);
      break;
    }
    kept = kept && WEXITSTATUS(status) == 0;
  }
  return Verdict("fork_locks", kept);
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  using namespace allocator_design;
  if (argc != 2) {
    fprintf(stderr, "usage: rv3c_driver <scenario>\n");
    return 2;
  }
  // As the shim registers them (labs/allocator_design/shim.cc).
  pthread_atfork(ForkPrepare, ForkParent, ForkChild);
  const char* s = argv[1];
  if (!strcmp(s, "alignment_zero")) return AlignmentZero();
  if (!strcmp(s, "zero_size")) return ZeroSize();
  if (!strcmp(s, "refusal")) return Refusal();
  if (!strcmp(s, "refused_counters")) return RefusedCounters();
  if (!strcmp(s, "at_least_size")) return AtLeastSize();
  if (!strcmp(s, "impossible")) return ImpossibleSizes();
  if (!strcmp(s, "usable_large")) return UsableLarge();
  if (!strcmp(s, "zero_recycled")) return ZeroRecycled();
  if (!strcmp(s, "fork_locks")) return ForkLocks();
  fprintf(stderr, "no scenario %s\n", s);
  return 2;
}
