// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: suite_support.h
// -----------------------------------------------------------------------------
//
// What the files of lab allocator_design's suite share: the rules in
// task.h's words (every failure message quotes one), the fixed-seed sizes
// and byte patterns, the three counts of the bytes held (HeldNow: the
// allocator's, the page source's and the kernel's, none believed alone:
// held.h, which this includes),
// promise 1's allowance of central visits (Calls), the edge sizes, the lock
// counter, and the explorers' schedules (ScheduledThread, ScheduleLog). The
// suite is a file per part of task.h: task_test.cc (the Validator tests),
// fast_path_test.cc, decay_test.cc and decay_edges_test.cc,
// churn_and_messages_test.cc and churn_edges_test.cc, utilization_test.cc,
// own_lines_test.cc and own_lines_refusal_test.cc (promises 1 to 6),
// locks_test.cc
// and static_state_test.cc; each is linked against every implementation.
//
// Example:
//
//   namespace allocator_design::suite {
//   TEST(DesignMine, Something) {
//     Rng rng(1);
//     void* p = Allocate(MixedSize(rng), 1, false);
//     EXPECT_NE(p, nullptr) << kRuleAvailable;
//     Free(p);
//   }
//   }  // namespace allocator_design::suite

#ifndef ALLOCLAB_TESTS_ALLOCATOR_DESIGN_SUITE_SUPPORT_H_
#define ALLOCLAB_TESTS_ALLOCATOR_DESIGN_SUITE_SUPPORT_H_

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
#include "tests/allocator_design/held.h"
#include "tests/allocator_design/run_fresh.h"

