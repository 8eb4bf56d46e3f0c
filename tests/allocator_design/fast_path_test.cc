// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Promise 1 of lab allocator_design (task.h): the fast path is private.
// Fixed patterns of calls after a warm-up, every size to 256 KiB in every
// grouping, and the explorer's random groupings, each counted by the
// suite itself (system calls by ptrace, locks through lock.h's observer).
//
// Part of the suite of task_test.cc (whose header says how it is run: in
// fresh processes, on the page source's fake clock, never the wall clock);
// what the files share is suite_support.h. Every failure message quotes
// the rule of task.h it checks.

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/syscalls.h"
#include "common/machine/cpu_facts.h"
#include "common/testing/scoped_env.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/lock_testing.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/traces.h"
#include "tests/allocator_design/run_fresh.h"
#include "tests/allocator_design/suite_support.h"

namespace allocator_design::suite {
namespace {

// ---------------------------------------------------------------------------
// Design, promise 1: the fast path is private.
// ---------------------------------------------------------------------------

// `bursts` times: 1000 blocks allocated, then all 1000 freed.
Calls Bursts(int bursts) {
  Calls calls;
  void* blocks[1000];
  for (int b = 0; b < bursts; ++b) {
    for (int i = 0; i < 1000; ++i) {
      blocks[i] = Allocate(kFastSizes[i % kFastSizeCount], 1, false);
      static_cast<volatile char*>(blocks[i])[0] = 1;
      calls.Add(kFastSizes[i % kFastSizeCount]);
    }
    for (int i = 0; i < 1000; ++i) {
      Free(blocks[i]);
      calls.Add(kFastSizes[i % kFastSizeCount]);
    }
  }
  return calls;
}

// One pattern of promise 1: warmed up on this thread, then counted twice,
// for the central visits here and for the system calls under ptrace in a
// forked copy of this process (the same warm caches: fork copies them).
void ExpectPrivateFastPath(absl::string_view pattern, Calls (*run)(int),
                           int warm, int counted) {
  // The decay's clock stands still: "a size it has used before" must not
  // have been given back because a second passed on a loaded machine.
  internal::ScopedFakeClock clock;
  run(warm);
  const Counters before = ReadCounters();
  const Calls calls = run(counted);
  const uint64_t ops = calls.ops;
  const Counters after = ReadCounters();
  const uint64_t visits = after.central_visits - before.central_visits;
  EXPECT_LE(visits, calls.Allowed())
      << kRuleFastPath << ": " << pattern << " made " << visits
      << " central visits in " << ops << " operations (at most "
      << calls.Allowed() << " allowed)";
  // The verdict is given: counting the system calls of the same calls again,
  // each stopped for the counter, is the slow half of this test on an
  // allocator that meets the others on every call (one whose larger classes
  // bypassed its cache took 90 s here, the reference 0.1 s).
  if (visits > calls.Allowed()) return;

  absl::StatusOr<alloclab::SyscallCounts> syscalls =
      alloclab::CountSyscallsInChild([&] { run(counted); });
  if (absl::IsFailedPrecondition(syscalls.status())) {
    GTEST_SKIP() << "cannot count system calls here: " << syscalls.status();
  }
  ASSERT_TRUE(syscalls.ok()) << syscalls.status();
  std::string counted = alloclab::FormatSyscallCounts(*syscalls);
  absl::StripTrailingAsciiWhitespace(&counted);
  EXPECT_EQ(syscalls->total, 0)
      << kRuleFastPath << ": " << pattern << " made " << syscalls->total
      << " system calls in " << ops << " operations ("
      << absl::StrReplaceAll(counted, {{"\n", ", "}}) << ")";
}

TEST(DesignFastPath, SteadyStatePairsArePrivate) {
  ExpectPrivateFastPath("malloc/free pairs", Pairs, 20'000, 100'000);
}

TEST(DesignFastPath, SteadyStateBurstsArePrivate) {
  ExpectPrivateFastPath("bursts of 1000 allocations then 1000 frees", Bursts, 5,
                        50);
}

// The locks (lock.h) the parked thread A of StoppedThreadCall holds, and
// whether thread B went for one of them while A was parked: B then waits
// for A, and the test knows it at once, not at kStoppedBound (which stays
// for a design whose waits lock.h does not see: a spin on an atomic, say).
constexpr int kMaxParkedLocks = 64;
constinit std::atomic<const Lock*> parked_thread_locks[kMaxParkedLocks] = {};
constinit std::atomic<bool> waited_for_parked_thread{false};
enum class StoppedRole { kNone, kParked, kRunning };
thread_local StoppedRole stopped_role = StoppedRole::kNone;

// The lock observer of StoppedThreadCall. It runs inside the allocator and
// touches only atomics.
void ObserveStoppedThread(const Lock& lock, internal::LockEvent event) {
  if (stopped_role == StoppedRole::kParked &&
      event != internal::LockEvent::kAcquiring) {
    // Taken: into a free slot. Given back: out of its slot.
    const bool taken = event == internal::LockEvent::kAcquired;
    for (std::atomic<const Lock*>& slot : parked_thread_locks) {
      const Lock* seen = taken ? nullptr : &lock;
      if (slot.compare_exchange_strong(seen, taken ? &lock : nullptr)) break;
    }
  } else if (stopped_role == StoppedRole::kRunning &&
             event == internal::LockEvent::kAcquiring) {
    for (const std::atomic<const Lock*>& slot : parked_thread_locks) {
      if (slot.load() == &lock) waited_for_parked_thread.store(true);
    }
  }
}

// In a fresh process: thread B warms up; a thread A is parked inside
// Allocate() at the page source's map gate (a 64 MiB block: it must map);
// B then makes warmed-up pairs. Records "parked" (A reached the gate),
// "finished" (B's pairs ended while A was parked) and "waited" (B asked
// for a lock that A held, so that it could not finish while A was parked).
void StoppedThreadCall(alloclab::FreshCall& call) {
  std::mutex mu;
  std::condition_variable cv;
  bool warmed = false, go = false;
  std::atomic<bool> a_returned{false}, finished{false};

  std::thread b([&] {
    Pairs(20'000);
    {
      std::unique_lock<std::mutex> lock(mu);
      warmed = true;
      cv.notify_all();
      cv.wait(lock, [&] { return go; });
    }
    stopped_role = StoppedRole::kRunning;
    Pairs(20'000);
    stopped_role = StoppedRole::kNone;
    finished.store(true);
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return warmed; });
  }
  internal::SetLockObserver(ObserveStoppedThread);
  internal::CloseMapGate();
  void* large = nullptr;
  std::thread a([&] {
    stopped_role = StoppedRole::kParked;
    large = Allocate((64 << 20) + 17 * PageSize(), 16, false);
    stopped_role = StoppedRole::kNone;
    a_returned.store(true);
  });
  WaitUntil([&] { return internal::ParkedAtMapGate() || a_returned.load(); });
  const bool a_parked = internal::ParkedAtMapGate();
  if (a_parked) {
    {
      std::lock_guard<std::mutex> lock(mu);
      go = true;
      cv.notify_all();
    }
    // B cannot finish once it waits for A's lock: no need to wait more.
    WaitUntil(
        [&] { return finished.load() || waited_for_parked_thread.load(); });
  }
  call.Record("parked", a_parked ? 1 : 0);
  call.Record("waited", waited_for_parked_thread.load() ? 1 : 0);
  call.Record("finished", finished.load() ? 1 : 0);
  {
    std::lock_guard<std::mutex> lock(mu);
    go = true;
    cv.notify_all();
  }
  internal::OpenMapGate();
  a.join();
  b.join();
  internal::SetLockObserver(nullptr);
  Free(large);
}
ALLOCLAB_FRESH_CALL("allocator_design_stopped_thread", StoppedThreadCall);

TEST(DesignFastPath, OtherThreadStoppedInsideDoesNotStopThisOne) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_stopped_thread");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["parked"], 1)
      << "the test could not stop a thread inside the allocator: a fresh "
         "Allocate() of 64 MiB never asked the page source for memory "
         "(task.h: it gets memory only from pages.h; a process's first "
         "64 MiB block must be mapped there)";
  if (r->values["waited"] == 1) {
    ADD_FAILURE() << kRuleNotStopped << ": with one thread parked inside "
                  << "Allocate() (waiting for the page source), another "
                  << "thread's warmed-up malloc/free pairs waited for a lock "
                  << "(lock.h) that the parked thread held";
  } else {
    EXPECT_EQ(r->values["finished"], 1)
        << kRuleNotStopped << ": with one thread parked inside Allocate() "
        << "(waiting for the page source), another thread's warmed-up "
        << "malloc/free pairs did not finish within " << kStoppedBound.count()
        << " s";
  }
}

// Promise 1 above the sizes of the fast-path tests: pairs of blocks of the
// classes over 4 KiB, to 256 KiB, each of a size used before.
constexpr size_t kLargerFastSizes[] = {4097,      6000,          8 * 1024 + 16,
                                       16 * 1024, 32 * 1024 + 1, 65536,
                                       100'000,   200'000,       256 * 1024};

Calls LargerPairs(int pairs) { return PairsOver(kLargerFastSizes, pairs); }

TEST(DesignFastPath, SteadyStatePairsOfBlocksTo256KiBArePrivate) {
  ExpectPrivateFastPath("malloc/free pairs of 4097 bytes to 256 KiB",
                        LargerPairs, 20'000, 100'000);
}

// Promise 1 once the clock has moved. The decay runs on a thread's own
// calls (promise 2), and a thread that keeps allocating from every class
// it holds has nothing idle: after the clock has moved by kDecayNs in four
// steps of a quarter during the warm-up, and stands still, its pairs are
// private again. The sizes are every one from 16 bytes to
// kBytesPerCentralVisit / kOpsPerCentralVisit, eight a doubling above 128
// bytes (more than any design's classes there), in turn: a decay that
// empties the caches of all of them at every tick makes a visit (or more)
// per class at each, more than kDecayCheckOps / kOpsPerCentralVisit.
std::vector<size_t> EverySmallSize() {
  std::vector<size_t> sizes;
  for (size_t size = 16; size <= kBytesPerCentralVisit / kOpsPerCentralVisit;
       size += std::max<size_t>(16, size / 8)) {
    sizes.push_back(size);
  }
  return sizes;
}

Calls PairsOfEverySmallSize(int pairs) {
  static const std::vector<size_t>& sizes = *new auto(EverySmallSize());
  return PairsOver(sizes, pairs);
}

TEST(DesignFastPath, SteadyStatePairsAfterTheClockMovedArePrivate) {
  internal::ScopedFakeClock clock;
  PairsOfEverySmallSize(20'000);
  for (int step = 0; step < 4; ++step) {
    clock.Advance(kDecayNs / 4);
    PairsOfEverySmallSize(10'000);  // 20,000 calls: the steps' ticks
  }
  PairsOfEverySmallSize(20'000);
  internal::SetLockObserver(CountLocksTaken);
  const uint64_t locks_before = locks_taken;
  const uint64_t visits_before = ReadCounters().central_visits;
  const Calls calls = PairsOfEverySmallSize(100'000);
  const uint64_t visits = ReadCounters().central_visits - visits_before;
  const uint64_t locks = locks_taken - locks_before;
  internal::SetLockObserver(nullptr);
  const std::string pattern = absl::StrCat(
      "malloc/free pairs of every size from 16 bytes to ",
      kBytesPerCentralVisit / kOpsPerCentralVisit,
      " in turn, after the clock moved by kDecayNs in the warm-up (then "
      "stood still)");
  EXPECT_LE(visits, calls.Allowed())
      << kRuleFastPath << ": " << pattern << " made " << visits
      << " central visits in " << calls.ops << " calls (at most "
      << calls.Allowed() << " allowed)";
  EXPECT_LE(locks, calls.Allowed())
      << kRuleFastPath << ": " << pattern << " took " << locks
      << " locks (lock.h) in " << calls.ops << " calls (at most "
      << calls.Allowed() << " allowed)";
}

// Promise 1 at every default alignment: `alignment` at most kMinAlignment,
// 0 among them (Allocate()'s "0 means kMinAlignment": the shim's malloc(),
// calloc() and realloc() pass it), with and without `zero` (calloc()'s
// blocks are allocations as much as malloc()'s). For each, groups of 50
// blocks of the kFastSizes, allocated then freed, warmed up and then
// counted: the allocator's central_visits and the locks this thread took
// (lock.h's observer), each held to the promise's allowance.
constexpr size_t kDefaultAlignments[] = {0, 1, 2, 4, 8, kMinAlignment};

Calls AlignedGroups(size_t alignment, bool zero, int rounds) {
  Calls calls;
  void* blocks[50];
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 50; ++i) {
      const size_t size = kFastSizes[i % kFastSizeCount];
      blocks[i] = Allocate(size, alignment, zero);
      static_cast<volatile char*>(blocks[i])[0] = 1;
      calls.Add(size);
    }
    for (int i = 0; i < 50; ++i) {
      Free(blocks[i]);
      calls.Add(kFastSizes[i % kFastSizeCount]);
    }
  }
  return calls;
}

TEST(DesignFastPath, EveryDefaultAlignmentWithAndWithoutZeroIsPrivate) {
  internal::ScopedFakeClock clock;
  for (bool zero : {false, true}) {
    for (size_t alignment : kDefaultAlignments) {
      AlignedGroups(alignment, zero, 40);
      internal::SetLockObserver(CountLocksTaken);
      const uint64_t locks_before = locks_taken;
      const uint64_t visits_before = ReadCounters().central_visits;
      const Calls calls = AlignedGroups(alignment, zero, 200);
      const uint64_t visits = ReadCounters().central_visits - visits_before;
      const uint64_t locks = locks_taken - locks_before;
      internal::SetLockObserver(nullptr);
      const std::string pattern = absl::StrCat(
          "at alignment ", alignment, " (the default: at most kMinAlignment), ",
          zero ? "zeroed" : "not zeroed", ", groups of 50 blocks");
      EXPECT_LE(visits, calls.Allowed())
          << kRuleFastPath << ": " << pattern << " made " << visits
          << " central visits in " << calls.ops << " calls (at most "
          << calls.Allowed() << " allowed)";
      EXPECT_LE(locks, calls.Allowed())
          << kRuleFastPath << ": " << pattern << " took " << locks
          << " locks (lock.h) in " << calls.ops << " calls (at most "
          << calls.Allowed() << " allowed)";
    }
  }
}

// Promise 1 at every size to 256 KiB, however grouped: for each size of
// GroupedSizes() and each group of 1 to kMostGroup blocks, a
// thread allocates a group and frees it, kWarmRounds times to warm up and
// kCountedRounds times counted. Two counts, each held to the promise's
// allowance (VisitCredit()): the allocator's own central_visits, and
// the lock.h Locks this thread took (lock.h's observer: a lock taken is a
// visit, task.h says), which no allocator reports itself; and the page
// source's calls (every system call an allocator makes for memory is one,
// as the Validator tests check), of which there are none. In a
// fresh process, the decay's clock standing still. A break fails the call
// with the size, group and counts.
constexpr int kMostGroup = 72;
constexpr int kWarmRounds = 3;
constexpr int kCountedRounds = 8;

// GroupedSizes()
//
// The sizes of the grouped test: every edge size to kPromiseOneMax, and
// kLargerFastSizes (100,000 bytes among them: the issue that restated the
// promise found 4,000 visits in 24,000 calls in groups of 12 there).
std::vector<size_t> GroupedSizes() {
  std::vector<size_t> sizes;
  for (size_t size : EdgeSizes(kPromiseOneMax)) {
    if (size != 0 && size <= kPromiseOneMax) sizes.push_back(size);
  }
  sizes.insert(sizes.end(), std::begin(kLargerFastSizes),
               std::end(kLargerFastSizes));
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// PageSourceCalls()
//
// The maps, unmaps and releases the page source has made so far.
uint64_t PageSourceCalls() {
  const PageSourceCounts pages = ReadPageSourceCounts();
  return pages.map_calls + pages.unmap_calls + pages.release_calls;
}

// The largest group of the bursts' test: more blocks than any cache keeps,
// so that every round refills from spans and gives whole spans back.
constexpr int kMostBurst = 1000;
// A burst of a size holds at most this many bytes live (256 KiB blocks in
// bursts of 32).
constexpr size_t kMostBurstBytes = size_t{8} << 20;

// One group's rounds: `rounds` times, `group` blocks of `size` allocated,
// then freed in the order allocated.
void GroupRounds(size_t size, int group, int rounds) {
  static void* blocks[kMostBurst];
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < group; ++i) blocks[i] = Allocate(size, 1, false);
    for (int i = 0; i < group; ++i) Free(blocks[i]);
  }
}

// GroupedCases
//
// The cases of a grouped fresh call, each a size and a group: warmed up,
// counted, and held to promise 1's allowance (Count()); Finish() records
// the tally and fails the call with the first break. The cases after a
// break are not run: an allocator that breaks the promise is often slow
// at it too (one that flushed its cache at every free took 81 s over the
// grid, where the reference takes half a second), and the first break is
// the verdict a learner needs.
class GroupedCases {
 public:
  GroupedCases() { internal::SetLockObserver(CountLocksTaken); }

  void Count(size_t size, int group) {
    if (broken_ != 0) return;
    GroupRounds(size, group, kWarmRounds);
    const uint64_t visits_before = ReadCounters().central_visits;
    const uint64_t locks_before = locks_taken;
    const uint64_t calls_before = PageSourceCalls();
    GroupRounds(size, group, kCountedRounds);
    const uint64_t calls = PageSourceCalls() - calls_before;
    const uint64_t locks = locks_taken - locks_before;
    const uint64_t visits = ReadCounters().central_visits - visits_before;
    page_calls_ += calls;
    const uint64_t ops = 2 * uint64_t{kCountedRounds} * group;
    const uint64_t allowed = ops * VisitCredit(size) / kBytesPerCentralVisit;
    ++cases_;
    const uint64_t permille = std::max(visits, locks) * 1000 / allowed;
    if (permille > most_permille_) {
      most_permille_ = permille;
      most_size_ = size;
      most_group_ = group;
    }
    if (visits <= allowed && locks <= allowed && calls == 0) return;
    if (++broken_ == 1) {
      first_ = absl::StrCat("blocks of ", size, " bytes in groups of ", group,
                            " (allocated, then freed): ", visits,
                            " central visits counted and ", locks,
                            " locks taken in ", ops, " calls, at most ",
                            allowed, " allowed; ", calls,
                            " calls of the page source (map, unmap, "
                            "release), none allowed");
    }
  }

  void Finish(alloclab::FreshCall& call) {
    internal::SetLockObserver(nullptr);
    call.Record("cases", cases_);
    call.Record("broken", broken_);
    call.Record("most_permille", most_permille_);
    call.Record("most_size", most_size_);
    call.Record("most_group", most_group_);
    call.Record("page_calls", page_calls_);
    if (broken_ != 0) {
      call.Fail(absl::StrCat(
          kRuleFastPath, ": ", first_,
          " (kOpsPerCentralVisit = ", kOpsPerCentralVisit,
          ", kBytesPerCentralVisit = ", kBytesPerCentralVisit, "); the ",
          cases_ - 1,
          " cases before it kept the promise, the rest were not run"));
    }
  }

 private:
  internal::ScopedFakeClock clock_;  // the decay stands still
  uint64_t cases_ = 0, broken_ = 0, most_permille_ = 0, page_calls_ = 0;
  size_t most_size_ = 0;
  int most_group_ = 0;
  std::string first_;
};

void GroupedVisitsCall(alloclab::FreshCall& call) {
  GroupedCases cases;
  for (size_t size : GroupedSizes()) {
    for (int group = 1; group <= kMostGroup; ++group) cases.Count(size, group);
  }
  cases.Finish(call);
}
ALLOCLAB_FRESH_CALL("allocator_design_grouped_visits", GroupedVisitsCall);

// The group of the bursts' test at `size`: kMostBurst blocks, or as many as
// kMostBurstBytes holds.
int BurstOf(size_t size) {
  return static_cast<int>(std::min<size_t>(kMostBurst, kMostBurstBytes / size));
}

void BurstVisitsCall(alloclab::FreshCall& call) {
  GroupedCases cases;
  for (size_t size : GroupedSizes()) cases.Count(size, BurstOf(size));
  cases.Finish(call);
}
ALLOCLAB_FRESH_CALL("allocator_design_burst_visits", BurstVisitsCall);

// The most of its allowance a case used, in thousandths: a figure for the
// chapter, not a bound (the bound is the allowance itself).
void RecordMostOfTheAllowance(const alloclab::FreshCallResult& r) {
  for (const char* key : {"most_permille", "most_size", "most_group"}) {
    ::testing::Test::RecordProperty(key, static_cast<int>(r.values.at(key)));
  }
}

TEST(DesignFastPath, EveryEdgeSizeTo256KiBInEveryGroupingIsPrivate) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_grouped_visits");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["broken"], 0);
  EXPECT_EQ(r->values["cases"],
            static_cast<double>(GroupedSizes().size() * kMostGroup))
      << "the grouped calls did not run for every size and group";
  RecordMostOfTheAllowance(*r);
}

// Promise 1 in bursts: at each size of GroupedSizes(), kMostBurst blocks
// (at most kMostBurstBytes of them) allocated, then all freed, so that no
// cache holds a round and each refills from spans and gives whole ones
// back, counted as the grouped test counts. A design that needs three
// locks a refill and two a drain must move more than two batches of
// kOpsPerCentralVisit blocks a visit (the reference with batches of 32
// took 1,480 locks in 20,000 calls of 4 KiB, 1,250 allowed).
TEST(DesignFastPath, BurstsOfEveryEdgeSizeTo256KiBArePrivate) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_burst_visits");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["broken"], 0);
  EXPECT_EQ(r->values["cases"], static_cast<double>(GroupedSizes().size()))
      << "the bursts did not run for every size";
  RecordMostOfTheAllowance(*r);
}

// Promise 1 for a producer (promise 4's; lab jemalloc_adoption's msgsend):
// a thread that allocates messages another thread frees allocates blocks
// of sizes it has used before, all its calls grouped as allocations. The
// two take turns (TakeTurns()): the producer allocates messages until the
// next would pass kProducerMostLive live, or kProducerMostInTurn of them,
// then the consumer frees them all. So the producer's central visits are
// read around its own turns (ReadCounters(), while the consumer waits),
// and its locks by lock.h's observer on its thread. Three shapes: messages
// of kProducerSmallBytes, and messages of every class above 8 KiB in turn,
// each of the least size it holds (LeastSizesOfTheLargerClasses()),
// kProducerStride apart, each kProducerMessages long, the first half the
// warm-up and the second half counted; and messages of each edge size from
// kProducerEdgeLeast to 256 KiB (ProducerEdgeSizes()), one size after
// another, kProducerEdgeWarmTurns turns of a size to warm up and
// kProducerEdgeCountedTurns counted, each size held to its own allowance
// (and one turn's more: a batch fetched at the end serves the next turn).
// A design whose batches grow only when it drains (a producer never does),
// or that takes the consumer's frees back at every allocation, or a span
// at a time (a span of 64 KiB holds 6 blocks of 10 KiB: a visit per 6
// messages of 8 KiB + 1, where one per 16 is allowed), meets the consumer
// more often than its calls allow, which no single-thread pattern shows.
// The consumer's calls are not counted: it frees blocks it did not
// allocate.
constexpr int kProducerMessages = 40'000;
constexpr size_t kProducerMostLive = 256 * kKiB;
constexpr size_t kProducerMostInTurn = 64;
constexpr size_t kProducerSmallBytes = 64;
constexpr size_t kProducerStride = 7;  // coprime with the 20 larger classes
constexpr size_t kProducerEdgeLeast = 4 * kKiB;
constexpr int kProducerEdgeWarmTurns = 16;
constexpr int kProducerEdgeCountedTurns = 64;
constexpr uint64_t kProducerEdgeBreaksShown = 10;  // in a failure message

// ProducerEdgeSizes()
//
// The edge sizes (EdgeSizes()) from kProducerEdgeLeast to kPromiseOneMax:
// the classes whose spans hold few blocks.
std::vector<size_t> ProducerEdgeSizes() {
  std::vector<size_t> sizes;
  for (size_t size : EdgeSizes(kPromiseOneMax)) {
    if (size >= kProducerEdgeLeast && size <= kPromiseOneMax) {
      sizes.push_back(size);
    }
  }
  return sizes;
}

// ProducerTurn
//
// One of the producer's turns: messages `first` to `end` - 1, counted in
// case `counted_as` (-1: a warm-up turn, not counted).
struct ProducerTurn {
  int first;
  int end;
  int counted_as;
};

// ProducerCase
//
// What the producer did in the counted turns of one case: its calls (and
// the visits they allow), its central visits and its locks.
struct ProducerCase {
  Calls calls;
  uint64_t visits = 0;
  uint64_t locks = 0;
};

// RunProducer()
//
// The producer allocates message i of `sizes[i]` bytes, turn by turn
// (`turns`), the consumer frees each turn's messages at its own; each
// counted turn's calls, visits and locks go to its case. Allocations that
// failed are counted in `*failed`.
std::vector<ProducerCase> RunProducer(const std::vector<size_t>& sizes,
                                      const std::vector<ProducerTurn>& turns,
                                      int cases, uint64_t* failed) {
  internal::ScopedFakeClock clock;  // "sizes it has used before" stay so
  internal::SetLockObserver(CountLocksTaken);
  std::vector<void*> messages;
  messages.reserve(kProducerMostInTurn);
  std::vector<ProducerCase> counted(static_cast<size_t>(cases));
  TakeTurns(
      static_cast<int>(turns.size()),
      [&](int t) {
        const ProducerTurn& turn = turns[static_cast<size_t>(t)];
        const uint64_t visits_before = ReadCounters().central_visits;
        const uint64_t locks_before = locks_taken;
        Calls calls;
        for (int i = turn.first; i < turn.end; ++i) {
          const size_t size = sizes[static_cast<size_t>(i)];
          void* p = Allocate(size, 1, false);
          if (p == nullptr) {
            ++*failed;
            continue;
          }
          static_cast<volatile char*>(p)[0] = 1;
          messages.push_back(p);
          calls.Add(size);
        }
        if (turn.counted_as < 0) return;
        ProducerCase& c = counted[static_cast<size_t>(turn.counted_as)];
        c.locks += locks_taken - locks_before;
        c.visits += ReadCounters().central_visits - visits_before;
        c.calls.ops += calls.ops;
        c.calls.credit += calls.credit;
      },
      [&](int) {
        for (void* p : messages) Free(p);
        messages.clear();
      });
  internal::SetLockObserver(nullptr);
  return counted;
}

// AddTurns()
//
// Cuts messages `first` to `end` - 1 of `sizes` into turns (at most
// kProducerMostLive bytes or kProducerMostInTurn messages each), counted in
// case `counted_as` from message `counted_from` on.
void AddTurns(const std::vector<size_t>& sizes, int first, int end,
              int counted_from, int counted_as,
              std::vector<ProducerTurn>* turns) {
  size_t live = 0;
  int turn_first = first;
  auto cut = [&](int i) {
    turns->push_back(
        {turn_first, i, turn_first >= counted_from ? counted_as : -1});
    turn_first = i;
    live = 0;
  };
  for (int i = first; i < end; ++i) {
    const size_t bytes = sizes[static_cast<size_t>(i)];
    if (live + bytes > kProducerMostLive ||
        static_cast<size_t>(i - turn_first) == kProducerMostInTurn) {
      cut(i);
    }
    live += bytes;
  }
  cut(end);
}

void ProducerVisitsCall(alloclab::FreshCall& call) {
  const bool larger = call.arg() == "larger";
  if (!larger && call.arg() != "small") {
    call.Fail(absl::StrCat("no producer shape named '", call.arg(), "'"));
    return;
  }
  const std::vector<size_t> larger_sizes = LeastSizesOfTheLargerClasses();
  std::vector<size_t> sizes;
  for (int i = 0; i < kProducerMessages; ++i) {
    sizes.push_back(larger ? larger_sizes[static_cast<size_t>(i) *
                                          kProducerStride % larger_sizes.size()]
                           : kProducerSmallBytes);
  }
  std::vector<ProducerTurn> turns;
  AddTurns(sizes, 0, kProducerMessages, kProducerMessages / 2, 0, &turns);
  uint64_t failed = 0;
  const ProducerCase counted = RunProducer(sizes, turns, 1, &failed)[0];
  call.Record("failed", static_cast<double>(failed));
  call.Record("ops", static_cast<double>(counted.calls.ops));
  call.Record("allowed", static_cast<double>(counted.calls.Allowed()));
  call.Record("visits", static_cast<double>(counted.visits));
  call.Record("locks", static_cast<double>(counted.locks));
}
ALLOCLAB_FRESH_CALL("allocator_design_producer_visits", ProducerVisitsCall);

// ProducerTurnsMessage()
//
// How the producer and its consumer take turns, for a failure message.
std::string ProducerTurnsMessage() {
  return absl::StrCat(
      " (taking turns with a consumer that frees every one: at most ",
      kProducerMostInTurn, " messages or ", kProducerMostLive,
      " bytes live at once) ");
}

// PerTurn()
//
// The messages of `size` bytes the producer allocates in a turn.
size_t PerTurn(size_t size) {
  return std::min(kProducerMostInTurn, kProducerMostLive / size);
}

void ProducerEdgeVisitsCall(alloclab::FreshCall& call) {
  const std::vector<size_t> edges = ProducerEdgeSizes();
  std::vector<size_t> sizes;
  std::vector<ProducerTurn> turns;
  for (size_t e = 0; e < edges.size(); ++e) {
    const size_t per_turn = PerTurn(edges[e]);
    const int first = static_cast<int>(sizes.size());
    const int counted_from =
        first + static_cast<int>(per_turn) * kProducerEdgeWarmTurns;
    sizes.insert(
        sizes.end(),
        per_turn * (kProducerEdgeWarmTurns + kProducerEdgeCountedTurns),
        edges[e]);
    AddTurns(sizes, first, static_cast<int>(sizes.size()), counted_from,
             static_cast<int>(e), &turns);
  }
  uint64_t failed = 0;
  const std::vector<ProducerCase> counted =
      RunProducer(sizes, turns, static_cast<int>(edges.size()), &failed);
  uint64_t broken = 0;
  std::string first_break, every_break;
  for (size_t e = 0; e < edges.size(); ++e) {
    const ProducerCase& c = counted[e];
    // A batch fetched near the end of the counted turns serves the turn
    // after them: one turn's calls more are allowed.
    Calls with_next = c.calls;
    for (size_t i = 0; i < PerTurn(edges[e]); ++i) with_next.Add(edges[e]);
    const uint64_t allowed = with_next.Allowed();
    if (c.visits <= allowed && c.locks <= allowed) continue;
    if (++broken <= kProducerEdgeBreaksShown) {
      absl::StrAppend(&every_break, every_break.empty() ? "" : ", ", edges[e],
                      " bytes: ", c.visits, " visits, ", c.locks, " locks, ",
                      allowed, " allowed");
    }
    if (broken == 1) {
      first_break = absl::StrCat(
          "a producer of messages of ", edges[e], " bytes",
          ProducerTurnsMessage(), "made ", c.visits,
          " central visits and took ", c.locks, " locks (lock.h) in its ",
          c.calls.ops, " counted allocations, at most ", allowed, " allowed");
    }
  }
  call.Record("failed", static_cast<double>(failed));
  call.Record("cases", static_cast<double>(edges.size()));
  call.Record("broken", static_cast<double>(broken));
  if (broken != 0) {
    call.Fail(absl::StrCat(kRuleFastPath, ": ", broken, " of ", edges.size(),
                           " sizes; the first: ", first_break, "; the first ",
                           kProducerEdgeBreaksShown, ": ", every_break,
                           " (kOpsPerCentralVisit = ", kOpsPerCentralVisit,
                           ", kBytesPerCentralVisit = ", kBytesPerCentralVisit,
                           ")"));
  }
}
ALLOCLAB_FRESH_CALL("allocator_design_producer_edge_visits",
                    ProducerEdgeVisitsCall);

// ExpectPrivateProducer()
//
// Runs ProducerVisitsCall's `shape` and judges the producer's counted half:
// its central visits and its locks each within what its calls allow.
void ExpectPrivateProducer(absl::string_view shape, absl::string_view what) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_producer_visits", shape);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << kRuleAvailable << ": Allocate() failed in the producer";
  const std::string pattern =
      absl::StrCat("a producer of ", what, ProducerTurnsMessage());
  EXPECT_LE(r->values["visits"], r->values["allowed"])
      << kRuleFastPath << ": " << pattern << "made " << r->values["visits"]
      << " central visits in its " << r->values["ops"]
      << " counted allocations (at most " << r->values["allowed"]
      << " allowed)";
  EXPECT_LE(r->values["locks"], r->values["allowed"])
      << kRuleFastPath << ": " << pattern << "took " << r->values["locks"]
      << " locks (lock.h) in its " << r->values["ops"]
      << " counted allocations (at most " << r->values["allowed"]
      << " allowed)";
}