namespace allocator_design {

// Failures print the allocator's counters and the page source's by field:
// through PrintTo() in GoogleTest's messages, through AbslStringify() in
// absl::StrCat() where the installed Abseil has it (20230125 and later).
inline std::string Describe(const Counters& c) {
  return absl::StrFormat("{central_visits=%d bytes_held=%d bytes_returned=%d}",
                         c.central_visits, c.bytes_held, c.bytes_returned);
}

inline std::string Describe(const PageSourceCounts& c) {
  return absl::StrFormat(
      "{map_calls=%d unmap_calls=%d release_calls=%d bytes_mapped=%d "
      "bytes_unmapped=%d bytes_released=%d}",
      c.map_calls, c.unmap_calls, c.release_calls, c.bytes_mapped,
      c.bytes_unmapped, c.bytes_released);
}

template <typename Sink>
void AbslStringify(Sink& sink, const Counters& c) {
  sink.Append(Describe(c));
}

template <typename Sink>
void AbslStringify(Sink& sink, const PageSourceCounts& c) {
  sink.Append(Describe(c));
}

inline void PrintTo(const Counters& c, std::ostream* os) { *os << Describe(c); }

inline void PrintTo(const PageSourceCounts& c, std::ostream* os) {
  *os << Describe(c);
}

namespace suite {

// The rules, in task.h's words, for the failure messages.
inline constexpr absl::string_view kRuleAligned =
    "task.h, Allocate(): a block is aligned to `alignment`, or to "
    "kMinAlignment when that is larger";
inline constexpr absl::string_view kRuleOverlap =
    "task.h, Validator: no two live blocks overlap";
inline constexpr absl::string_view kRuleSurvive =
    "task.h, Validator: a block's bytes survive until it is freed";
inline constexpr absl::string_view kRuleZero =
    "task.h, Allocate(): when `zero`, its first `size` bytes read as zeroes "
    "(recycled memory too)";
inline constexpr absl::string_view kRuleSizeZero =
    "task.h, Allocate(): size 0 gives a unique block of its own";
inline constexpr absl::string_view kRuleUsable =
    "task.h, UsableSize(): at least the size asked for";
inline constexpr absl::string_view kRuleErrno =
    "task.h, Free(): leaves errno as it found it";
inline constexpr absl::string_view kRuleAvailable =
    "task.h, Allocate(): nullptr only when the page source refuses, or the "
    "size is so large that rounding it up would overflow";
inline constexpr absl::string_view kRuleRefused =
    "task.h, Allocate(): nullptr when it cannot be had: the page source "
    "refuses";
inline constexpr absl::string_view kRuleImpossible =
    "task.h, Allocate(): nullptr when the size is so large that rounding it "
    "up would overflow";
inline constexpr absl::string_view kRuleFastPath =
    "task.h, promise 1 (the fast path is private): after a warm-up, a "
    "thread that allocates and frees blocks of sizes it has used before, "
    "of any size up to 256 KiB at the default alignment, and frees only "
    "blocks it allocated (or leaves them to another thread), makes no "
    "system call, and takes a lock or "
    "touches a list other threads write (a central visit) at most once "
    "every kOpsPerCentralVisit calls, or, for blocks larger than 8 KiB, "
    "once per kBytesPerCentralVisit bytes allocated and freed, however its "
    "allocations and frees are grouped";
inline constexpr absl::string_view kRuleNotStopped =
    "task.h, promise 1 (the fast path is private): another thread stopped "
    "inside the allocator never stops it";
inline constexpr absl::string_view kRuleDecay =
    "task.h, promise 2 (idle memory goes back): once every block is freed "
    "and kDecayNs has passed on the page source's clock, the thread that "
    "next makes kDecayCheckOps calls leaves at most kIdleHeldBytes held, "
    "beside the largest block over 256 KiB that those calls allocate";
// Promise 2's sentences on blocks whose owner still runs, and on blocks
// that other threads allocated.
inline constexpr absl::string_view kRuleDecayOwner =
    "task.h, promise 2 (idle memory goes back): blocks that a thread still "
    "running allocated may wait for that thread instead (a design whose "
    "pages only their owner collects cannot reach them): they go back once "
    "it, too, has made kDecayCheckOps calls after kDecayNs has passed, or "
    "has exited (not the blocks other threads allocated that it freed, "
    "whatever it keeps of them for its own use); the bytes held are then at "
    "most kIdleHeldBytes, and "
    "kIdleThreadBytes more for each other thread still running that made "
    "its calls";
// Promise 2 for several threads that call after the decay and run on.
inline constexpr absl::string_view kRuleDecayRunningThreads =
    "task.h, promise 2 (idle memory goes back): when k threads that have not "
    "exited have each made kDecayCheckOps calls after kDecayNs passed (at "
    "the same time or one after another), at most kIdleHeldBytes + (k - 1) x "
    "kIdleThreadBytes stay held in all, and a thread that has not made such "
    "calls adds nothing";
inline constexpr absl::string_view kRuleChurn =
    "task.h, promise 3 (thread exit gives back): threads that allocate, "
    "free and exit leave at most kThreadChurnHeldBytes held after each exit, "
    "beside the blocks still live, however many there were (at most "
    "kThreadChurnLiveBytes of blocks up to "
    "256 KiB live at once)";
inline constexpr absl::string_view kRuleMessages =
    "task.h, promise 4 (producer and consumer stay bounded): when one "
    "thread allocates what another frees, with at most a few hundred KiB of "
    "messages live at once, small or large, the bytes held stay at most "
    "kMessagePassingHeldBytes";
inline constexpr absl::string_view kRuleOwnLines =
    "task.h, promise 6 (threads keep to their own cache lines): of two "
    "threads that both run and each free only their own blocks, no cache "
    "line (kOwnLineBytes, or the machine's coherency line when larger) "
    "holds bytes of live blocks of both, "
    "at any size and alignment";
inline constexpr absl::string_view kRuleUtilization =
    "task.h, promise 5 (memory is used): on each fixed trace, the peak of "
    "the bytes requested and live divided by the peak of the bytes held is "
    "at least kMinUtilization";
inline constexpr absl::string_view kRuleVisits =
    "task.h, Counters: central_visits is the times any thread met the "
    "others to take or give back blocks or memory (took a lock, or touched "
    "a list other threads write)";
inline constexpr absl::string_view kRuleCounters =
    "task.h, Counters: bytes_held is what is mapped and not unmapped or "
    "released (a released range taken into use again is held again); "
    "bytes_returned is what was unmapped or released (pages.h's counts)";

inline constexpr size_t kKiB = 1024;
inline constexpr size_t kMiB = 1024 * 1024;

// kSanitized
//
// Whether this build runs under AddressSanitizer or ThreadSanitizer.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// SchedulesToRun()
//
// Of an explorer's `schedules` (each a fixed seed), how many this build
// runs: all of them in the plain build, which judges the promise (and the
// known-bads, which run in it alone); the first quarter, at least one,
// under a sanitizer. A sanitizer's run is there for what it alone sees (a
// race, an access out of bounds), which every schedule reaches by mixing
// every kind of call, at 5 to 15 times the plain build's cost: the four
// explorers took 30 s of the reference's 115 s under ThreadSanitizer.
inline constexpr int SchedulesToRun(int schedules) {
  return kSanitized ? std::max(1, schedules / 4) : schedules;
}

// A small, fixed-seed generator (splitmix64): the same sizes on every run.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  size_t Between(size_t lo, size_t hi) {
    return lo + static_cast<size_t>(Next() % (hi - lo + 1));
  }