TEST(DesignFastPath, AProducerOfSmallMessagesIsPrivate) {
  ExpectPrivateProducer(
      "small", absl::StrCat("messages of ", kProducerSmallBytes, " bytes"));
}

TEST(DesignFastPath, AProducerOfMessagesOfEveryLargerClassIsPrivate) {
  ExpectPrivateProducer(
      "larger",
      "messages of every class above 8 KiB in turn, each of the least size "
      "it holds");
}

// Each edge size from kProducerEdgeLeast on, each held to its own
// allowance (ProducerEdgeVisitsCall()).
TEST(DesignFastPath, AProducerOfMessagesOfEachEdgeSizeOver4KiBIsPrivate) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_producer_edge_visits");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << kRuleAvailable << ": Allocate() failed in the producer";
  EXPECT_EQ(r->values["broken"], 0);
  EXPECT_EQ(r->values["cases"], static_cast<double>(ProducerEdgeSizes().size()))
      << "the producer did not run for every size";
}

// Promise 1 for a producer whose consumer keeps a window of messages: the
// consumer frees only the oldest, once kWindowSize-byte messages are
// `depth` live, so the producer's spans come back one block at a time,
// from another thread, and never all at once. Each depth from 1 to
// kWindowMostDepth (up to kWindowMostDepth * kWindowSize live: the top of
// promise 4's "a few hundred KiB") runs on a new producer, after a thread
// that exited with its blocks of that size out has left its span with
// room, blocks freed by another thread waiting in it: the producer may
// take it over. kWindowWarmMessages to warm up, then kWindowCountedMessages
// counted, each depth held to its own allowance (and one call's more).
// A design that rates how many blocks a batch or a span is worth by the
// largest size of a class, where promise 1 counts the size asked for, or
// that forgets on taking over a span how many of its blocks it handed
// out, meets the consumer more often than the calls allow at some depths
// only (37 to 39 and from 38 on, in review rv9's drivers).
constexpr size_t kWindowSize = 8 * kKiB + 1;  // the first of the byte rule
constexpr int kWindowMostDepth = 64;
constexpr int kWindowWarmMessages = 1000;
constexpr int kWindowCountedMessages = 4000;
constexpr int kWindowLeftBlocks = 51;