 private:
  uint64_t state_;
};

// Mostly small blocks, some medium, a few large (past any sensible
// large-block threshold): the mix of lab jemalloc_adoption's workloads.
inline size_t MixedSize(Rng& rng) {
  const uint64_t pick = rng.Next() % 100;
  if (pick < 70) return rng.Between(1, 256);
  if (pick < 90) return rng.Between(257, 8 * kKiB);
  if (pick < 98) return rng.Between(8 * kKiB + 1, 256 * kKiB);
  return rng.Between(256 * kKiB + 1, 2 * kMiB);
}

// The bytes a block is filled with: a fixed tape, entered at an offset
// that its seed picks, so that neighbouring blocks differ. Built before
// main() (a forked child must not build it), and written and compared with
// memcpy() and memcmp(), which a sanitizer checks a range at a time: a
// byte loop under ThreadSanitizer costs a check per byte.
inline constexpr size_t kMaxPatternBytes = size_t{4} << 20;
inline constexpr size_t kTapeEntries = 4093;  // a prime: seeds spread over it
inline uint8_t tape[kMaxPatternBytes + kTapeEntries];
[[maybe_unused]] inline const bool tape_ready = [] {
  for (size_t j = 0; j < sizeof(tape); ++j) {
    tape[j] = static_cast<uint8_t>((j * 7) ^ (j >> 8) ^ (j >> 16));
  }
  return true;
}();

inline const uint8_t* PatternOf(uint64_t seed) {
  return tape + seed % kTapeEntries;
}

inline void Fill(void* block, size_t size, uint64_t seed) {
  if (size > kMaxPatternBytes) {
    fprintf(stderr, "Fill(): %zu bytes, the tape has %zu\n", size,
            kMaxPatternBytes);
    abort();
  }
  std::memcpy(block, PatternOf(seed), size);
}