// LeaveASpanWithRoom()
//
// A thread allocates kWindowLeftBlocks blocks of kWindowSize, this thread
// frees all but the last, the thread allocates that many again and exits
// with all of them out; this thread frees those again.
void LeaveASpanWithRoom() {
  std::vector<void*> first(kWindowLeftBlocks), second(kWindowLeftBlocks - 1);
  std::atomic<int> step{0};
  std::thread owner([&] {
    for (void*& p : first) p = Allocate(kWindowSize, 1, false);
    step.store(1);
    while (step.load() != 2) sched_yield();  // bounded: this thread frees
    for (void*& p : second) p = Allocate(kWindowSize, 1, false);
  });
  while (step.load() != 1) sched_yield();  // bounded: the owner allocates
  for (int i = 0; i + 1 < kWindowLeftBlocks; ++i) Free(first[i]);
  step.store(2);
  owner.join();
  for (void* p : second) Free(p);
  // first.back() stays out: the span is nobody's with a block live.
}

void WindowVisitsCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;  // no decay between the depths
  internal::SetLockObserver(CountLocksTaken);
  uint64_t failed = 0;
  int broken = 0;  // the first window that broke it, or 0
  std::string first_break;
  int tightest_depth = 0;
  uint64_t tightest_most = 0, tightest_allowed = 1;
  for (int depth = 1; depth <= kWindowMostDepth; ++depth) {
    LeaveASpanWithRoom();
    std::deque<void*> live;
    uint64_t visits = 0, locks = 0;
    Calls calls;
    TakeTurns(
        kWindowWarmMessages + kWindowCountedMessages,
        [&](int i) {
          const uint64_t visits_before = ReadCounters().central_visits;
          const uint64_t locks_before = locks_taken;
          void* p = Allocate(kWindowSize, 1, false);
          if (i >= kWindowWarmMessages) {
            locks += locks_taken - locks_before;
            visits += ReadCounters().central_visits - visits_before;
            calls.Add(kWindowSize);
          }
          if (p == nullptr) {
            ++failed;
            return;
          }
          static_cast<volatile char*>(p)[0] = 1;
          live.push_back(p);
        },
        [&](int) {
          if (live.size() < static_cast<size_t>(depth)) return;
          Free(live.front());
          live.pop_front();
        });
    for (void* p : live) Free(p);
    calls.Add(kWindowSize);  // a batch fetched last serves the next call
    const uint64_t allowed = calls.Allowed();
    const uint64_t most = std::max(visits, locks);
    if (most * tightest_allowed >= tightest_most * allowed) {
      tightest_depth = depth;  // the nearest its allowance, for the record
      tightest_most = most;
      tightest_allowed = allowed;
    }
    if (most <= allowed) continue;
    // The first broken window says enough: the windows after it would only
    // make a design that breaks the promise (the starter, a known-bad) wait.
    broken = depth;
    first_break =
        absl::StrCat(depth, " messages live (", depth * kWindowSize,
                     " bytes): ", visits, " central visits and ", locks,
                     " locks (lock.h) in ", kWindowCountedMessages,
                     " counted allocations, at most ", allowed, " allowed");
    break;
  }
  internal::SetLockObserver(nullptr);
  call.Record("failed", static_cast<double>(failed));
  call.Record("broken", broken);
  call.Record("tightest_depth", tightest_depth);
  call.Record("tightest_visits", static_cast<double>(tightest_most));
  call.Record("tightest_allowed", static_cast<double>(tightest_allowed));
  if (broken != 0) {
    call.Fail(absl::StrCat(
        kRuleFastPath, ": a producer of messages of ", kWindowSize,
        " bytes whose consumer frees the oldest once a window of them is "
        "live (taking turns, one message a turn; each window after a thread "
        "exited leaving a span of that size with room, windows of 1 to ",
        kWindowMostDepth, " in turn): at ", first_break,
        " (kBytesPerCentralVisit = ", kBytesPerCentralVisit, ")"));
  }
}
ALLOCLAB_FRESH_CALL("allocator_design_window_visits", WindowVisitsCall);

TEST(DesignFastPath, AProducerWhoseConsumerKeepsAWindowLiveIsPrivate) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_window_visits");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << kRuleAvailable << ": Allocate() failed in the producer";
  EXPECT_EQ(r->values["broken"], 0);
  // The window nearest its allowance: how much room the design has.
  for (const char* value :
       {"tightest_depth", "tightest_visits", "tightest_allowed"}) {
    ::testing::Test::RecordProperty(value,
                                    static_cast<int64_t>(r->values[value]));
  }
}

// ---------------------------------------------------------------------------
// Design, explored: promise 1. Random schedules of one measured thread's
// allocations and frees, in random groupings, between the work of other
// threads; each in a fresh process from its own seed, the clock standing
// still. The schedule runs whole until the measured thread's steps of
// kFastQuietPasses passes in a row make no map, unmap or release (the
// warm-up: every grouping it will make, of every size it will use, made
// before, and the memory it needs beside the other threads' held), then once
// more, counted: after every step of the measured thread, what it did since
// the counted pass began is held to the promise, by the suite's own counts
// (lock.h's observer, on that thread; the page source's maps, unmaps and
// releases) beside the allocator's central_visits.
// ---------------------------------------------------------------------------

constexpr int kFastSchedules = SchedulesToRun(24);
constexpr int kFastScheduleSteps = 60;
constexpr int kFastQuietPasses = 2;
constexpr int kFastMostWarmPasses = 8;
constexpr int kFastOthers = 2;
constexpr int kFastPaletteSizes = 4;
constexpr int kFastMostHeld = 64;  // blocks the measured thread keeps live