// The first offset at which `a` and `b` differ over `size` bytes, or -1.
inline int64_t FirstDifference(const uint8_t* a, const uint8_t* b,
                               size_t size) {
  if (std::memcmp(a, b, size) == 0) return -1;
  for (size_t i = 0; i < size; ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

// The first offset whose byte is not the pattern's, or -1.
inline int64_t FirstChanged(const void* block, size_t size, uint64_t seed) {
  return FirstDifference(static_cast<const uint8_t*>(block), PatternOf(seed),
                         size);
}

// The first non-zero offset of `size` bytes, or -1.
inline int64_t FirstNonZero(const void* block, size_t size) {
  static const uint8_t zeroes[64 << 10] = {};
  const uint8_t* p = static_cast<const uint8_t*>(block);
  for (size_t at = 0; at < size; at += sizeof(zeroes)) {
    const size_t n = std::min(sizeof(zeroes), size - at);
    const int64_t i = FirstDifference(p + at, zeroes, n);
    if (i >= 0) return static_cast<int64_t>(at) + i;
  }
  return -1;
}

inline uintptr_t Address(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

// A live block of a test, with the size asked for and its pattern's seed.
struct Block {
  void* p = nullptr;
  size_t size = 0;
  uint64_t seed = 0;
};

// Runs `fn` on `count` threads, `at_once` at a time, each given its index.
template <typename Fn>
void RunThreadsInWaves(int count, int at_once, Fn fn) {
  for (int first = 0; first < count; first += at_once) {
    std::vector<std::thread> wave;
    for (int i = first; i < std::min(count, first + at_once); ++i) {
      wave.emplace_back(fn, i);
    }
    for (std::thread& t : wave) t.join();
  }
}

// VisitCredit()
//
// Promise 1's allowance for one call on a block of `size` bytes, in
// bytes: a visit per kOpsPerCentralVisit calls, or per
// kBytesPerCentralVisit bytes when that allows more (blocks larger than
// kBytesPerCentralVisit / kOpsPerCentralVisit). Summed over calls and
// divided by kBytesPerCentralVisit, the visits those calls allow.
inline uint64_t VisitCredit(size_t size) {
  return std::max<uint64_t>(size, kBytesPerCentralVisit / kOpsPerCentralVisit);
}

// OwnLineBytes()
//
// The line promise 6 is judged at: kOwnLineBytes, or this machine's
// coherency line (common/machine/cpu_facts.h) when that is larger; where
// the machine's cannot be read, kOwnLineBytes.
inline uintptr_t OwnLineBytes() {
  const absl::StatusOr<alloclab::CacheLine> line = alloclab::ReadCacheLine();
  return std::max<uintptr_t>(kOwnLineBytes, line.ok() ? line->bytes : 0);
}

// The largest block promise 1 covers ("of any size up to 256 KiB").
inline constexpr size_t kPromiseOneMax = 256 * kKiB;

// LeastSizesOfTheClassesAbove()
//
// For each quarter step above `below` (a power of two) to 256 KiB, the
// least size a class ending there holds: below + 1, below * 5 / 4 + 1, ...,
// 224 KiB + 1. The fewest bytes per call at each of the classes of designs
// with quarter steps (EdgeSizes()).
inline std::vector<size_t> LeastSizesOfTheClassesAbove(size_t below) {
  std::vector<size_t> sizes;
  for (size_t base = below; base < kPromiseOneMax; base *= 2) {
    for (size_t q = 1; q <= 4; ++q) {
      sizes.push_back(below + 1);
      below = base + q * base / 4;
    }
  }
  return sizes;
}

// LeastSizesOfTheLargerClasses()
//
// LeastSizesOfTheClassesAbove() kBytesPerCentralVisit / kOpsPerCentralVisit
// (8 KiB): 8 KiB + 1, 10 KiB + 1, ..., 224 KiB + 1, the fewest visits
// allowed at each.
inline std::vector<size_t> LeastSizesOfTheLargerClasses() {
  return LeastSizesOfTheClassesAbove(kBytesPerCentralVisit /
                                     kOpsPerCentralVisit);
}

// The sizes of the fast-path tests: several size classes, all small.
inline constexpr size_t kFastSizes[] = {16, 48, 64, 200, 1000, 3000};

inline constexpr int kFastSizeCount =
    sizeof(kFastSizes) / sizeof(kFastSizes[0]);

// Calls
//
// What a run of calls did, for promise 1's allowance: the calls, and the
// visits they allow (VisitCredit() summed, in kBytesPerCentralVisit).
struct Calls {
  uint64_t ops = 0;
  uint64_t credit = 0;

  void Add(size_t size) {
    ++ops;
    credit += VisitCredit(size);
  }
  uint64_t Allowed() const { return credit / kBytesPerCentralVisit; }
};

// `pairs` Allocate()/Free() pairs, their sizes `sizes` (an array or a
// vector of size_t) in turn.
template <typename Sizes>
Calls PairsOver(const Sizes& sizes, int pairs) {
  Calls calls;
  for (int i = 0; i < pairs; ++i) {
    const size_t size = sizes[i % std::size(sizes)];
    void* p = Allocate(size, 1, false);
    static_cast<volatile char*>(p)[0] = 1;
    Free(p);
    calls.Add(size);
    calls.Add(size);
  }
  return calls;
}

// `pairs` Allocate()/Free() pairs over kFastSizes.
inline Calls Pairs(int pairs) { return PairsOver(kFastSizes, pairs); }

// EdgeSizes()
//
// The sizes at which designs' classes and thresholds commonly change: every
// multiple of 16 to 128, then four steps per doubling to 256 KiB (the
// quarter steps of jemalloc, tcmalloc and the reference), and every power
// of two and one and a half times it up to `most`; each with its
// neighbours at -16, -1, +1 and +16. A class table or a large threshold
// that rounds one of them the wrong way serves a block shorter than asked.
inline std::vector<size_t> EdgeSizes(size_t most) {
  std::vector<size_t> edges;
  for (size_t s = 16; s <= 128; s += 16) edges.push_back(s);
  for (size_t base = 128; base < 256 * kKiB; base *= 2) {
    for (size_t q = 1; q <= 4; ++q) edges.push_back(base + q * base / 4);
  }
  for (size_t p = 1; p <= most; p *= 2) {
    edges.push_back(p);
    edges.push_back(p + p / 2);
  }
  std::vector<size_t> sizes;
  for (size_t edge : edges) {
    for (int delta : {-16, -1, 0, 1, 16}) {
      if (delta < 0 && edge <= static_cast<size_t>(-delta)) continue;
      const size_t size = edge + delta;
      if (size <= most + 16) sizes.push_back(size);
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// IdleBound()
//
// Promise 2's bound on the bytes held when `threads` threads that have not
// exited (at least one) have each made their kDecayCheckOps calls after
// kDecayNs, the largest block those calls allocate being `largest_block`
// bytes in each: kIdleHeldBytes + (threads - 1) x kIdleThreadBytes, and
// each thread's largest block over 256 KiB, to whole pages, beside.
inline uint64_t IdleBound(int threads, size_t largest_block) {
  const size_t page = PageSize();
  const uint64_t beside =
      largest_block > 256 * kKiB ? (largest_block + page - 1) & ~(page - 1) : 0;
  return kIdleHeldBytes + (threads - 1) * kIdleThreadBytes + threads * beside;
}

// FreeHighestOfEachPieceLast()
//
// Frees every one of `blocks`, the highest block of each `piece`-aligned
// piece of memory last: whatever a design keeps of the most recent frees
// (a cache, a list of other threads' blocks) then holds a block of each of
// many pieces, and keeps those pieces in use.
inline void FreeHighestOfEachPieceLast(const std::vector<void*>& blocks,
                                       size_t piece) {
  std::map<uintptr_t, void*> highest;
  for (void* p : blocks) {
    void*& top = highest[reinterpret_cast<uintptr_t>(p) / piece];
    if (top == nullptr || p > top) top = p;
  }
  for (void* p : blocks) {
    if (highest[reinterpret_cast<uintptr_t>(p) / piece] != p) Free(p);
  }
  for (const auto& [index, p] : highest) Free(p);
}

inline thread_local uint64_t locks_taken = 0;

inline void CountLocksTaken(const Lock&, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquired) ++locks_taken;
}

// kStoppedBound / WaitUntil()
//
// The one way the suite waits for another thread's step: WaitUntil()
// checks `ready` (yielding between checks) until it holds or kStoppedBound
// has passed, and returns whether it held. A bound, not a timing: each
// step waited for takes microseconds, unless a thread stopped on purpose
// (at the page source's map gate or a table step) holds what it needs;
// then the test goes on without it, and its verdict says so.
inline constexpr auto kStoppedBound = std::chrono::seconds(10);

template <typename Ready>
bool WaitUntil(Ready ready) {
  const auto bound = std::chrono::steady_clock::now() + kStoppedBound;
  for (;;) {
    if (ready()) return true;
    if (std::chrono::steady_clock::now() >= bound) return false;
    sched_yield();
  }
}

// ScheduledThread
//
// A thread that runs the calls it is given one at a time, each to its end
// before Run() returns: a schedule's calls from several threads in the one
// order the schedule fixes, so that its seed replays it exactly. Start()
// gives it a call and returns at once, for a step that another thread's
// step interrupts (Done() says whether the call has ended, Wait() waits
// for it). Exit() ends the thread and joins it: its exit hook
// (thread_exit.h) has run.
class ScheduledThread {
 public:
  ScheduledThread() : thread_([this] { Loop(); }) {}
  ~ScheduledThread() { Exit(); }

  void Run(std::function<void()> fn) {
    Start(std::move(fn));
    Wait();
  }

  void Start(std::function<void()> fn) {
    std::lock_guard<std::mutex> lock(mu_);
    task_ = std::move(fn);
    cv_.notify_all();
  }

  bool Done() {
    std::lock_guard<std::mutex> lock(mu_);
    return task_ == nullptr;
  }

  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return task_ == nullptr; });
  }

  void Exit() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
      cv_.notify_all();
    }
    thread_.join();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return task_ != nullptr || done_; });
      if (task_ == nullptr) return;
      lock.unlock();
      task_();
      lock.lock();
      task_ = nullptr;
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> task_;
  bool done_ = false;
  std::thread thread_;  // last: it starts once the rest is built
};