// FastPathExplorer
//
// One schedule: a palette of kFastPaletteSizes sizes drawn from `seed` (class
// edges to 256 KiB, GroupedSizes(), half of them small), and steps, each
// either the measured thread's or another thread's. The measured thread's:
// pairs (one block allocated and freed at once, n times, of one size or
// cycling through the palette); a burst (n blocks of one size, or of the
// palette's sizes interleaved, then all freed: in the order allocated, the
// reverse, or shuffled); blocks kept live across steps, and freed by a later
// step. Another thread's: its own blocks, of any size to 256 KiB, allocated
// or freed, or its exit. The whole schedule is drawn afresh from `seed` on each
// pass, so every pass makes the same calls; the measured thread's blocks stay
// its own (no other thread frees them). After each counted step, with c calls
// of sizes s made so far in the counted pass, the visits allowed are the sum
// of max(s, kBytesPerCentralVisit / kOpsPerCentralVisit), divided by
// kBytesPerCentralVisit and rounded up ("at most once every
// kOpsPerCentralVisit calls": a visit at the first call, the next one
// kOpsPerCentralVisit calls later); the locks it took and the
// central_visits counted must each be at most that, and the page source's
// maps, unmaps and releases made in its steps must be none.
class FastPathExplorer {
 public:
  FastPathExplorer(uint64_t seed, int steps)
      : seed_(seed),
        steps_count_(steps),
        sizes_(GroupedSizes()),
        small_sizes_(std::upper_bound(sizes_.begin(), sizes_.end(), kKiB) -
                     sizes_.begin()) {}

  // "" when every check held, else the failure, with the seed and the
  // schedule's steps so far.
  std::string Run() {
    // The warm-up: on until the measured thread's steps of
    // kFastQuietPasses passes in a row make no map, unmap or release.
    for (int quiet = 0; quiet < kFastQuietPasses;) {
      measured_page_calls_ = 0;
      Pass();
      ++warm_passes_;
      quiet = measured_page_calls_ == 0 ? quiet + 1 : 0;
      if (quiet < kFastQuietPasses && warm_passes_ == kFastMostWarmPasses) {
        measured_.Exit();
        return absl::StrCat(
            kRuleFastPath, ": fast-path explorer seed ", seed_, " with ",
            steps_count_, " random steps: in ", kFastMostWarmPasses,
            " passes of the same schedule, the measured thread's steps never "
            "went ",
            kFastQuietPasses,
            " passes in a row without a map, "
            "unmap or release (the page source's count): no warm-up ended");
      }
    }
    counted_ = true;
    Pass();
    measured_.Exit();
    return failure_;
  }

  int checks() const { return checks_; }
  int warm_passes() const { return warm_passes_; }
  uint64_t ops() const { return ops_; }
  uint64_t visits() const { return visits_; }
  uint64_t locks() const { return locks_; }

 private:
  // The schedule, from its start: the same calls on every pass. Every
  // thread ends it as it began, with nothing live (the other threads exit).
  void Pass() {
    rng_ = Rng(seed_);
    Palette();
    for (int step = 0; step < steps_count_ && failure_.empty(); ++step) {
      RandomStep();
    }
    FreeHeld();
    for (int t = 0; t < kFastOthers; ++t) OtherExits(t);
  }