// ScheduleLog
//
// What an explorer's schedule did, a line per step, for its failure: the
// failure names the explorer, the seed and the number of random steps, so
// that the one fresh call replays it.
class ScheduleLog {
 public:
  void Note(std::string step) { steps_.push_back(std::move(step)); }

  // `what` went wrong in `explorer`'s schedule of `seed` with `steps`
  // random steps: the failure's text, the schedule so far after it.
  std::string Failure(absl::string_view what, absl::string_view explorer,
                      uint64_t seed, int steps) const {
    std::string failure = absl::StrCat(
        what, "; ", explorer, " seed ", seed, " with ", steps,
        " random steps, the schedule (clock steps from the start):");
    for (size_t i = 0; i < steps_.size(); ++i) {
      absl::StrAppend(&failure, "\n  ", i, ": ", steps_[i]);
    }
    return failure;
  }

 private:
  std::vector<std::string> steps_;
};

// ParseSchedule()
//
// An explorer's fresh call's argument, "seed" or "seed/steps", into `seed`
// and `steps` (left as it was when the argument has no steps). false, and
// the call failed, when it is neither.
inline bool ParseSchedule(alloclab::FreshCall& call, uint64_t& seed,
                          int& steps) {
  const std::vector<std::string> parts = absl::StrSplit(call.arg(), '/');
  if (parts.size() > 2 || !absl::SimpleAtoi(parts[0], &seed) ||
      (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &steps))) {
    call.Fail(absl::StrCat("not a seed or seed/steps: '", call.arg(), "'"));
    return false;
  }
  return true;
}