  void Palette() {
    for (int i = 0; i < kFastPaletteSizes; ++i) {
      // Half of the palette small: a class edge to 1 KiB.
      const size_t size =
          sizes_[rng_.Next() % (i % 2 == 0 ? small_sizes_ : sizes_.size())];
      palette_[i] = std::max<size_t>(size, 1);
    }
  }

  size_t PaletteSize() { return palette_[rng_.Next() % kFastPaletteSizes]; }

  void RandomStep() {
    const uint64_t pick = rng_.Next() % 100;
    if (pick < 25) {
      Pairs();
    } else if (pick < 55) {
      Burst();
    } else if (pick < 70) {
      Hold();
    } else {
      Other(static_cast<int>(rng_.Next() % kFastOthers));
    }
  }

  // Runs `calls` (sizes of the blocks they allocate or free, in order) on
  // the measured thread through `fn`, and in the counted pass checks.
  void Measured(absl::string_view what, const std::vector<size_t>& calls,
                const std::function<void()>& fn) {
    const uint64_t visits_before = ReadCounters().central_visits;
    const uint64_t pages_before = PageSourceCalls();
    uint64_t locks = 0;
    measured_.Run([&] {
      const uint64_t before = locks_taken;
      fn();
      locks = locks_taken - before;
    });
    const uint64_t visits = ReadCounters().central_visits - visits_before;
    const uint64_t page_calls = PageSourceCalls() - pages_before;
    measured_page_calls_ += page_calls;
    Note(absl::StrCat("measured: ", what, " (", visits, " visits, ", locks,
                      " locks, ", page_calls, " maps/unmaps/releases)"));
    if (!counted_) return;
    for (size_t size : calls) {
      ++ops_;
      credit_ += VisitCredit(size);
    }
    visits_ += visits;
    locks_ += locks;
    page_calls_ += page_calls;
    ++checks_;
    const uint64_t allowed =
        (credit_ + kBytesPerCentralVisit - 1) / kBytesPerCentralVisit;
    if (visits_ <= allowed && locks_ <= allowed && page_calls_ == 0) return;
    Fail(absl::StrCat(
        kRuleFastPath, ": after a warm-up (the whole schedule, ", warm_passes_,
        " times, the last ", kFastQuietPasses,
        " with no map, unmap or release in its steps), the measured "
        "thread's ",
        ops_, " calls of the counted pass so far made ", visits_,
        " central visits (the allocator's count) and took ", locks_,
        " locks (lock.h's observer), at most ", allowed, " allowed, and made ",
        page_calls_,
        " maps, unmaps and releases (the page source's count), "
        "none allowed (kOpsPerCentralVisit = ",
        kOpsPerCentralVisit,
        ", kBytesPerCentralVisit = ", kBytesPerCentralVisit, ")"));
  }

  // n pairs, each a block allocated and freed at once.
  void Pairs() {
    const int n = static_cast<int>(rng_.Between(1, 64));
    const bool cycle = rng_.Next() % 2 == 0;
    std::vector<size_t> sizes(n, PaletteSize());
    for (int i = 0; cycle && i < n; ++i) {
      sizes[i] = palette_[i % kFastPaletteSizes];
    }
    std::vector<size_t> calls;
    for (size_t size : sizes) calls.insert(calls.end(), {size, size});
    Measured(absl::StrCat(n, " pairs", cycle ? " cycling the palette" : "",
                          " of ", sizes[0], " bytes"),
             calls, [&] {
               for (size_t size : sizes) {
                 void* p = Allocate(size, 1, false);
                 static_cast<volatile char*>(p)[0] = 1;
                 Free(p);
               }
             });
  }

  // n blocks allocated, then all freed.
  void Burst() {
    const int n = static_cast<int>(rng_.Between(1, kMostGroup));
    const bool interleaved = rng_.Next() % 3 == 0;
    const size_t one = PaletteSize();
    std::vector<size_t> sizes(n, one);
    if (interleaved) {
      for (int i = 0; i < n; ++i) sizes[i] = palette_[i % kFastPaletteSizes];
    }
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    const uint64_t how = rng_.Next() % 3;
    if (how == 1) std::reverse(order.begin(), order.end());
    if (how == 2) {
      for (int i = n; i > 1; --i)
        std::swap(order[i - 1], order[rng_.Next() % i]);
    }
    std::vector<size_t> calls = sizes;
    for (int i : order) calls.push_back(sizes[i]);
    std::vector<void*> blocks(n);
    Measured(
        absl::StrCat("a burst of ", n,
                     interleaved ? " blocks of the palette interleaved"
                                 : absl::StrCat(" blocks of ", one, " bytes"),
                     ", freed ",
                     how == 0   ? "in order"
                     : how == 1 ? "in reverse"
                                : "shuffled"),
        calls, [&] {
          for (int i = 0; i < n; ++i) {
            blocks[i] = Allocate(sizes[i], 1, false);
            static_cast<volatile char*>(blocks[i])[0] = 1;
          }
          for (int i : order) Free(blocks[i]);
        });
  }

  // Blocks kept live across steps: some allocated, or some of those freed.
  void Hold() {
    const bool more = held_.size() < kFastMostHeld / 2 ||
                      (held_.size() < kFastMostHeld && rng_.Next() % 2 == 0);
    std::vector<size_t> calls;
    if (more) {
      const int n = static_cast<int>(rng_.Between(1, 16));
      std::vector<Block> got(n);
      for (Block& b : got) b.size = PaletteSize();
      for (const Block& b : got) calls.push_back(b.size);
      Measured(
          absl::StrCat(n, " blocks kept live (", held_.size() + n, " now)"),
          calls, [&] {
            for (Block& b : got) {
              b.p = Allocate(b.size, 1, false);
              static_cast<volatile char*>(b.p)[0] = 1;
            }
          });
      held_.insert(held_.end(), got.begin(), got.end());
      return;
    }
    std::vector<Block> chosen, kept;
    for (const Block& b : held_) {
      (rng_.Next() % 2 == 0 ? chosen : kept).push_back(b);
    }
    held_ = std::move(kept);
    FreeOnMeasured(chosen);
  }

  // The measured thread frees every block it kept, at the end of a pass.
  void FreeHeld() {
    std::vector<Block> all = std::move(held_);
    held_.clear();
    if (!all.empty()) FreeOnMeasured(all);
  }

  void FreeOnMeasured(const std::vector<Block>& blocks) {
    std::vector<size_t> calls;
    for (const Block& b : blocks) calls.push_back(b.size);
    Measured(absl::StrCat(blocks.size(), " kept blocks freed"), calls, [&] {
      for (const Block& b : blocks) Free(b.p);
    });
  }

  // Another thread's own work: blocks of any size allocated, or freed, or
  // its exit (after freeing what it has).
  void Other(int t) {
    const uint64_t pick = rng_.Next() % 10;
    if (others_[t] == nullptr) others_[t] = std::make_unique<ScheduledThread>();
    std::vector<void*>& live = others_live_[t];
    if (pick < 5 && live.size() < 256) {
      const int n = static_cast<int>(rng_.Between(1, 64));
      std::vector<size_t> sizes(n);
      for (size_t& size : sizes) {
        size = std::min(MixedSize(rng_), kPromiseOneMax);
      }
      others_[t]->Run([&] {
        for (size_t size : sizes) live.push_back(Allocate(size, 1, false));
      });
      Note(absl::StrCat("other thread ", t, " allocates ", n, " blocks"));
    } else if (pick < 9) {
      const size_t n = rng_.Between(0, live.size());
      others_[t]->Run([&] {
        for (size_t i = 0; i < n; ++i) {
          Free(live.back());
          live.pop_back();
        }
      });
      Note(absl::StrCat("other thread ", t, " frees ", n, " blocks"));
    } else {
      OtherExits(t);
    }
  }

  // Another thread frees what it has and exits.
  void OtherExits(int t) {
    if (others_[t] == nullptr) return;
    others_[t]->Run([&] {
      for (void* p : others_live_[t]) Free(p);
    });
    others_live_[t].clear();
    others_[t]->Exit();
    others_[t] = nullptr;
    Note(absl::StrCat("other thread ", t, " frees all and exits"));
  }

  void Note(std::string step) {
    if (counted_) log_.Note(std::move(step));
  }

  void Fail(const std::string& what) {
    failure_ = log_.Failure(what, "fast-path explorer", seed_, steps_count_);
  }

  const uint64_t seed_;
  const int steps_count_;
  const std::vector<size_t> sizes_;  // GroupedSizes(), sorted
  const size_t small_sizes_;         // how many of them are 1 KiB at most
  Rng rng_{0};
  size_t palette_[kFastPaletteSizes] = {};
  bool counted_ = false;
  int warm_passes_ = 0;
  uint64_t measured_page_calls_ = 0;  // in the measured thread's steps
  ScheduledThread measured_;
  std::vector<Block> held_;
  std::unique_ptr<ScheduledThread> others_[kFastOthers];
  std::vector<void*> others_live_[kFastOthers];
  uint64_t ops_ = 0, credit_ = 0, visits_ = 0, locks_ = 0, page_calls_ = 0;
  ScheduleLog log_;
  std::string failure_;
  int checks_ = 0;
};

void FastPathExplorerCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  uint64_t seed = 0;
  int steps = kFastScheduleSteps;
  if (!ParseSchedule(call, seed, steps)) return;
  internal::SetLockObserver(CountLocksTaken);
  FastPathExplorer explorer(seed, steps);
  const std::string failure = explorer.Run();
  internal::SetLockObserver(nullptr);
  call.Record("checks", explorer.checks());
  call.Record("warm_passes", explorer.warm_passes());
  call.Record("ops", static_cast<double>(explorer.ops()));
  call.Record("visits", static_cast<double>(explorer.visits()));
  call.Record("locks", static_cast<double>(explorer.locks()));
  if (!failure.empty()) call.Fail(failure);
}
ALLOCLAB_FRESH_CALL("allocator_design_fast_path_explorer",
                    FastPathExplorerCall);

TEST(DesignFastPathExplorer, RandomGroupingsAfterAWarmUpArePrivate) {
  int checks = 0;
  double ops = 0, visits = 0, locks = 0;
  for (uint64_t seed = 1; seed <= kFastSchedules; ++seed) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_fast_path_explorer", absl::StrCat(seed));
    ASSERT_TRUE(r.ok()) << ShortestSchedule(
        "allocator_design_fast_path_explorer", seed, kFastScheduleSteps,
        r.status());
    checks += static_cast<int>(r->values["checks"]);
    ops += r->values["ops"];
    visits += r->values["visits"];
    locks += r->values["locks"];
  }
  EXPECT_GE(checks, kFastSchedules * kFastScheduleSteps / 2)
      << "the explorer checked too rarely";
  ::testing::Test::RecordProperty("checks", checks);
  ::testing::Test::RecordProperty("ops", static_cast<int64_t>(ops));
  ::testing::Test::RecordProperty("visits", static_cast<int64_t>(visits));
  ::testing::Test::RecordProperty("locks", static_cast<int64_t>(locks));
}

}  // namespace
}  // namespace allocator_design::suite