// ShortestSchedule()
//
// Seed `seed`'s schedule of the explorer run by the fresh call `fresh_call`
// failed with `failure`: the failure of the same seed with the fewest
// random steps before its end that fails too (0 to `most_steps`, each in a
// fresh process), and how to replay it.
inline std::string ShortestSchedule(absl::string_view fresh_call, uint64_t seed,
                                    int most_steps,
                                    const absl::Status& failure) {
  for (int steps = 0; steps < most_steps; ++steps) {
    const std::string arg = absl::StrCat(seed, "/", steps);
    absl::StatusOr<alloclab::FreshCallResult> r = RunFresh(fresh_call, arg);
    if (!r.ok()) {
      return absl::StrCat(r.status().message(),
                          "\n(the shortest failing schedule of seed ", seed,
                          " of those with fewer random steps than its ",
                          most_steps, "; replay it with the fresh call ",
                          fresh_call, " and the argument \"", arg, "\")");
    }
  }
  return std::string(failure.message());
}

// TakeShare()
//
// Moves a share of `from`'s items that `take` accepts to the result, in
// their order: each with one chance in four to four in four (drawn once
// from `rng`), or every one of them when `all`.
template <typename T, typename Take>
std::vector<T> TakeShare(Rng& rng, std::vector<T>& from, bool all, Take take) {
  std::vector<T> chosen, kept;
  const uint64_t share = rng.Between(1, 4);
  for (const T& item : from) {
    if (take(item) && (all || rng.Next() % 4 < share)) {
      chosen.push_back(item);
    } else {
      kept.push_back(item);
    }
  }
  from = std::move(kept);
  return chosen;
}

// TakeTurns()
//
// A producer and a consumer, each a thread of its own, taking turns:
// `producer(t)`, then `consumer(t)`, for each turn t below `turns`. One
// thread is in the allocator at a time, so a consumer's turn may read the
// bytes held by every count (ReadHeldNow()), and the order of the calls is
// the same on every run and every machine. Both have exited when it
// returns.
template <typename Producer, typename Consumer>
void TakeTurns(int turns, Producer producer, Consumer consumer) {
  std::atomic<int> turn{0};  // even: the producer's; odd: the consumer's
  auto wait_for = [&turn](int t) {
    while (turn.load(std::memory_order_acquire) != t) sched_yield();
  };
  std::thread producing([&] {
    for (int t = 0; t < turns; ++t) {
      wait_for(2 * t);
      producer(t);
      turn.store(2 * t + 1, std::memory_order_release);
    }
  });
  std::thread consuming([&] {
    for (int t = 0; t < turns; ++t) {
      wait_for(2 * t + 1);
      consumer(t);
      turn.store(2 * t + 2, std::memory_order_release);
    }
  });
  producing.join();
  consuming.join();
}

}  // namespace suite
}  // namespace allocator_design

#endif  // ALLOCLAB_TESTS_ALLOCATOR_DESIGN_SUITE_SUPPORT_H_
