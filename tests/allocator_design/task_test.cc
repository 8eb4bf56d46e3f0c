// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The check of lab allocator_design, written against task.h, the page
// source (pages.h and its test hooks) and the traces (traces.h). It is
// linked directly against an implementation, without the C ABI shim: the
// reference (solution_test), the starter (starter_test) and the known-bad
// solutions in this folder, which it must reject. The test binary's own
// malloc stays glibc's (or a sanitizer's), so GoogleTest, std::thread and
// the containers used here never run on the allocator under test; only the
// calls made through task.h do. The C ABI is checked apart, under
// LD_PRELOAD (abi_check.cc).
//
// Two parts, as task.h says:
//
//   Validator* tests: the malloclab-style facts every allocator owes its
//   callers, as contents and counts. The starter passes them all.
//
//   Design* tests: task.h's six promises, as counts: system calls (from
//   ptrace, common/instruments/syscalls.h), central visits and bytes held (the
//   allocator's Counters, themselves checked against the page source's
//   counts), utilization on the fixed traces. Whatever depends on what the
//   allocator has served before (bytes held, a cache of large blocks) runs
//   in a fresh copy of this binary (common/harness/fresh_process.h), so that no
//   verdict depends on which tests ran first. Time is the page source's
//   fake clock (internal/pages_testing.h), never the wall clock: "a second
//   later" is Advance(), and a thread "stopped inside the allocator" is one
//   parked at the page source's map gate, driven, not hoped for.
//
// Every failure message quotes the rule of task.h it checks.

#include "labs/allocator_design/task.h"

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
#include "labs/allocator_design/traces.h"
#include "tests/allocator_design/run_fresh.h"

namespace allocator_design {

// Failures print the allocator's counters and the page source's by field:
// through PrintTo() in GoogleTest's messages, through AbslStringify() in
// absl::StrCat() where the installed Abseil has it (20230125 and later).
std::string Describe(const Counters& c) {
  return absl::StrFormat("{central_visits=%d bytes_held=%d bytes_returned=%d}",
                         c.central_visits, c.bytes_held, c.bytes_returned);
}

std::string Describe(const PageSourceCounts& c) {
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

void PrintTo(const Counters& c, std::ostream* os) { *os << Describe(c); }

void PrintTo(const PageSourceCounts& c, std::ostream* os) {
  *os << Describe(c);
}

namespace {

// The rules, in task.h's words, for the failure messages.
constexpr absl::string_view kRuleAligned =
    "task.h, Allocate(): a block is aligned to `alignment`, or to "
    "kMinAlignment when that is larger";
constexpr absl::string_view kRuleOverlap =
    "task.h, Validator: no two live blocks overlap";
constexpr absl::string_view kRuleSurvive =
    "task.h, Validator: a block's bytes survive until it is freed";
constexpr absl::string_view kRuleZero =
    "task.h, Allocate(): when `zero`, its first `size` bytes read as zeroes "
    "(recycled memory too)";
constexpr absl::string_view kRuleSizeZero =
    "task.h, Allocate(): size 0 gives a unique block of its own";
constexpr absl::string_view kRuleUsable =
    "task.h, UsableSize(): at least the size asked for";
constexpr absl::string_view kRuleErrno =
    "task.h, Free(): leaves errno as it found it";
constexpr absl::string_view kRuleAvailable =
    "task.h, Allocate(): nullptr only when the page source refuses, or the "
    "size is so large that rounding it up would overflow";
constexpr absl::string_view kRuleRefused =
    "task.h, Allocate(): nullptr when it cannot be had: the page source "
    "refuses";
constexpr absl::string_view kRuleImpossible =
    "task.h, Allocate(): nullptr when the size is so large that rounding it "
    "up would overflow";
constexpr absl::string_view kRuleFastPath =
    "task.h, promise 1 (the fast path is private): after a warm-up, a "
    "thread that allocates and frees blocks of sizes it has used before, "
    "of any size up to 256 KiB, makes no system call, and takes a lock or "
    "touches a list other threads write (a central visit) at most once "
    "every kOpsPerCentralVisit calls, or, for blocks larger than 8 KiB, "
    "once per kBytesPerCentralVisit bytes allocated and freed, however its "
    "allocations and frees are grouped";
constexpr absl::string_view kRuleNotStopped =
    "task.h, promise 1 (the fast path is private): another thread stopped "
    "inside the allocator never stops it";
constexpr absl::string_view kRuleDecay =
    "task.h, promise 2 (idle memory goes back): once every block is freed "
    "and kDecayNs has passed on the page source's clock, the thread that "
    "next makes kDecayCheckOps calls leaves at most kIdleHeldBytes held";
constexpr absl::string_view kRuleChurn =
    "task.h, promise 3 (thread exit gives back): threads that allocate, "
    "free and exit leave at most kThreadChurnHeldBytes held, however many "
    "there were";
constexpr absl::string_view kRuleMessages =
    "task.h, promise 4 (producer and consumer stay bounded): when one "
    "thread allocates what another frees, with at most a few hundred KiB of "
    "messages live at once, small or large, the bytes held stay at most "
    "kMessagePassingHeldBytes";
constexpr absl::string_view kRuleOwnLines =
    "task.h, promise 6 (threads keep to their own cache lines): of two "
    "threads that both run and each free only their own blocks, no cache "
    "line (the machine's coherency line) holds bytes of live blocks of both, "
    "at any size";
constexpr absl::string_view kRuleUtilization =
    "task.h, promise 5 (memory is used): on each fixed trace, the peak of "
    "the bytes requested and live divided by the peak of the bytes held is "
    "at least kMinUtilization";
constexpr absl::string_view kRuleVisits =
    "task.h, Counters: central_visits is the times any thread met the "
    "others to take or give back blocks or memory (took a lock, or touched "
    "a list other threads write)";
constexpr absl::string_view kRuleCounters =
    "task.h, Counters: bytes_held is what is mapped and not unmapped or "
    "released (a released range taken into use again is held again); "
    "bytes_returned is what was unmapped or released (pages.h's counts)";

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

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
size_t MixedSize(Rng& rng) {
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
constexpr size_t kMaxPatternBytes = size_t{4} << 20;
constexpr size_t kTapeEntries = 4093;  // a prime: seeds spread over it
uint8_t tape[kMaxPatternBytes + kTapeEntries];
[[maybe_unused]] const bool tape_ready = [] {
  for (size_t j = 0; j < sizeof(tape); ++j) {
    tape[j] = static_cast<uint8_t>((j * 7) ^ (j >> 8) ^ (j >> 16));
  }
  return true;
}();

const uint8_t* PatternOf(uint64_t seed) { return tape + seed % kTapeEntries; }

void Fill(void* block, size_t size, uint64_t seed) {
  if (size > kMaxPatternBytes) {
    fprintf(stderr, "Fill(): %zu bytes, the tape has %zu\n", size,
            kMaxPatternBytes);
    abort();
  }
  std::memcpy(block, PatternOf(seed), size);
}

// The first offset at which `a` and `b` differ over `size` bytes, or -1.
int64_t FirstDifference(const uint8_t* a, const uint8_t* b, size_t size) {
  if (std::memcmp(a, b, size) == 0) return -1;
  for (size_t i = 0; i < size; ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

// The first offset whose byte is not the pattern's, or -1.
int64_t FirstChanged(const void* block, size_t size, uint64_t seed) {
  return FirstDifference(static_cast<const uint8_t*>(block), PatternOf(seed),
                         size);
}

// The first non-zero offset of `size` bytes, or -1.
int64_t FirstNonZero(const void* block, size_t size) {
  static const uint8_t zeroes[64 << 10] = {};
  const uint8_t* p = static_cast<const uint8_t*>(block);
  for (size_t at = 0; at < size; at += sizeof(zeroes)) {
    const size_t n = std::min(sizeof(zeroes), size - at);
    const int64_t i = FirstDifference(p + at, zeroes, n);
    if (i >= 0) return static_cast<int64_t>(at) + i;
  }
  return -1;
}

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

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

using ::allocator_design::suite::RunFresh;

// ---------------------------------------------------------------------------
// Validator: alignment, overlap, contents, zeroing, sizes.
// ---------------------------------------------------------------------------

TEST(ValidatorAlignment, EveryPowerOfTwoUpTo1MiB) {
  for (size_t alignment = 1; alignment <= kMiB; alignment *= 2) {
    const size_t want = std::max(alignment, kMinAlignment);
    for (size_t size :
         {size_t{0}, size_t{1}, size_t{24}, size_t{100}, alignment - 1,
          alignment, alignment + 1, 3 * alignment, size_t{70000}}) {
      std::vector<void*> blocks;
      for (int i = 0; i < 4; ++i) {
        void* p = Allocate(size, alignment, false);
        ASSERT_NE(p, nullptr) << kRuleAvailable << ": Allocate(" << size << ", "
                              << alignment << ") failed";
        EXPECT_EQ(Address(p) % want, 0u)
            << kRuleAligned << ": Allocate(" << size << ", " << alignment
            << ") gave " << p;
        if (size != 0) {
          // A block shorter than asked would be written past: say so first.
          ASSERT_GE(UsableSize(p), size) << kRuleUsable << ": Allocate(" << size
                                         << ", " << alignment << ") gave " << p;
          static_cast<volatile char*>(p)[0] = 1;
          static_cast<volatile char*>(p)[size - 1] = 1;
        }
        blocks.push_back(p);
      }
      for (void* p : blocks) Free(p);
    }
  }
}

TEST(ValidatorAlignment, EverySmallSizeAtTheMinimum) {
  std::vector<void*> blocks;
  for (size_t size = 1; size <= 4096; ++size) {
    void* p = Allocate(size, 1, false);
    ASSERT_NE(p, nullptr) << kRuleAvailable << ": Allocate(" << size
                          << ", 1) failed";
    EXPECT_EQ(Address(p) % kMinAlignment, 0u)
        << kRuleAligned << ": Allocate(" << size << ", 1) gave " << p;
    blocks.push_back(p);
  }
  for (void* p : blocks) Free(p);
}

// Thousands of live blocks of mixed sizes and alignments, some freed along
// the way: each new block's bytes, the size asked for or the usable size if
// that is more, must not meet any live block's.
TEST(ValidatorOverlap, NoTwoLiveBlocksOverlap) {
  Rng rng(18);
  std::map<uintptr_t, uintptr_t> live;  // start -> end (exclusive)
  std::vector<void*> blocks;
  int overlaps = 0;
  for (int i = 0; i < 6000; ++i) {
    if (!blocks.empty() && rng.Next() % 3 == 0) {
      const size_t k = rng.Next() % blocks.size();
      live.erase(Address(blocks[k]));
      Free(blocks[k]);
      blocks[k] = blocks.back();
      blocks.pop_back();
    }
    const size_t size = MixedSize(rng);
    const size_t alignment = size_t{1} << rng.Between(0, 12);
    void* p = Allocate(size, alignment, false);
    ASSERT_NE(p, nullptr) << kRuleAvailable << ": Allocate(" << size << ", "
                          << alignment << ") failed";
    const uintptr_t start = Address(p);
    const uintptr_t end = start + std::max({UsableSize(p), size, size_t{1}});
    auto next = live.lower_bound(start);
    const bool meets_next = next != live.end() && next->first < end;
    const bool meets_prev =
        next != live.begin() && std::prev(next)->second > start;
    if ((meets_next || meets_prev) && ++overlaps <= 5) {
      const auto& other = meets_next ? *next : *std::prev(next);
      ADD_FAILURE() << kRuleOverlap << ": [" << p << ", +" << (end - start)
                    << ") meets the live block ["
                    << reinterpret_cast<const void*>(other.first) << ", +"
                    << (other.second - other.first) << ")";
    }
    if (!meets_next && !meets_prev) {
      live[start] = end;
      blocks.push_back(p);
    }
  }
  EXPECT_EQ(overlaps, 0) << kRuleOverlap;
  for (void* p : blocks) Free(p);
}

// Every block filled with its own pattern, checked in full just before it
// is freed, while others come and go around it.
TEST(ValidatorContents, BytesSurviveUntilFree) {
  Rng rng(7);
  std::vector<Block> live;
  int changed = 0;
  auto check_and_free = [&](size_t k) {
    const Block b = live[k];
    const int64_t at = FirstChanged(b.p, b.size, b.seed);
    if (at >= 0 && ++changed <= 5) {
      ADD_FAILURE() << kRuleSurvive << ": the block " << b.p << " of " << b.size
                    << " bytes changed at offset " << at;
    }
    Free(b.p);
    live[k] = live.back();
    live.pop_back();
  };
  for (uint64_t i = 0; i < 20000; ++i) {
    if (!live.empty() && (live.size() > 2000 || rng.Next() % 2 == 0)) {
      check_and_free(rng.Next() % live.size());
      continue;
    }
    const size_t size = MixedSize(rng) % (64 * kKiB) + 1;
    void* p = Allocate(size, 1, false);
    ASSERT_NE(p, nullptr) << kRuleAvailable << ": Allocate(" << size
                          << ") failed";
    Fill(p, size, i);
    live.push_back({p, size, i});
  }
  while (!live.empty()) check_and_free(live.size() - 1);
  EXPECT_EQ(changed, 0) << kRuleSurvive;
}

// Recycled memory: a block written all over, freed, and the same size
// asked for again with `zero`, for small, medium and large sizes, one at a
// time and in batches (a thread cache hands back the block just freed; a
// batch goes through the central lists).
TEST(ValidatorZero, ZeroedRequestsReadZeroesOnRecycledMemory) {
  int dirty = 0;
  for (size_t size :
       {size_t{1}, size_t{8}, size_t{16}, size_t{24}, size_t{100}, size_t{256},
        size_t{1000}, size_t{4096}, size_t{10000}, size_t{65536},
        size_t{200000}, size_t{1} << 20, size_t{4} << 20, size_t{9} << 20}) {
    const int batch = size <= 4096 ? 64 : size <= 65536 ? 8 : 2;
    for (int round = 0; round < 4; ++round) {
      std::vector<void*> blocks;
      for (int i = 0; i < batch; ++i) {
        void* p = Allocate(size, 1, false);
        ASSERT_NE(p, nullptr)
            << kRuleAvailable << ": Allocate(" << size << ") failed";
        std::memset(p, 0xA5, UsableSize(p));
        blocks.push_back(p);
      }
      for (void* p : blocks) Free(p);
      blocks.clear();
      for (int i = 0; i < batch; ++i) {
        void* p = Allocate(size, 1, true);
        ASSERT_NE(p, nullptr)
            << kRuleAvailable << ": Allocate(" << size << ", zero) failed";
        const int64_t at = FirstNonZero(p, size);
        if (at >= 0 && ++dirty <= 5) {
          ADD_FAILURE() << kRuleZero << ": Allocate(" << size
                        << ", 1, true) gave " << p << ", byte " << at
                        << " is not zero";
        }
        std::memset(p, 0x5A, size);
        blocks.push_back(p);
      }
      for (void* p : blocks) Free(p);
    }
  }
  EXPECT_EQ(dirty, 0) << kRuleZero;
}

// Size 0, fresh and recycled: 1000 live at once, every other one freed,
// 1000 more: every live one distinct.
TEST(ValidatorSizeZero, IsAUniqueBlockAndFreeable) {
  std::vector<void*> blocks;
  std::map<uintptr_t, int> live;
  int twice = 0;
  auto take = [&] {
    void* p = Allocate(0, 1, false);
    ASSERT_NE(p, nullptr) << kRuleSizeZero << ": Allocate(0) failed";
    if (++live[Address(p)] != 1 && ++twice <= 5) {
      ADD_FAILURE() << kRuleSizeZero << ": Allocate(0) gave " << p
                    << ", which is live already";
    }
    blocks.push_back(p);
  };
  for (int i = 0; i < 1000; ++i) take();
  std::vector<void*> kept;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i % 2 == 0) {
      if (--live[Address(blocks[i])] == 0) live.erase(Address(blocks[i]));
      Free(blocks[i]);
    } else {
      kept.push_back(blocks[i]);
    }
  }
  blocks = kept;
  for (int i = 0; i < 1000; ++i) take();
  EXPECT_EQ(twice, 0) << kRuleSizeZero;
  for (void* p : blocks) Free(p);
  Free(nullptr);  // "nullptr is ignored"
}

TEST(ValidatorUsableSize, IsAtLeastTheSizeAskedFor) {
  Rng rng(3);
  std::vector<size_t> sizes;
  for (size_t s = 0; s <= 2048; ++s) sizes.push_back(s);
  for (int i = 0; i < 500; ++i) sizes.push_back(MixedSize(rng));
  for (size_t s : {size_t{4} << 20, size_t{8} << 20}) sizes.push_back(s);
  for (size_t size : sizes) {
    void* p = Allocate(size, 1, false);
    ASSERT_NE(p, nullptr) << kRuleAvailable << ": Allocate(" << size
                          << ") failed";
    const size_t usable = UsableSize(p);
    EXPECT_GE(usable, size) << kRuleUsable << ": Allocate(" << size << ")";
    // Every usable byte is the caller's: write them all.
    if (usable >= size) std::memset(p, 0x3C, usable);
    Free(p);
  }
}

// free() promises to leave errno alone (POSIX.1-2024), and programs rely
// on it: `if (write(...) < 0) { free(buf); perror(...); }`. Blocks of
// every kind, freed in batches (a drain goes to the central pool, a large
// block to its cache or the page source), with errno set before each.
TEST(ValidatorFreeErrno, LeavesErrnoAsItFoundIt) {
  int changed = 0;
  for (size_t size : {size_t{0}, size_t{24}, size_t{1000}, size_t{70000},
                      size_t{1} << 20, size_t{9} << 20}) {
    for (size_t alignment : {size_t{1}, size_t{4096}}) {
      std::vector<void*> blocks;
      const int batch = size <= 70000 ? 100 : 3;
      for (int i = 0; i < batch; ++i) {
        void* p = Allocate(size, alignment, false);
        ASSERT_NE(p, nullptr) << kRuleAvailable << ": Allocate(" << size << ", "
                              << alignment << ") failed";
        blocks.push_back(p);
      }
      for (void* p : blocks) {
        errno = EDOM;
        Free(p);
        const int after = errno;
        if (after != EDOM && ++changed <= 5) {
          ADD_FAILURE() << kRuleErrno << ": errno was EDOM (" << EDOM
                        << ") before Free() of a block of Allocate(" << size
                        << ", " << alignment << "), " << after << " after";
        }
      }
    }
  }
  errno = EDOM;
  Free(nullptr);
  EXPECT_EQ(errno, EDOM) << kRuleErrno << ": Free(nullptr)";
  EXPECT_EQ(changed, 0) << kRuleErrno;
}

TEST(ValidatorImpossibleSizes, FailWithoutOverflow) {
  const size_t page = PageSize();
  for (size_t size : {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 15,
                      SIZE_MAX - page + 1, SIZE_MAX - 2 * page, size_t{1} << 63,
                      (size_t{1} << 63) + 1, SIZE_MAX / 2}) {
    for (size_t alignment : {size_t{1}, size_t{16}, size_t{4096},
                             size_t{1} << 20, size_t{1} << 30}) {
      void* p = Allocate(size, alignment, false);
      EXPECT_EQ(p, nullptr) << kRuleImpossible << ": Allocate(" << size << ", "
                            << alignment << ") gave " << p;
      if (p != nullptr) Free(p);
      p = Allocate(size, alignment, true);
      EXPECT_EQ(p, nullptr) << kRuleImpossible << ": Allocate(" << size << ", "
                            << alignment << ", true) gave " << p;
      if (p != nullptr) Free(p);
    }
  }
  // And the allocator still works.
  void* p = Allocate(100, 16, false);
  ASSERT_NE(p, nullptr) << kRuleAvailable
                        << ": Allocate(100) failed after the refusals";
  std::memset(p, 1, 100);
  Free(p);
}

// In a fresh process, whose allocator has no memory yet: first every map
// the page source is asked for is refused, and each size (small, medium,
// large, over-aligned) must come back nullptr, the allocator asking for
// memory at least once; then the page source maps again, and the same
// sizes must be had and hold their bytes; then, with small blocks in use
// and maps refused again, a 64 MiB block (which no design holds before it
// is asked for) must come back nullptr, while the small blocks are
// untouched, and once maps are allowed the allocator works on. Records
// "gave_while_refused" (blocks handed out with nothing mapped),
// "refused_calls", "failed_after" (sizes that failed once maps were
// allowed), "changed" (blocks whose bytes changed) and
// "large_while_refused".
struct RefusalCase {
  size_t size;
  size_t alignment;
};
constexpr RefusalCase kRefusalCases[] = {
    {24, 1},        {1000, 1},          {70000, 1},
    {24, 4096},     {(1 << 20) + 5, 1}, {size_t{9} << 20, 1},
    {100, 1 << 20},
};

void RefusalCall(alloclab::FreshCall& call) {
  int gave = 0;
  uint64_t refused_calls = 0;
  {
    internal::ScopedMapRefusal refusal;
    for (const RefusalCase& c : kRefusalCases) {
      void* p = Allocate(c.size, c.alignment, false);
      if (p != nullptr) {
        ++gave;
        Free(p);
      }
    }
    refused_calls = refusal.refused();
  }
  call.Record("gave_while_refused", gave);
  call.Record("refused_calls", static_cast<double>(refused_calls));

  int failed_after = 0, changed = 0;
  std::vector<Block> live;
  uint64_t seed = 0;
  for (const RefusalCase& c : kRefusalCases) {
    void* p = Allocate(c.size, c.alignment, false);
    if (p == nullptr) {
      ++failed_after;
      continue;
    }
    const size_t filled = std::min(c.size, kMaxPatternBytes);
    Fill(p, filled, ++seed);
    live.push_back({p, filled, seed});
  }
  for (int i = 0; i < 200; ++i) {
    void* p = Allocate(64, 1, false);
    if (p == nullptr) {
      ++failed_after;
      break;
    }
    Fill(p, 64, ++seed);
    live.push_back({p, 64, seed});
  }
  int large_while_refused = 0;
  {
    internal::ScopedMapRefusal refusal;
    void* p = Allocate(size_t{64} << 20, 16, false);
    if (p != nullptr) {
      ++large_while_refused;
      Free(p);
    }
  }
  for (const Block& b : live) {
    if (FirstChanged(b.p, b.size, b.seed) >= 0) ++changed;
    Free(b.p);
  }
  void* p = Allocate(size_t{64} << 20, 16, false);
  if (p == nullptr) {
    ++failed_after;
  } else {
    Free(p);
  }
  call.Record("failed_after", failed_after);
  call.Record("changed", changed);
  call.Record("large_while_refused", large_while_refused);
}
ALLOCLAB_FRESH_CALL("allocator_design_refusal", RefusalCall);

TEST(ValidatorRefusal, NullptrWhileThePageSourceRefusesThenWorksAgain) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_refusal");
  ASSERT_TRUE(r.ok()) << kRuleRefused
                      << " (not a crash, and not an abort): " << r.status();
  EXPECT_GE(r->values["refused_calls"], 1)
      << "the allocator never asked the page source for memory while it had "
         "none (task.h: it gets memory only from pages.h)";
  EXPECT_EQ(r->values["gave_while_refused"], 0)
      << kRuleRefused << ": in a fresh process, with every map refused, "
      << r->values["gave_while_refused"] << " of " << std::size(kRefusalCases)
      << " Allocate() calls gave a block (task.h: memory comes only from "
         "pages.h)";
  EXPECT_EQ(r->values["large_while_refused"], 0)
      << kRuleRefused
      << ": Allocate(64 MiB) gave a block while every map "
         "was refused";
  EXPECT_EQ(r->values["failed_after"], 0)
      << kRuleAvailable << ": once the page source mapped again, "
      << r->values["failed_after"] << " Allocate() calls still failed (a "
      << "refusal must not leave the allocator broken)";
  EXPECT_EQ(r->values["changed"], 0)
      << kRuleSurvive << " (blocks live while a 64 MiB Allocate() was "
      << "refused)";
}

// ---------------------------------------------------------------------------
// Validator: threads, other threads' frees, fork.
// ---------------------------------------------------------------------------

// 2000 threads, four at a time, each allocating, checking and freeing its
// blocks and handing a few to this thread to free after it has exited.
TEST(ValidatorThreads, ThousandsOfThreadsAllocateAndExit) {
  constexpr int kThreads = 2000;
  constexpr int kHandedOver = 4;
  std::vector<Block> handed(kThreads * kHandedOver);
  std::atomic<int> changed{0}, failed{0};
  RunThreadsInWaves(kThreads, 4, [&](int index) {
    Rng rng(1000 + index);
    Block mine[32];
    for (int i = 0; i < 32; ++i) {
      const size_t size = MixedSize(rng) % (32 * kKiB) + 1;
      const uint64_t seed = static_cast<uint64_t>(index) * 64 + i;
      void* p = Allocate(size, 1, false);
      if (p == nullptr) {
        failed.fetch_add(1);
        continue;
      }
      Fill(p, size, seed);
      mine[i] = {p, size, seed};
    }
    for (int i = 0; i < 32; ++i) {
      if (mine[i].p == nullptr) continue;
      if (FirstChanged(mine[i].p, mine[i].size, mine[i].seed) >= 0) {
        changed.fetch_add(1);
      }
      if (i < kHandedOver) {
        handed[index * kHandedOver + i] = mine[i];
      } else {
        Free(mine[i].p);
      }
    }
  });
  EXPECT_EQ(failed.load(), 0)
      << "task.h, Validator: thousands of threads may allocate and exit ("
      << kRuleAvailable << "): Allocate() failed " << failed.load()
      << " times in " << kThreads << " threads, four alive at a time";
  EXPECT_EQ(changed.load(), 0) << kRuleSurvive << " (in 2000 threads)";
  int changed_after_exit = 0;
  for (const Block& b : handed) {
    if (b.p == nullptr) continue;
    if (FirstChanged(b.p, b.size, b.seed) >= 0) ++changed_after_exit;
    Free(b.p);
  }
  EXPECT_EQ(changed_after_exit, 0)
      << kRuleSurvive << ": blocks of threads that exited changed";
}

// Blocks allocated by one thread and freed by another, both ways, while
// both allocate; then the freed memory is used again by both.
TEST(ValidatorCrossThread, AnyThreadMayFreeAnyBlock) {
  constexpr int kRounds = 8;
  constexpr int kBlocks = 2000;
  std::atomic<int> changed{0}, failed{0};
  for (int round = 0; round < kRounds; ++round) {
    std::vector<Block> a_made(kBlocks), b_made(kBlocks);
    auto make = [&](std::vector<Block>& out, uint64_t base) {
      Rng rng(base);
      for (int i = 0; i < kBlocks; ++i) {
        const size_t size = MixedSize(rng) % (16 * kKiB) + 1;
        void* p = Allocate(size, 1, false);
        if (p == nullptr) {
          failed.fetch_add(1);
          out[i] = {};
          continue;
        }
        Fill(p, size, base + i);
        out[i] = {p, size, base + i};
      }
    };
    auto check_and_free = [&](std::vector<Block>& blocks) {
      for (Block& b : blocks) {
        if (b.p == nullptr) continue;
        if (FirstChanged(b.p, b.size, b.seed) >= 0) changed.fetch_add(1);
        Free(b.p);
      }
    };
    std::thread a([&] { make(a_made, 1'000'000 * round); });
    std::thread b([&] { make(b_made, 1'000'000 * round + 500'000); });
    a.join();
    b.join();
    // Each frees the other's blocks, while making new ones of its own.
    std::vector<Block> a_again(kBlocks), b_again(kBlocks);
    std::thread a2([&] {
      check_and_free(b_made);
      make(a_again, 7'000'000 + round);
    });
    std::thread b2([&] {
      check_and_free(a_made);
      make(b_again, 9'000'000 + round);
    });
    a2.join();
    b2.join();
    check_and_free(a_again);  // this thread frees both
    check_and_free(b_again);
  }
  EXPECT_EQ(failed.load(), 0) << kRuleAvailable << ": Allocate() failed";
  EXPECT_EQ(changed.load(), 0) << kRuleSurvive << ", whichever thread frees it";
}

// Waits for `pid` for at most `seconds`; kills it after that. Returns the
// wait status, or -1 when it had to be killed.
int WaitOrKill(pid_t pid, int seconds) {
  int status = 0;
  for (int i = 0; i < seconds * 100; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    usleep(10'000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

// In a forked child, after ForkChild(): allocates `count` blocks (at most
// kChildBlocks) of size_of(k) bytes, fills them, checks and frees them, and
// exits 0; 3 when Allocate() failed, 4 when a block's bytes changed (the
// codes both fork tests report).
constexpr int kChildBlocks = 200;

template <typename SizeOf>
[[noreturn]] void AllocateCheckAndExit(int count, SizeOf size_of) {
  Block blocks[kChildBlocks];
  for (int k = 0; k < count; ++k) {
    const size_t size = size_of(k);
    void* p = Allocate(size, 1, false);
    if (p == nullptr) _exit(3);
    Fill(p, size, k);
    blocks[k] = {p, size, static_cast<uint64_t>(k)};
  }
  int code = 0;
  for (int k = 0; k < count; ++k) {
    if (FirstChanged(blocks[k].p, blocks[k].size, blocks[k].seed) >= 0) {
      code = 4;
    }
    Free(blocks[k].p);
  }
  _exit(code);
}

// fork() while three other threads allocate and free: the child has only
// the forking thread, so no lock may be left held by one it lost. The
// child allocates, checks and frees, and exits 0.
TEST(ValidatorFork, ChildOfAThreadedProcessAllocates) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int t = 0; t < 3; ++t) {
    busy.emplace_back([&stop, t] {
      Rng rng(77 + t);
      while (!stop.load(std::memory_order_relaxed)) {
        void* blocks[16];
        for (void*& p : blocks) p = Allocate(MixedSize(rng), 1, false);
        for (void* p : blocks) Free(p);
      }
    });
  }
  for (int i = 0; i < 8; ++i) {
    ForkPrepare();
    const pid_t pid = fork();
    if (pid == 0) {
      ForkChild();
      Rng rng(i);
      AllocateCheckAndExit(kChildBlocks,
                           [&rng](int) { return MixedSize(rng); });
    }
    ForkParent();
    ASSERT_GE(pid, 0) << "fork failed";
    // A bound on a child that hangs on a lock it inherited held: far more
    // than its work takes, and no verdict depends on how long it took.
    const int status = WaitOrKill(pid, 10);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ADD_FAILURE() << "task.h, ForkPrepare()/ForkChild(): a forked child "
                       "may allocate (no lock left held by a thread it does "
                       "not have); child "
                    << i << ": "
                    << (status == -1 ? std::string("still blocked after 10 s")
                        : WIFEXITED(status)
                            ? absl::StrCat("exited ", WEXITSTATUS(status),
                                           " (3: Allocate failed, 4: a "
                                           "block's bytes changed)")
                            : absl::StrCat("killed by signal ",
                                           WTERMSIG(status)));
      break;  // one is enough, and each waits out its bound
    }
  }
  stop.store(true);
  for (std::thread& t : busy) t.join();
}

// In a fresh process: thread A is parked inside Allocate() at the page
// source's map gate (a 64 MiB block: it must map), and this thread forks.
// The interleaving is driven, not hoped for: a design that holds a lock
// while it maps holds it now, so ForkPrepare() must wait for A, or the
// child inherits a lock that no thread of its own will release. The gate
// opens once the fork is done, or after kForkGateSeconds if ForkPrepare()
// is waiting for A; the verdict is the child's alone. Records "parked" and
// "child" (0: it allocated; 3, 4: as ValidatorFork's; 5: still blocked
// after 10 s; 6: killed by a signal).
constexpr int kForkGateSeconds = 2;

void ForkWhileParkedCall(alloclab::FreshCall& call) {
  std::mutex mu;
  std::condition_variable cv;
  bool forked = false, parked = false;
  std::atomic<bool> a_returned{false};
  internal::CloseMapGate();
  void* large = nullptr;
  std::thread a([&] {
    large = Allocate((64 << 20) + 19 * PageSize(), 16, false);
    a_returned.store(true);
  });
  std::thread watcher([&] {
    internal::WaitUntilParkedAtMapGate();
    std::lock_guard<std::mutex> lock(mu);
    parked = true;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    // A bound, not a timing: A reaches the gate in microseconds.
    cv.wait_for(lock, std::chrono::seconds(10),
                [&] { return parked || a_returned.load(); });
  }
  call.Record("parked", parked ? 1 : 0);
  if (!parked) {
    internal::OpenMapGate();
    a.join();
    watcher.detach();  // it waits for a thread that never came; we exit
    Free(large);
    return;
  }
  watcher.join();
  std::thread opener([&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(kForkGateSeconds),
                [&] { return forked; });
    internal::OpenMapGate();
  });
  ForkPrepare();
  const pid_t pid = fork();
  if (pid == 0) {
    internal::OpenMapGate();  // the child's copy of the gate is closed
    ForkChild();
    // Small blocks, and large ones that map.
    AllocateCheckAndExit(64, [](int k) {
      return k % 8 == 7 ? (size_t{1} << 20) + 5 * PageSize()
                        : 16 + 40 * static_cast<size_t>(k);
    });
  }
  ForkParent();
  {
    std::lock_guard<std::mutex> lock(mu);
    forked = true;
    cv.notify_all();
  }
  opener.join();
  a.join();
  Free(large);
  if (pid < 0) {
    call.Record("child", 7);
    return;
  }
  const int status = WaitOrKill(pid, 10);
  call.Record("child", status == -1         ? 5
                       : !WIFEXITED(status) ? 6
                                            : WEXITSTATUS(status));
}
ALLOCLAB_FRESH_CALL("allocator_design_fork_while_parked", ForkWhileParkedCall);

TEST(ValidatorFork, ChildForkedWhileAThreadWaitsInsideAllocates) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_fork_while_parked");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["parked"], 1)
      << "the test could not stop a thread inside the allocator: a fresh "
         "Allocate() of 64 MiB never asked the page source for memory "
         "(task.h: it gets memory only from pages.h; a process's first "
         "64 MiB block must be mapped there)";
  EXPECT_EQ(r->values["child"], 0)
      << "task.h, ForkPrepare()/ForkChild(): a forked child may allocate "
         "(no lock left held by a thread it does not have); forked while "
         "another thread waited inside Allocate() for the page source, the "
         "child "
      << (r->values["child"] == 5   ? "was still blocked after 10 s"
          : r->values["child"] == 6 ? "was killed by a signal"
          : r->values["child"] == 7
              ? "could not be forked"
              : absl::StrCat("exited ", r->values["child"],
                             " (3: Allocate failed, 4: "
                             "a block's bytes changed)"));
}

// ---------------------------------------------------------------------------
// Validator: the counters agree with the page source.
// ---------------------------------------------------------------------------

std::string TestsBefore();  // below, with the explorer

// ExpectCountersAgree()
//
// `c` within what the page source did (`pages`): bytes_returned exact,
// bytes_held at most what is mapped and not unmapped, and at least what is
// mapped and neither unmapped nor released, and at least `resident` (the
// live mappings' resident bytes, internal::ResidentMappedBytes(), when
// known): a released range taken into use again is resident again, and
// held again, which the page source's counts alone cannot see.
void ExpectCountersAgree(const Counters& c, const PageSourceCounts& pages,
                         absl::string_view when,
                         std::optional<uint64_t> resident = std::nullopt) {
  EXPECT_EQ(c.bytes_returned, pages.bytes_unmapped + pages.bytes_released)
      << kRuleCounters << " (" << when << "): allocator " << Describe(c)
      << ", page source " << Describe(pages);
  EXPECT_LE(c.bytes_held, pages.bytes_mapped - pages.bytes_unmapped)
      << kRuleCounters << " (" << when << "): allocator " << Describe(c)
      << ", page source " << Describe(pages);
  // And no less than what was mapped and neither unmapped nor released:
  // memory kept in a cache, or as metadata, is held.
  EXPECT_GE(c.bytes_held + pages.bytes_released,
            pages.bytes_mapped - pages.bytes_unmapped)
      << kRuleCounters << " (" << when << "): bytes_held is less than what "
      << "the page source mapped and nothing unmapped or released; allocator "
      << Describe(c) << ", page source " << Describe(pages);
  if (resident.has_value()) {
    EXPECT_GE(c.bytes_held, *resident)
        << kRuleCounters << " (" << when << "): bytes_held is less than the "
        << "bytes of the page source's live mappings resident now ("
        << *resident << ", by mincore): a released range taken into use "
        << "again is held again; allocator " << Describe(c) << ", page source "
        << Describe(pages);
  }
}

// ExpectCountersAgreeNow()
//
// ExpectCountersAgree() on the counters, the page source's counts and the
// resident bytes now (no other thread in the allocator). The resident bytes
// must be known: the page source's table holds the suite's live mappings.
void ExpectCountersAgreeNow(absl::string_view when) {
  const Counters c = ReadCounters();
  const PageSourceCounts pages = ReadPageSourceCounts();
  const std::optional<uint64_t> resident = internal::ResidentMappedBytes();
  EXPECT_TRUE(resident.has_value())
      << "internal::ResidentMappedBytes() is unavailable (" << when
      << "): more live mappings than the page source's table holds";
  ExpectCountersAgree(c, pages, when, resident);
}

// MappedLeft()
//
// What the page source has mapped and not unmapped or released, by its own
// counts: no allocator holds less (a released range taken into use again
// is held again, unseen here: the resident bytes see it), so it bounds
// bytes_held from below. Signed: a range released, reused and released
// again counts twice.
int64_t MappedLeft() {
  const PageSourceCounts pages = ReadPageSourceCounts();
  return static_cast<int64_t>(pages.bytes_mapped) -
         static_cast<int64_t>(pages.bytes_unmapped) -
         static_cast<int64_t>(pages.bytes_released);
}

// HeldNow
//
// The bytes held now by three counts, none believed alone: the allocator's
// own (`counted`, ReadCounters()), the page source's (`mapped_left`:
// mapped, less unmapped and released, which no design holds less than;
// signed, as a range released, reused and released again counts twice) and
// the kernel's (`resident`: the bytes of the page source's live mappings
// resident now, internal::ResidentMappedBytes(), which a released range
// taken into use again is part of; std::nullopt when unknown). `witnessed`
// is the larger of the two the allocator cannot make smaller by what it
// says (the page source's and the kernel's); `judged` the largest of all
// three, what a promise that bounds the bytes held is held to.
struct HeldNow {
  uint64_t counted = 0;
  int64_t mapped_left = 0;
  std::optional<uint64_t> resident;
  uint64_t witnessed = 0;
  uint64_t judged = 0;
};

// ReadHeldNow()
//
// HeldNow now: call it where no other thread is in the allocator (the
// resident bytes are read mapping by mapping), and outside a count of
// system calls (mincore is one).
HeldNow ReadHeldNow() {
  HeldNow h;
  h.counted = ReadCounters().bytes_held;
  h.mapped_left = MappedLeft();
  h.resident = internal::ResidentMappedBytes();
  h.witnessed =
      std::max(h.resident.value_or(0),
               static_cast<uint64_t>(std::max<int64_t>(h.mapped_left, 0)));
  h.judged = std::max(h.counted, h.witnessed);
  return h;
}

// HeldWorst
//
// The most of each count of HeldNow over several readings, for a fresh
// process to record ("held": the judged, "held_counted", "held_resident",
// "held_mapped_left", "resident_unknown": readings without the resident
// bytes).
struct HeldWorst {
  uint64_t judged = 0;
  uint64_t counted = 0;
  uint64_t resident = 0;
  int64_t mapped_left = 0;
  int resident_unknown = 0;

  void Add(const HeldNow& h) {
    judged = std::max(judged, h.judged);
    counted = std::max(counted, h.counted);
    resident = std::max(resident, h.resident.value_or(0));
    mapped_left = std::max(mapped_left, h.mapped_left);
    resident_unknown += h.resident.has_value() ? 0 : 1;
  }

  void Record(alloclab::FreshCall& call) const {
    call.Record("held", static_cast<double>(judged));
    call.Record("held_counted", static_cast<double>(counted));
    call.Record("held_resident", static_cast<double>(resident));
    call.Record("held_mapped_left", static_cast<double>(mapped_left));
    call.Record("resident_unknown", resident_unknown);
  }
};

// HeldCounts()
//
// The recorded counts of HeldWorst, for a failure's message: "held by the
// largest of ..." and each.
std::string HeldCounts(alloclab::FreshCallResult& r) {
  return absl::StrCat(r.values["held"],
                      " bytes held (the largest of ReadCounters()'s ",
                      r.values["held_counted"],
                      ", the resident bytes of the page source's "
                      "live mappings ",
                      r.values["held_resident"],
                      " and the page source's "
                      "mapped, less unmapped and released ",
                      r.values["held_mapped_left"],
                      ": a released range taken into use again is held again)");
}

// ExpectResidentKnown()
//
// The page source knew every live mapping at every reading of `r`. Records
// each count of HeldWorst as a property of the test (its XML report), for
// a reader who compares them.
void ExpectResidentKnown(alloclab::FreshCallResult& r) {
  for (const char* count :
       {"held", "held_counted", "held_resident", "held_mapped_left"}) {
    ::testing::Test::RecordProperty(count,
                                    static_cast<int64_t>(r.values[count]));
  }
  EXPECT_EQ(r.values["resident_unknown"], 0)
      << "internal::ResidentMappedBytes() was unavailable at "
      << r.values["resident_unknown"] << " readings: more live mappings "
      << "than the page source's table holds";
}

// The oracle itself (internal::ResidentMappedBytes()), on a mapping of the
// page source's own, in a fresh process (its maps would otherwise count
// beside the allocator's): mapped and untouched, nothing is resident; a
// touched page is; released, it is not, until touched again; unmapped from
// the middle (the mapping split in two) or whole, it is gone. Records the
// resident pages at each of those points, less those before. 64 pages:
// too few for a transparent huge page to make one touch many.
void ResidentOracleCall(alloclab::FreshCall& call) {
  const size_t page = PageSize();
  constexpr size_t kPages = 64;
  const std::optional<uint64_t> before = internal::ResidentMappedBytes();
  char* p = static_cast<char*>(MapAlignedPages(kPages * page, 16 * page));
  if (!before.has_value() || p == nullptr) {
    call.Fail("no resident bytes before, or MapAlignedPages() refused");
    return;
  }
  auto record = [&](const char* when) {
    const std::optional<uint64_t> now = internal::ResidentMappedBytes();
    call.Record(when, now.has_value() ? (static_cast<double>(*now) -
                                         static_cast<double>(*before)) /
                                            static_cast<double>(page)
                                      : -1);
  };
  record("mapped");
  for (size_t i = 0; i < 10; ++i) p[i * page] = 1;
  record("touched_0_to_9");
  ReleasePages(p, 8 * page);
  record("released_0_to_7");
  for (size_t i = 0; i < 4; ++i) p[i * page] = 1;
  record("touched_0_to_3_again");
  UnmapPages(p + 2 * page, 4 * page);
  record("unmapped_2_to_5");
  p[40 * page] = 1;
  record("touched_40");
  UnmapPages(p, 2 * page);
  UnmapPages(p + 6 * page, (kPages - 6) * page);
  record("unmapped_all");
}
ALLOCLAB_FRESH_CALL("allocator_design_resident_oracle", ResidentOracleCall);

TEST(ValidatorCounters, TheResidentBytesAreWhatWasTouchedAndNotGivenBack) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_resident_oracle");
  ASSERT_TRUE(r.ok()) << r.status();
  const std::pair<const char*, double> expected[] = {
      {"mapped", 0},          {"touched_0_to_9", 10},
      {"released_0_to_7", 2}, {"touched_0_to_3_again", 6},
      {"unmapped_2_to_5", 4}, {"touched_40", 5},
      {"unmapped_all", 0},
  };
  for (const auto& [when, pages] : expected) {
    EXPECT_EQ(r->values[when], pages)
        << "internal::ResidentMappedBytes(), the suite's witness of "
        << kRuleCounters << ", on 64 pages of the page source's own, " << when
        << ": " << r->values[when] << " pages resident, not " << pages
        << " (-1: unavailable)";
  }
}

// Small and large blocks, freed, a decay let pass, and as many blocks
// again, every byte written (what was released taken into use again):
// whatever the allocator returned, its counters say exactly what the page
// source did, and it holds at least what is resident.
TEST(ValidatorCounters, AgreeWithThePageSource) {
  ExpectCountersAgreeNow(absl::StrCat("at start, ", TestsBefore()));
  {
    internal::ScopedFakeClock clock;
    Rng rng(5);
    std::vector<void*> blocks;
    for (int i = 0; i < 3000; ++i) {
      blocks.push_back(Allocate(MixedSize(rng), 1, false));
    }
    for (size_t size : {size_t{3} << 20, size_t{17} << 20}) {
      blocks.push_back(Allocate(size, 1, true));
    }
    ExpectCountersAgreeNow("blocks live");
    for (void* p : blocks) Free(p);
    ExpectCountersAgreeNow("all freed, before the decay");
    clock.Advance(2 * kDecayNs);
    for (uint64_t i = 0; i < 2 * kDecayCheckOps; ++i)
      Free(Allocate(64, 1, false));
    ExpectCountersAgreeNow("all freed, decay passed");
    // The same sizes again, from what the decay released.
    Rng again(5);
    std::vector<void*> reused;
    for (int i = 0; i < 3000; ++i) {
      const size_t size = MixedSize(again);
      void* p = Allocate(size, 1, false);
      if (p != nullptr) memset(p, 1, size);
      reused.push_back(p);
    }
    ExpectCountersAgreeNow(
        "after the decay, as many blocks again, every byte written");
    // The counts, as properties of the test (its XML report).
    const HeldNow now = ReadHeldNow();
    ::testing::Test::RecordProperty("reused_held_counted",
                                    static_cast<int64_t>(now.counted));
    ::testing::Test::RecordProperty(
        "reused_held_resident", static_cast<int64_t>(now.resident.value_or(0)));
    ::testing::Test::RecordProperty("reused_held_mapped_left", now.mapped_left);
    for (void* p : reused) Free(p);
  }
}

// A call's memory and its metadata (a span descriptor, a page-map leaf) may
// take several maps, in whatever order a design makes them, and the page
// source may refuse any one of them: the ones before have succeeded. In a
// fresh process, whose allocator has nothing yet, one call of each refusal
// case (kRefusalCases) runs with the page source mapping the first
// `mapped` maps the call asks for and refusing the ones after (the map
// observer turns the refusal on at the next one). Whatever the call gives
// (nullptr, or a block from what was mapped), once maps are allowed again
// the counters agree with the page source's (what the call mapped and
// could not use is unmapped and counted returned, or kept and counted
// held), and the allocator hands out blocks again, of that case, small and
// large, whose bytes survive: a lock left held on the failed call's way
// out would stop the next call, and SIGALRM then ends the copy. arg:
// "<case index>,<maps allowed>". Records "refused" (maps the call had
// refused: 0 when it made no more than `mapped`), "failed_after", "changed"
// and the counters and page-source counts after the call
// ("after_call_...") and after the blocks that follow ("after_more_...").
constinit std::atomic<int64_t> maps_before_refusal{0};
alignas(internal::ScopedMapRefusal) unsigned char partial_refusal[sizeof(
    internal::ScopedMapRefusal)];
constinit std::atomic<bool> partial_refusal_on{false};

// The map observer: lets `maps_before_refusal` maps through, then refuses
// from the next one on (until the call returns).
void RefuseAfterSomeMaps() {
  if (maps_before_refusal.fetch_sub(1) == 0) {
    new (partial_refusal) internal::ScopedMapRefusal;
    partial_refusal_on.store(true);
  }
}

// The allocator's counters and the page source's counts now, each recorded
// as "<when>_<field>".
void RecordCounters(alloclab::FreshCall& call, absl::string_view when) {
  const Counters c = ReadCounters();
  const PageSourceCounts pages = ReadPageSourceCounts();
  const std::pair<absl::string_view, uint64_t> values[] = {
      {"visits", c.central_visits},
      {"held", c.bytes_held},
      {"returned", c.bytes_returned},
      {"map_calls", pages.map_calls},
      {"unmap_calls", pages.unmap_calls},
      {"release_calls", pages.release_calls},
      {"mapped", pages.bytes_mapped},
      {"unmapped", pages.bytes_unmapped},
      {"released", pages.bytes_released},
  };
  for (const auto& [name, value] : values) {
    call.Record(absl::StrCat(when, "_", name), static_cast<double>(value));
  }
}

void PartialRefusalCall(alloclab::FreshCall& call) {
  std::vector<absl::string_view> args = absl::StrSplit(call.arg(), ',');
  size_t index = 0;
  int64_t mapped = 0;
  if (args.size() != 2 || !absl::SimpleAtoi(args[0], &index) ||
      index >= std::size(kRefusalCases) ||
      !absl::SimpleAtoi(args[1], &mapped)) {
    call.Record("bad_arg", 1);
    return;
  }
  const RefusalCase& c = kRefusalCases[index];
  maps_before_refusal.store(mapped);
  internal::SetMapObserver(RefuseAfterSomeMaps);
  void* first = Allocate(c.size, c.alignment, false);
  internal::SetMapObserver(nullptr);
  // From here on, a call that waits for a lock nobody will release (left
  // held on the failed call's way out) ends this copy.
  alarm(20);
  uint64_t refused = 0;
  if (partial_refusal_on.load()) {
    auto* refusal = std::launder(
        reinterpret_cast<internal::ScopedMapRefusal*>(partial_refusal));
    refused = refusal->refused();
    refusal->~ScopedMapRefusal();
  }
  call.Record("refused", static_cast<double>(refused));
  RecordCounters(call, "after_call");

  int failed_after = 0, changed = 0;
  std::vector<Block> live;
  uint64_t seed = 0;
  if (first != nullptr) {
    const size_t filled = std::min(c.size, kMaxPatternBytes);
    Fill(first, filled, ++seed);
    live.push_back({first, filled, seed});
  }
  for (const RefusalCase& more :
       {c, RefusalCase{64, 1}, RefusalCase{size_t{3} << 20, 1}}) {
    void* p = Allocate(more.size, more.alignment, false);
    if (p == nullptr) {
      ++failed_after;
      continue;
    }
    const size_t filled = std::min(more.size, kMaxPatternBytes);
    Fill(p, filled, ++seed);
    live.push_back({p, filled, seed});
  }
  for (const Block& b : live) {
    if (FirstChanged(b.p, b.size, b.seed) >= 0) ++changed;
    Free(b.p);
  }
  alarm(0);
  call.Record("failed_after", failed_after);
  call.Record("changed", changed);
  RecordCounters(call, "after_more");
}
ALLOCLAB_FRESH_CALL("allocator_design_partial_refusal", PartialRefusalCall);

TEST(ValidatorRefusal, AnyOneMapOfACallRefusedLeavesCountersExactAndWorks) {
  // A first call of these cases makes one to three maps in the designs the
  // suite knows; a refusal after the fourth is no refusal there.
  constexpr int kMostMapsAllowed = 4;
  for (size_t index = 0; index < std::size(kRefusalCases); ++index) {
    const RefusalCase& c = kRefusalCases[index];
    for (int mapped = 1; mapped <= kMostMapsAllowed; ++mapped) {
      const std::string which = absl::StrCat(
          "Allocate(", c.size, ", ", c.alignment, ") in a fresh process, ",
          "the page source mapping its first ", mapped,
          " maps and refusing the next");
      absl::StatusOr<alloclab::FreshCallResult> r = RunFresh(
          "allocator_design_partial_refusal", absl::StrCat(index, ",", mapped));
      ASSERT_TRUE(r.ok())
          << kRuleRefused << " (not a crash, not an abort, and no call left "
          << "waiting for 20 s: a lock left held on a failed call's way out?) "
          << which << ": " << r.status();
      ASSERT_EQ(r->values.count("bad_arg"), 0u);
      for (absl::string_view when : {"after_call", "after_more"}) {
        auto value = [&](absl::string_view name) {
          return static_cast<uint64_t>(
              r->values[absl::StrCat(when, "_", name)]);
        };
        Counters counters;
        counters.central_visits = value("visits");
        counters.bytes_held = value("held");
        counters.bytes_returned = value("returned");
        PageSourceCounts pages;
        pages.map_calls = value("map_calls");
        pages.unmap_calls = value("unmap_calls");
        pages.release_calls = value("release_calls");
        pages.bytes_mapped = value("mapped");
        pages.bytes_unmapped = value("unmapped");
        pages.bytes_released = value("released");
        ExpectCountersAgree(
            counters, pages,
            absl::StrCat(which, when == "after_call"
                                    ? ", after that call"
                                    : ", after the blocks that follow"));
      }
      EXPECT_EQ(r->values["failed_after"], 0)
          << kRuleAvailable << ": " << which
          << ", then mapping again: " << r->values["failed_after"]
          << " of 3 Allocate() calls failed "
          << "(a refusal must not leave the allocator broken)";
      EXPECT_EQ(r->values["changed"], 0)
          << kRuleSurvive << " (" << which << ")";
    }
  }
}

// A thread's first Allocate() finds nothing of its own: it takes a batch
// from the central pool (a visit) or maps memory from the page source. So
// threads that each make one allocation and exit make, between them, at
// least as many central visits and map calls as there were threads; an
// allocator whose central_visits misses visits (promise 1's count) falls
// short.
TEST(ValidatorCounters, CentralVisitsAreCounted) {
  constexpr int kThreads = 64;
  const Counters before = ReadCounters();
  const PageSourceCounts pages_before = ReadPageSourceCounts();
  std::atomic<int> failed{0};
  RunThreadsInWaves(kThreads, 1, [&](int) {
    void* p = Allocate(64, 1, false);
    if (p == nullptr) failed.fetch_add(1);
    Free(p);
  });
  const Counters after = ReadCounters();
  const uint64_t visits = after.central_visits - before.central_visits;
  const uint64_t maps =
      ReadPageSourceCounts().map_calls - pages_before.map_calls;
  EXPECT_EQ(failed.load(), 0) << kRuleAvailable << ": Allocate(64) failed";
  EXPECT_GE(visits + maps, static_cast<uint64_t>(kThreads))
      << kRuleVisits << ": " << kThreads << " threads, one after another, "
      << "each made its first Allocate(64) (nothing of its own to serve it "
      << "from) and exited; central_visits rose by " << visits
      << " and the page source mapped " << maps << " times";
}

// ---------------------------------------------------------------------------
// Design, promise 1: the fast path is private.
// ---------------------------------------------------------------------------

// VisitCredit()
//
// Promise 1's allowance for one call on a block of `size` bytes, in
// bytes: a visit per kOpsPerCentralVisit calls, or per
// kBytesPerCentralVisit bytes when that allows more (blocks larger than
// kBytesPerCentralVisit / kOpsPerCentralVisit). Summed over calls and
// divided by kBytesPerCentralVisit, the visits those calls allow.
uint64_t VisitCredit(size_t size) {
  return std::max<uint64_t>(size, kBytesPerCentralVisit / kOpsPerCentralVisit);
}

// The sizes of the fast-path tests: several size classes, all small.
constexpr size_t kFastSizes[] = {16, 48, 64, 200, 1000, 3000};
constexpr int kFastSizeCount = sizeof(kFastSizes) / sizeof(kFastSizes[0]);

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

// `pairs` Allocate()/Free() pairs over kFastSizes.
Calls Pairs(int pairs) {
  Calls calls;
  for (int i = 0; i < pairs; ++i) {
    const size_t size = kFastSizes[i % kFastSizeCount];
    void* p = Allocate(size, 1, false);
    static_cast<volatile char*>(p)[0] = 1;
    Free(p);
    calls.Add(size);
    calls.Add(size);
  }
  return calls;
}

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
// for A, and the test knows it at once, not at its 10 s bound (which stays
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
  bool warmed = false, go = false, finished = false, parked = false;
  std::atomic<bool> a_returned{false};

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
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
    cv.notify_all();
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
  std::thread watcher([&] {
    internal::WaitUntilParkedAtMapGate();
    std::lock_guard<std::mutex> lock(mu);
    parked = true;
    cv.notify_all();
  });
  bool a_parked = false;
  {
    std::unique_lock<std::mutex> lock(mu);
    // Bounds, not timings: each waits for what takes microseconds.
    a_parked = cv.wait_for(lock, std::chrono::seconds(10), [&] {
      return parked || a_returned.load();
    }) && parked;
    if (a_parked) {
      go = true;
      cv.notify_all();
      // B cannot finish once it waits for A's lock: no need to wait more.
      const auto bound =
          std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!finished && !waited_for_parked_thread.load() &&
             std::chrono::steady_clock::now() < bound) {
        cv.wait_for(lock, std::chrono::milliseconds(10));
      }
    }
  }
  call.Record("parked", a_parked ? 1 : 0);
  call.Record("waited", waited_for_parked_thread.load() ? 1 : 0);
  {
    std::lock_guard<std::mutex> lock(mu);
    call.Record("finished", finished ? 1 : 0);
    go = true;
    cv.notify_all();
  }
  internal::OpenMapGate();
  a.join();
  b.join();
  internal::SetLockObserver(nullptr);
  if (parked) {
    watcher.join();
  } else {
    watcher.detach();  // it waits for a thread that never came; we exit
  }
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
        << "malloc/free pairs did not finish within 10 s";
  }
}

// ---------------------------------------------------------------------------
// Design, promise 2: idle memory goes back.
// ---------------------------------------------------------------------------

// Allocates at least `total` bytes of mixed sizes, touching each page,
// and frees them all (in another order than allocated).
void AllocateAndFreeMixed(size_t total, uint64_t seed) {
  Rng rng(seed);
  std::vector<Block> blocks;
  size_t sum = 0;
  const size_t page = PageSize();
  while (sum < total) {
    const size_t size = MixedSize(rng);
    void* p = Allocate(size, 1, false);
    if (p == nullptr) break;
    for (size_t i = 0; i < size; i += page) static_cast<char*>(p)[i] = 1;
    blocks.push_back({p, size, 0});
    sum += size;
  }
  for (size_t i = 0; i < blocks.size(); i += 2) Free(blocks[i].p);
  for (size_t i = 1; i < blocks.size(); i += 2) Free(blocks[i].p);
}

void DecayCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  std::thread t([] { AllocateAndFreeMixed(64 * kMiB, 2); });
  t.join();
  call.Record("held_before", ReadCounters().bytes_held);
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  call.Record("held_after", ReadCounters().bytes_held);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay", DecayCall);

// The other side of "the thread that next makes kDecayCheckOps calls": the
// thread that freed everything goes on living, and its next calls are
// allocations alone (it builds something new). Whatever its own cache and
// the central pool hold must go back all the same: the calls that count
// are any calls, and a thread's cache is held memory too. Its checking
// blocks, kDecayCheckOps of 64 bytes, are live when the bytes held are read.
void DecayOnAllocationsCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  AllocateAndFreeMixed(64 * kMiB, 2);
  call.Record("held_before", ReadCounters().bytes_held);
  clock.Advance(2 * kDecayNs);
  std::vector<void*> blocks(kDecayCheckOps);
  for (void*& p : blocks) p = Allocate(64, 1, false);
  call.Record("held_after", ReadCounters().bytes_held);
  for (void* p : blocks) Free(p);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_on_allocations",
                    DecayOnAllocationsCall);

TEST(DesignDecay, IdleMemoryGoesBackAfterTheDecay) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread allocated and freed 64 MiB and exited; "
      << "held " << r->values["held_before"] << " bytes then, and "
      << r->values["held_after"] << " after 2 * kDecayNs and " << kDecayCheckOps
      << " malloc/free pairs (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

TEST(DesignDecay, IdleMemoryGoesBackWhenTheSameThreadOnlyAllocates) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_on_allocations");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread allocated and freed 64 MiB; held "
      << r->values["held_before"] << " bytes then, and "
      << r->values["held_after"] << " after 2 * kDecayNs and its next "
      << kDecayCheckOps << " calls, each an Allocate(64) (the same thread, "
      << "still running; kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// ---------------------------------------------------------------------------
// Design, promise 3: thread exit gives back.
// ---------------------------------------------------------------------------

// Waves of four threads; after each wave every thread so far has exited,
// so the bound holds there too ("however many there were"). The first
// wave past it ends the run: more threads prove nothing more.
void ChurnCall(alloclab::FreshCall& call) {
  constexpr int kThreads = 2000;
  constexpr int kAtOnce = 4;
  std::atomic<uint64_t> failed{0};
  HeldWorst worst;
  int threads = 0;
  while (threads < kThreads && worst.judged <= kThreadChurnHeldBytes) {
    RunThreadsInWaves(kAtOnce, kAtOnce, [&](int index) {
      // Many size classes, each left in the thread's own cache at its end.
      void* blocks[128];
      Rng rng(threads + index);
      for (void*& p : blocks) {
        p = Allocate(rng.Between(1, 8 * kKiB), 1, false);
        if (p == nullptr) {
          failed.fetch_add(1);
        } else {
          static_cast<char*>(p)[0] = 1;
        }
      }
      for (int i = 127; i >= 0; --i) Free(blocks[i]);
    });
    threads += kAtOnce;
    worst.Add(ReadHeldNow());
  }
  call.Record("failed", static_cast<double>(failed.load()));
  call.Record("threads", threads);
  worst.Record(call);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn", ChurnCall);

TEST(DesignThreadChurn, ThreadsThatExitLeaveLittleHeld) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_churn");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << kRuleAvailable << ": Allocate() failed in a thread";
  ExpectResidentKnown(*r);
  EXPECT_LE(r->values["held"], kThreadChurnHeldBytes)
      << kRuleChurn << ": threads, four at a time, each allocated and freed "
      << "128 blocks of up to 8 KiB and exited; after " << r->values["threads"]
      << " of them, at most " << HeldCounts(*r)
      << " (kThreadChurnHeldBytes = " << kThreadChurnHeldBytes << ")";
}

// Promise 3 when a thread allocates during its own exit: a pthread key of
// the test's, made after the allocator's (so its destructor runs after the
// allocator's ThreadExit() in each round, as glibc runs them in key order),
// allocates and frees blocks of many classes as the thread exits. What
// that leaves in the thread's cache must go back too (thread_exit.h: the
// hook arms again and runs again).
constexpr int kExitBlocks = 64;

void AllocateWhileExiting(void* seed) {
  void* blocks[kExitBlocks];
  Rng rng(reinterpret_cast<uintptr_t>(seed));
  for (void*& p : blocks) {
    p = Allocate(rng.Between(1, 8 * kKiB), 1, false);
    if (p != nullptr) static_cast<char*>(p)[0] = 1;
  }
  for (int i = kExitBlocks - 1; i >= 0; --i) Free(blocks[i]);
}

void ChurnExitingCall(alloclab::FreshCall& call) {
  // The allocator's key first: this thread's calls make it.
  Free(Allocate(64, 1, false));
  pthread_key_t key;
  if (pthread_key_create(&key, AllocateWhileExiting) != 0) {
    call.Fail("pthread_key_create failed");
    return;
  }
  constexpr int kThreads = 2000;
  constexpr int kAtOnce = 4;
  HeldWorst worst;
  int threads = 0;
  while (threads < kThreads && worst.judged <= kThreadChurnHeldBytes) {
    RunThreadsInWaves(kAtOnce, kAtOnce, [&](int index) {
      Free(Allocate(64 + index, 1, false));  // armed as a thread that works
      pthread_setspecific(
          key,
          reinterpret_cast<void*>(static_cast<uintptr_t>(threads + index + 1)));
    });
    threads += kAtOnce;
    worst.Add(ReadHeldNow());
  }
  call.Record("threads", threads);
  worst.Record(call);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_exiting", ChurnExitingCall);

TEST(DesignThreadChurn, ThreadsThatAllocateAsTheyExitLeaveLittleHeld) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_churn_exiting");
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectResidentKnown(*r);
  EXPECT_LE(r->values["held"], kThreadChurnHeldBytes)
      << kRuleChurn << ", also for a thread that allocates as it exits "
      << "(thread_exit.h: a thread that allocates again after its "
      << "ThreadExit() arms the hook again): threads, four at a time, each "
      << "allocated and freed " << kExitBlocks << " blocks of up to 8 KiB in "
      << "a pthread key destructor that runs after the allocator's; after "
      << r->values["threads"] << " of them, at most " << HeldCounts(*r)
      << " (kThreadChurnHeldBytes = " << kThreadChurnHeldBytes << ")";
}

// Promise 3 when each thread's memory sits at a new address: a thread's
// state lives in its TLS, at the top of its stack, and glibc hands an
// exiting thread's stack to the next thread, so an allocator that keys
// what a thread owns by that address sees every thread of the other churn
// tests as the one before, and finds what it left. Here each thread runs
// on a stack of its own (the test's, kept mapped), allocates kNewStackBlocks
// blocks of 20 KiB (filling a span of any design's that holds tens of
// them, and starting another), hands them to this thread and exits; this
// thread frees all of them but the first and the last. What an exited
// thread owned must become anyone's: its spans have free room that the
// next threads' blocks fit in.
constexpr int kNewStackThreads = 40;
constexpr int kNewStackBlocks = 60;
constexpr size_t kNewStackBlockBytes = 20 * kKiB;

void ChurnNewStacksCall(alloclab::FreshCall& call) {
  // A sanitizer's runtime keeps a large static TLS of its own in every
  // thread's stack (ThreadSanitizer's is about 900 KiB).
  constexpr size_t kStackBytes = size_t{4} << 20;
  std::vector<void*> stacks;
  HeldWorst worst;
  int failed = 0;
  std::vector<void*> kept;
  for (int t = 0; t < kNewStackThreads && worst.judged <= kThreadChurnHeldBytes;
       ++t) {
    void* stack = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) {
      call.Fail("mmap of a thread's stack failed");
      return;
    }
    stacks.push_back(stack);  // kept mapped: the next one is elsewhere
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, stack, kStackBytes);
    struct Work {
      void* blocks[kNewStackBlocks];
    } work{};
    pthread_t thread;
    const int started = pthread_create(
        &thread, &attr,
        [](void* arg) -> void* {
          for (void*& p : static_cast<Work*>(arg)->blocks) {
            p = Allocate(kNewStackBlockBytes, 1, false);
            if (p != nullptr) static_cast<char*>(p)[0] = 1;
          }
          return nullptr;
        },
        &work);
    pthread_attr_destroy(&attr);
    if (started != 0) {
      call.Fail("pthread_create failed");
      return;
    }
    pthread_join(thread, nullptr);
    for (int i = 0; i < kNewStackBlocks; ++i) {
      if (work.blocks[i] == nullptr) {
        ++failed;
      } else if (i == 0 || i == kNewStackBlocks - 1) {
        kept.push_back(work.blocks[i]);
      } else {
        Free(work.blocks[i]);
      }
    }
    worst.Add(ReadHeldNow());
    call.Record("threads", t + 1);
  }
  for (void* p : kept) Free(p);
  for (void* stack : stacks) munmap(stack, kStackBytes);
  call.Record("failed", failed);
  worst.Record(call);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_new_stacks", ChurnNewStacksCall);

TEST(DesignThreadChurn, ThreadsOnNewStacksLeaveLittleHeld) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_churn_new_stacks");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << kRuleAvailable << ": Allocate() failed in a thread";
  ExpectResidentKnown(*r);
  EXPECT_LE(r->values["held"], kThreadChurnHeldBytes)
      << kRuleChurn << ": threads, one at a time, each on a stack of its own "
      << "(its thread-local state at a new address), each allocated "
      << kNewStackBlocks << " blocks of " << kNewStackBlockBytes
      << " bytes and exited; the main thread freed all but two of each "
      << "thread's; after " << r->values["threads"] << " of them, at most "
      << HeldCounts(*r) << " (kThreadChurnHeldBytes = " << kThreadChurnHeldBytes
      << "): what an exited thread owned must "
      << "become anyone's, for the next threads' blocks";
}

// ---------------------------------------------------------------------------
// Design, promise 4: producer and consumer stay bounded.
// ---------------------------------------------------------------------------

// The messages of a producer and a consumer: a single-producer,
// single-consumer ring of `ring` slots, so that at most that many messages
// (and the one each thread has in hand) are live at once. Small messages
// have lab jemalloc_adoption's msgsend's shape with larger bodies (64 to
// 1,024 bytes, where msgsend's are 16 to 256); large ones, of about
// 256 KiB, two in the ring, keep the same few hundred KiB live in a handful
// of blocks: a cache bounded in blocks and not in bytes keeps megabytes of
// them.
struct MessageShape {
  const char* name;
  size_t min_bytes;
  size_t max_bytes;
  int ring;
  int messages;
};
constexpr MessageShape kMessageShapes[] = {
    {"small", 64, 1024, 512, 1'000'000},
    {"large", 240 * kKiB, 256 * kKiB, 1, 20'000},
};
constexpr int kMaxRing = 512;

void PrintTo(const MessageShape& m, std::ostream* os) {
  *os << m.name << " (" << m.min_bytes << " to " << m.max_bytes
      << " bytes, a ring of " << m.ring << ")";
}

const MessageShape* MessageShapeNamed(absl::string_view name) {
  for (const MessageShape& shape : kMessageShapes) {
    if (name == shape.name) return &shape;
  }
  return nullptr;
}

void MessagesCall(alloclab::FreshCall& call) {
  const MessageShape* shape = MessageShapeNamed(call.arg());
  if (shape == nullptr) {
    call.Fail(absl::StrCat("no message shape named '", call.arg(), "'"));
    return;
  }
  const MessageShape m = *shape;
  // The decay's clock stands still: what is held must not depend on how
  // long the run took (a second passes under a sanitizer, on a loaded
  // machine).
  internal::ScopedFakeClock clock;
  std::atomic<void*> ring[kMaxRing];
  for (auto& slot : ring) slot.store(nullptr);
  std::atomic<uint64_t> max_held{0}, failed{0}, changed{0};
  // Often enough to see a cache fill: every 4096 small messages, every 16
  // large ones.
  const int check_every = m.ring >= 64 ? 4096 : 16;
  std::thread producer([&] {
    Rng rng(4);
    for (int i = 0; i < m.messages; ++i) {
      const size_t size = rng.Between(m.min_bytes, m.max_bytes);
      auto* p = static_cast<uint32_t*>(Allocate(size, 1, false));
      if (p == nullptr) {
        failed.fetch_add(1);
        break;
      }
      p[0] = static_cast<uint32_t>(i);
      p[1] = static_cast<uint32_t>(size);
      static_cast<char*>(static_cast<void*>(p))[size - 1] =
          static_cast<char>(i);
      std::atomic<void*>& slot = ring[i % m.ring];
      while (slot.load(std::memory_order_acquire) != nullptr) sched_yield();
      slot.store(p, std::memory_order_release);
    }
  });
  std::thread consumer([&] {
    for (int i = 0; i < m.messages && failed.load() == 0; ++i) {
      std::atomic<void*>& slot = ring[i % m.ring];
      void* p;
      while ((p = slot.load(std::memory_order_acquire)) == nullptr) {
        if (failed.load() != 0) return;
        sched_yield();
      }
      slot.store(nullptr, std::memory_order_release);
      const uint32_t* words = static_cast<const uint32_t*>(p);
      const size_t size = words[1];
      if (words[0] != static_cast<uint32_t>(i) ||
          static_cast<const char*>(p)[size - 1] != static_cast<char>(i)) {
        changed.fetch_add(1);
      }
      Free(p);
      if (i % check_every == 0) {
        const uint64_t held = ReadCounters().bytes_held;
        if (held > max_held.load()) max_held.store(held);
      }
    }
  });
  producer.join();
  consumer.join();
  // At the end, no thread in the allocator: every count, the resident
  // bytes too (while both run, only the allocator's).
  HeldWorst at_end;
  at_end.Add(ReadHeldNow());
  call.Record("failed", static_cast<double>(failed.load()));
  call.Record("changed", static_cast<double>(changed.load()));
  call.Record("max_held", std::max(at_end.judged, max_held.load()));
  at_end.Record(call);
}
ALLOCLAB_FRESH_CALL("allocator_design_messages", MessagesCall);

class DesignMessagePassing : public testing::TestWithParam<MessageShape> {};

TEST_P(DesignMessagePassing, ProducerAndConsumerStayBounded) {
  const MessageShape& m = GetParam();
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_messages", m.name);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << kRuleAvailable << ": Allocate() failed in the producer";
  EXPECT_EQ(r->values["changed"], 0)
      << kRuleSurvive << " (a message changed between its threads)";
  ExpectResidentKnown(*r);
  EXPECT_LE(r->values["max_held"], kMessagePassingHeldBytes)
      << kRuleMessages << ": " << m.messages << " messages of " << m.min_bytes
      << " to " << m.max_bytes << " bytes through a ring of " << m.ring
      << " (at most " << (m.ring + 2) * m.max_bytes
      << " bytes live at once); at most " << r->values["max_held"]
      << " bytes held (by ReadCounters() while both ran; at the end "
      << HeldCounts(*r)
      << "; kMessagePassingHeldBytes = " << kMessagePassingHeldBytes << ")";
}

INSTANTIATE_TEST_SUITE_P(Messages, DesignMessagePassing,
                         testing::ValuesIn(kMessageShapes),
                         [](const testing::TestParamInfo<MessageShape>& info) {
                           return std::string(info.param.name);
                         });

// ---------------------------------------------------------------------------
// Design, promise 5: memory is used.
// ---------------------------------------------------------------------------

void TraceCall(alloclab::FreshCall& call) {
  for (const Trace& trace : Traces()) {
    if (trace.name != call.arg()) continue;
    absl::StatusOr<TraceResult> r = ReplayTrace(trace);
    if (!r.ok()) {
      call.Fail(r.status().ToString());
      return;
    }
    call.Record("peak_live", static_cast<double>(r->peak_live_bytes));
    call.Record("peak_held", static_cast<double>(r->peak_held_bytes));
    call.Record("peak_mapped", static_cast<double>(r->peak_mapped_bytes));
    call.Record("utilization", r->utilization);
    return;
  }
  call.Fail(absl::StrCat("no trace named '", call.arg(), "'"));
}
ALLOCLAB_FRESH_CALL("allocator_design_trace", TraceCall);

class DesignUtilization : public testing::TestWithParam<std::string> {};

TEST_P(DesignUtilization, TraceUsesTheMemoryItHolds) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_trace", GetParam());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->values["utilization"], kMinUtilization)
      << kRuleUtilization << ": trace " << GetParam() << " peaked at "
      << r->values["peak_live"] << " bytes live and " << r->values["peak_held"]
      << " held (kMinUtilization = " << kMinUtilization << ")";
}

std::vector<std::string> TraceNames() {
  std::vector<std::string> names;
  for (const Trace& trace : Traces()) names.push_back(trace.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Traces, DesignUtilization,
                         testing::ValuesIn(TraceNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!absl::ascii_isalnum(c)) c = '_';
                           }
                           return name;
                         });

// ---------------------------------------------------------------------------
// Validator and Design, explored: the edges of sizes and alignments, every
// kind of memory through every path it is recycled by, the counters where
// the page source says them exactly, and a random explorer (MIT 6.172's
// malloc validator, in this suite's terms). The tests above reach the
// inputs their authors had in mind; these reach the ones a design's own
// numbers make special.
// ---------------------------------------------------------------------------

// TestsBefore()
//
// Which tests of this process ran before the current one (GoogleTest's own
// record), for a failure that depends on the state they left: "after 27
// tests of this process, the last ValidatorZero.Zeroed...".
std::string TestsBefore() {
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  const testing::TestInfo* current = unit.current_test_info();
  const testing::TestInfo* last = nullptr;
  int ran = 0;
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const testing::TestSuite* suite = unit.GetTestSuite(i);
    for (int j = 0; j < suite->total_test_count(); ++j) {
      const testing::TestInfo* info = suite->GetTestInfo(j);
      if (info == current || info->result()->start_timestamp() == 0) continue;
      ++ran;
      if (last == nullptr || info->result()->start_timestamp() >=
                                 last->result()->start_timestamp()) {
        last = info;
      }
    }
  }
  if (last == nullptr) {
    return "the first test of this process: no earlier test left any state";
  }
  return absl::StrCat("after ", ran,
                      " earlier tests of this process, the "
                      "last of them ",
                      last->test_suite_name(), ".", last->name());
}

// EdgeSizes()
//
// The sizes at which designs' classes and thresholds commonly change: every
// multiple of 16 to 128, then four steps per doubling to 256 KiB (the
// quarter steps of jemalloc, tcmalloc and the reference), and every power
// of two and one and a half times it up to `most`; each with its
// neighbours at -16, -1, +1 and +16. A class table or a large threshold
// that rounds one of them the wrong way serves a block shorter than asked.
std::vector<size_t> EdgeSizes(size_t most) {
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

// Counts the failures of a test and reports the first few of them in full.
class Failures {
 public:
  void Add(const std::string& message) {
    if (++count_ <= 5) ADD_FAILURE() << message;
  }
  int count() const { return count_; }

 private:
  int count_ = 0;
};

// What is wrong with a block Allocate(size, alignment, zero) just gave, or
// "" when nothing is: it is there, aligned, at least `size` usable bytes,
// and zeroes when `zero`.
std::string CheckNewBlock(void* p, size_t size, size_t alignment, bool zero) {
  const std::string call = absl::StrCat("Allocate(", size, ", ", alignment,
                                        ", ", zero ? "true" : "false", ")");
  if (p == nullptr) return absl::StrCat(kRuleAvailable, ": ", call, " failed");
  if (Address(p) % std::max(alignment, kMinAlignment) != 0) {
    return absl::StrCat(kRuleAligned, ": ", call, " gave ",
                        absl::StrFormat("%p", p));
  }
  const size_t usable = UsableSize(p);
  if (usable < size) {
    return absl::StrCat(kRuleUsable, ": ", call, " gave a block whose ",
                        "UsableSize() is ", usable, ", and the caller ",
                        "writes ", size - usable, " bytes past it");
  }
  if (zero) {
    const int64_t at = FirstNonZero(p, size);
    if (at >= 0) {
      return absl::StrCat(kRuleZero, ": ", call, " gave ",
                          absl::StrFormat("%p", p), ", whose byte ", at,
                          " is not zero");
    }
  }
  return "";
}

// Every edge size, at every alignment up to 1 MiB (above 256 KiB at a few:
// each is a mapping), asked for plain and then again with `zero` once the
// first block, written all over, is freed (a thread cache, or a cache of
// large mappings, hands the same memory back).
TEST(ValidatorEdges, EveryEdgeSizeAtEveryAlignmentWithAndWithoutZero) {
  Failures failures;
  for (size_t size : EdgeSizes(4 * kMiB)) {
    for (size_t alignment = 1; alignment <= kMiB; alignment *= 2) {
      if (size > 256 * kKiB && alignment != 1 && alignment != 4096 &&
          alignment != kMiB) {
        continue;
      }
      void* p = Allocate(size, alignment, false);
      std::string wrong = CheckNewBlock(p, size, alignment, false);
      if (!wrong.empty()) {
        failures.Add(wrong);
        if (p == nullptr || UsableSize(p) < size) {
          Free(p);
          continue;
        }
      }
      std::memset(p, 0xA5, UsableSize(p));  // every usable byte is ours
      Free(p);
      p = Allocate(size, alignment, true);
      wrong = CheckNewBlock(p, size, alignment, true);
      if (!wrong.empty()) {
        failures.Add(absl::StrCat(wrong, " (the same size and alignment ",
                                  "was written all over and freed just ",
                                  "before)"));
      }
      if (p != nullptr) std::memset(p, 0x5A, std::min(size, UsableSize(p)));
      Free(p);
    }
  }
  EXPECT_EQ(failures.count(), 0)
      << "sizes at every class edge and threshold, +-1 and +-16, at every "
         "alignment";
}

// Memory of one kind, written all over and freed, then asked for with
// `zero` as another kind would take it: blocks of one class whose spans
// go back whole and are carved for another class, before and after the
// decay has released them, freed by a thread that exits and by one that
// runs on.
struct Recycling {
  const char* name;
  size_t dirty_size;  // written all over and freed
  size_t zero_size;   // then asked for with `zero`
  size_t alignment;
};
constexpr Recycling kRecyclings[] = {
    {"small spans, another class", 64, 1000, 1},
    {"small spans, over-aligned", 48, 256, 256},
    {"small spans, a middle class", 24, 12 * 1024, 1},
    {"large spans, another class", 20000, 50000, 1},
    {"large spans, over-aligned", 40000, 65536, 65536},
    {"the large threshold", 200 * 1024, (256 + 16) * 1024, 1},
    {"large mappings, over-aligned", 300 * 1024, 290 * 1024, 4096},
};

// Allocates about `total` bytes of blocks of `size`, each written all
// over, then frees them all.
void DirtyAndFree(size_t size, size_t total) {
  std::vector<void*> blocks;
  for (size_t sum = 0; sum < total; sum += size) {
    void* p = Allocate(size, 1, false);
    if (p == nullptr) break;
    std::memset(p, 0xA5, UsableSize(p));
    blocks.push_back(p);
  }
  for (void* p : blocks) Free(p);
}

TEST(ValidatorZero, EveryKindOfMemoryThroughEveryPathReadsZeroes) {
  internal::ScopedFakeClock clock;
  Failures failures;
  constexpr size_t kTotal = kMiB;
  for (const Recycling& r : kRecyclings) {
    for (bool exits : {true, false}) {
      for (bool decayed : {false, true}) {
        if (exits) {
          std::thread([&] { DirtyAndFree(r.dirty_size, kTotal); }).join();
        } else {
          DirtyAndFree(r.dirty_size, kTotal);
        }
        if (decayed) {
          clock.Advance(2 * kDecayNs);
          for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
            Free(Allocate(64, 1, false));
          }
        }
        std::vector<void*> blocks;
        int wrong_here = 0;
        for (size_t sum = 0; sum < kTotal; sum += r.zero_size) {
          void* p = Allocate(r.zero_size, r.alignment, true);
          const std::string wrong =
              CheckNewBlock(p, r.zero_size, r.alignment, true);
          if (!wrong.empty() && ++wrong_here == 1) {
            failures.Add(absl::StrCat(
                wrong, " (", r.name, ": ", kTotal, " bytes of blocks of ",
                r.dirty_size, " were written all over and freed by a thread ",
                exits ? "that then exited" : "that runs on (this one)",
                decayed ? ", and 2 * kDecayNs passed" : "", ")"));
          }
          if (p == nullptr) break;
          blocks.push_back(p);
        }
        for (void* p : blocks) Free(p);
      }
    }
  }
  EXPECT_EQ(failures.count(), 0) << kRuleZero;
}

// The explorer: random sequences of the calls of task.h, from several
// threads in rounds (each round's threads exit, the next round's free what
// they left, and each allocates again in its own exit), sizes drawn around
// every edge, every block's bytes and
// zeroes checked, no two live blocks overlapping, a block sometimes freed
// by another thread, and the decay passing between rounds. A fixed seed
// and a fixed budget of operations: a failure names the seed, the thread,
// the operation's index and arguments, so that a run replays it, and the
// tests that ran before it in this process.
constexpr uint64_t kExplorerSeed = 6172;
constexpr int kExplorerThreads = 4;
constexpr int kExplorerRounds = 3;
constexpr int kExplorerOps = 3000;     // per thread and round
constexpr size_t kExplorerLive = 200;  // blocks a thread keeps at most

class Explorer {
 public:
  Explorer() : edges_(EdgeSizes(kMiB)) {
    static pthread_key_t key;
    static const bool created = pthread_key_create(&key, [](void* work) {
                                  static_cast<ExitWork*>(work)->Run();
                                }) == 0;
    exit_key_ = created ? &key : nullptr;
  }

  // Runs the rounds; "" when every check held, else the first failure.
  std::string Run(internal::ScopedFakeClock& clock) {
    std::vector<std::vector<Block>> left(kExplorerThreads);
    for (int round = 0; round < kExplorerRounds && !stop_.load(); ++round) {
      std::vector<std::thread> threads;
      for (int t = 0; t < kExplorerThreads; ++t) {
        threads.emplace_back([this, round, t, &left] {
          ExitWork& work = exit_work_[round][t];
          work = {this, round, t};
          if (exit_key_ != nullptr) pthread_setspecific(*exit_key_, &work);
          // What a thread of the round before left, freed here.
          std::vector<Block> inherited = std::move(left[t]);
          left[t] = Thread(round, t, std::move(inherited));
        });
      }
      for (std::thread& t : threads) t.join();
      if (round % 2 == 1) clock.Advance(2 * kDecayNs);
    }
    for (std::vector<Block>& blocks : left) {
      for (const Block& b : blocks) CheckAndFree(b, kExplorerRounds, -1, -1);
    }
    for (const Block& b : mailbox_) CheckAndFree(b, kExplorerRounds, -1, -1);
    mailbox_.clear();
    return failure_;
  }

 private:
  // At its exit, in a pthread key's destructor (which runs before or after
  // the allocator's own exit hook, as it comes), a thread allocates again:
  // kExitOps blocks, checked, the first handed to another thread to free.
  static constexpr int kExitOps = 8;
  struct ExitWork {
    Explorer* explorer = nullptr;
    int round = 0;
    int t = 0;
    void Run() { explorer->AtExit(round, t); }
  };

  void AtExit(int round, int t) {
    Rng rng(kExplorerSeed * 1000 + round * 10 + t + 500);
    for (int i = 0; i < kExitOps && !stop_.load(); ++i) {
      const int op = kExplorerOps + i;
      const size_t size = Size(rng);
      const bool zero = i % 2 == 0;
      void* p = Allocate(size, 1, zero);
      const std::string wrong = CheckNewBlock(p, size, 1, zero);
      if (!wrong.empty()) {
        Fail(round, t, op, wrong);
        return;
      }
      if (!Enter(p, std::max({UsableSize(p), size, size_t{1}}), round, t, op,
                 size, 1)) {
        return;
      }
      const uint64_t seed = (static_cast<uint64_t>(round * 10 + t) << 32) +
                            static_cast<uint64_t>(op);
      Fill(p, size, seed);
      if (i == 0) {
        std::lock_guard<std::mutex> lock(mu_);
        mailbox_.push_back({p, size, seed});
      } else {
        CheckAndFree({p, size, seed}, round, t, op);
      }
    }
  }

  // One thread of one round: kExplorerOps operations; returns the blocks it
  // leaves live for the next round.
  std::vector<Block> Thread(int round, int t, std::vector<Block> live) {
    Rng rng(kExplorerSeed * 1000 + round * 10 + t);
    for (int op = 0; op < kExplorerOps && !stop_.load(); ++op) {
      const uint64_t pick = rng.Next() % 100;
      if (pick < 30 && !live.empty()) {
        const size_t k = rng.Next() % live.size();
        CheckAndFree(live[k], round, t, op);
        live[k] = live.back();
        live.pop_back();
      } else if (pick < 35 && !live.empty()) {
        const size_t k = rng.Next() % live.size();
        std::lock_guard<std::mutex> lock(mu_);
        mailbox_.push_back(live[k]);  // another thread frees it
        live[k] = live.back();
        live.pop_back();
      } else if (pick < 40) {
        Block b;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (mailbox_.empty()) continue;
          b = mailbox_.back();
          mailbox_.pop_back();
        }
        CheckAndFree(b, round, t, op);
      } else if (pick < 45 && !live.empty()) {
        const Block& b = live[rng.Next() % live.size()];
        if (UsableSize(b.p) < b.size) {
          Fail(round, t, op,
               absl::StrCat(kRuleUsable, ": UsableSize() of a live block of ",
                            b.size, " bytes is ", UsableSize(b.p)));
        }
      } else if (live.size() < kExplorerLive) {
        const size_t size = Size(rng);
        const uint64_t kind = rng.Next() % 4;
        const size_t alignment =
            kind == 3 ? size_t{1} << rng.Between(5, 20) : size_t{1};
        const bool zero = kind == 1 || (kind == 3 && rng.Next() % 2 == 0);
        void* p = Allocate(size, alignment, zero);
        const std::string wrong = CheckNewBlock(p, size, alignment, zero);
        if (!wrong.empty()) {
          Fail(round, t, op, wrong);
          if (p == nullptr || UsableSize(p) < size) break;
        }
        const uint64_t seed = (static_cast<uint64_t>(round * 10 + t) << 32) +
                              static_cast<uint64_t>(op);
        if (!Enter(p, std::max({UsableSize(p), size, size_t{1}}), round, t, op,
                   size, alignment)) {
          break;
        }
        Fill(p, size, seed);
        live.push_back({p, size, seed});
      }
    }
    return live;
  }

  // Around an edge most of the time; any small size, or 0, otherwise.
  size_t Size(Rng& rng) {
    const uint64_t pick = rng.Next() % 100;
    if (pick < 5) return 0;
    if (pick < 25) return rng.Between(1, 4096);
    const size_t edge = edges_[rng.Next() % edges_.size()];
    return edge + rng.Between(0, 32) - std::min<size_t>(edge - 1, 16);
  }

  // Enters [p, p + bytes) among the live blocks; false (and a failure)
  // when it meets one.
  bool Enter(void* p, size_t bytes, int round, int t, int op, size_t size,
             size_t alignment) {
    std::lock_guard<std::mutex> lock(mu_);
    const uintptr_t start = Address(p), end = start + bytes;
    auto next = live_.lower_bound(start);
    const bool meets_next = next != live_.end() && next->first < end;
    const bool meets_prev =
        next != live_.begin() && std::prev(next)->second > start;
    if (meets_next || meets_prev) {
      FailLocked(round, t, op,
                 absl::StrCat(kRuleOverlap, ": Allocate(", size, ", ",
                              alignment, ") gave ", absl::StrFormat("%p", p),
                              ", ", bytes, " bytes that meet a live block"));
      return false;
    }
    live_[start] = end;
    return true;
  }

  void CheckAndFree(const Block& b, int round, int t, int op) {
    const int64_t at = FirstChanged(b.p, b.size, b.seed);
    if (at >= 0) {
      Fail(round, t, op,
           absl::StrCat(kRuleSurvive, ": a block of ", b.size,
                        " bytes changed at offset ", at, " before its Free()",
                        " (allocated by round ", (b.seed >> 32) / 10,
                        ", thread ", (b.seed >> 32) % 10, ", op ",
                        b.seed & 0xffffffff, ")"));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      live_.erase(Address(b.p));
    }
    Free(b.p);
  }

  void Fail(int round, int t, int op, const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    FailLocked(round, t, op, what);
  }

  void FailLocked(int round, int t, int op, const std::string& what) {
    stop_.store(true);
    if (!failure_.empty()) return;
    failure_ = absl::StrCat(
        what, "; explorer seed ", kExplorerSeed, ", round ", round,
        t < 0
            ? std::string(", the final frees")
            : absl::StrCat(", thread ", t, ", op ", op, " of ", kExplorerOps,
                           op >= kExplorerOps ? " (at the thread's exit)" : ""),
        " (", kExplorerThreads,
        " threads a round, each round's exit "
        "before the next; the decay passed after rounds 1, 3, ...)");
  }

  const std::vector<size_t> edges_;
  std::mutex mu_;
  std::map<uintptr_t, uintptr_t> live_;  // start -> end, every live block
  std::vector<Block> mailbox_;           // blocks for another thread to free
  std::atomic<bool> stop_{false};
  std::string failure_;
  pthread_key_t* exit_key_ = nullptr;
  ExitWork exit_work_[kExplorerRounds][kExplorerThreads];
};

TEST(ValidatorExplorer, RandomCallsFromSeveralThreadsKeepEveryRule) {
  internal::ScopedFakeClock clock;
  Explorer explorer;
  const std::string failure = explorer.Run(clock);
  EXPECT_EQ(failure, "") << "the explorer, " << TestsBefore();
}

// The counters where the page source says them exactly: in a fresh
// process, before anything was released, bytes_held is what was mapped and
// not unmapped, to the byte (metadata too); with blocks live, and after
// they are freed (the decay's clock standing still).
void CountersExactCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  Rng rng(23);
  std::vector<void*> blocks;
  auto record = [&](absl::string_view when) {
    const Counters c = ReadCounters();
    const PageSourceCounts pages = ReadPageSourceCounts();
    call.Record(absl::StrCat(when, "_held"), c.bytes_held);
    call.Record(absl::StrCat(when, "_returned"), c.bytes_returned);
    call.Record(absl::StrCat(when, "_mapped_not_unmapped"),
                pages.bytes_mapped - pages.bytes_unmapped);
    call.Record(absl::StrCat(when, "_unmapped"), pages.bytes_unmapped);
    call.Record(absl::StrCat(when, "_released"), pages.bytes_released);
  };
  for (int i = 0; i < 2000; ++i) {
    blocks.push_back(Allocate(MixedSize(rng), 1, false));
  }
  record("live");
  for (void* p : blocks) Free(p);
  record("freed");
}
ALLOCLAB_FRESH_CALL("allocator_design_counters_exact", CountersExactCall);

TEST(ValidatorCounters, HeldIsExactWhileNothingWasReleased) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_counters_exact");
  ASSERT_TRUE(r.ok()) << r.status();
  for (const char* when : {"live", "freed"}) {
    auto v = [&](absl::string_view key) {
      return r->values[absl::StrCat(when, "_", key)];
    };
    EXPECT_EQ(v("returned"), v("unmapped") + v("released"))
        << kRuleCounters << " (" << when << ")";
    if (v("released") != 0) continue;  // then only bounds: checked above
    EXPECT_EQ(v("held"), v("mapped_not_unmapped"))
        << kRuleCounters << " (metadata, and memory kept in any cache, are "
        << "held): in a fresh process, 2000 blocks of mixed sizes " << when
        << ", nothing released yet: bytes_held " << v("held")
        << ", mapped and not unmapped " << v("mapped_not_unmapped");
  }
}

// ---------------------------------------------------------------------------
// Validator: the counters while several threads map, unmap and read.
// ---------------------------------------------------------------------------

// CountersWhileMappingCall()'s parked call: its size, and how much of its
// own map a design may count before it makes it (task.h: of a call still
// under way, part of its own at most).
constexpr size_t kParkedBytes = 8 * kMiB;
constexpr size_t kParkedSlackBytes = kParkedBytes + kMiB;
// What another thread does while that call is parked: large blocks, each a
// map of its own, more bytes between them than the parked call's slack.
constexpr size_t kWhileParkedBytes = 4 * kMiB;
constexpr int kWhileParkedBlocks = 4;
// Then threads that allocate and free at once (large blocks among them)
// while this one reads the counters again and again.
constexpr int kCountingWorkers = 3;
constexpr int kCountingRounds = 600;
constexpr int kCountingLargeEvery = 16;  // a large block every 16th round

// The thread marked parks at its first map (the page source's observer,
// before it maps) until the test lets it go; lock.h's observer counts the
// locks it holds then: a design that maps under a lock may make every
// other thread wait there, and is not read while it does.
thread_local bool park_at_map = false;
std::atomic<int> map_park{0};  // 0 not yet, 1 parked, 2 let go
std::atomic<int> parked_locks_held{0};

void ParkAtFirstMap() {
  if (!park_at_map) return;
  park_at_map = false;
  map_park.store(1);
  while (map_park.load() != 2) sched_yield();
}

void CountParkedLocks(const Lock&, internal::LockEvent event) {
  if (!park_at_map) return;
  if (event == internal::LockEvent::kAcquired) parked_locks_held.fetch_add(1);
  if (event == internal::LockEvent::kReleasing) parked_locks_held.fetch_sub(1);
}

uint64_t PagesMoved(const PageSourceCounts& from, const PageSourceCounts& to) {
  return (to.bytes_mapped - from.bytes_mapped) +
         (to.bytes_unmapped - from.bytes_unmapped) +
         (to.bytes_released - from.bytes_released);
}

void CountersWhileMappingCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;  // standing still: no decay
  auto record = [&](absl::string_view when) {
    const Counters c = ReadCounters();
    const PageSourceCounts p = ReadPageSourceCounts();
    call.Record(absl::StrCat(when, "_held"), c.bytes_held);
    call.Record(absl::StrCat(when, "_returned"), c.bytes_returned);
    call.Record(absl::StrCat(when, "_pages_returned"),
                p.bytes_unmapped + p.bytes_released);
    call.Record(absl::StrCat(when, "_released"), p.bytes_released);
    call.Record(absl::StrCat(when, "_mapped_not_unmapped"),
                p.bytes_mapped - p.bytes_unmapped);
  };

  // 1. One thread parked inside Allocate() at its map; another maps large
  // blocks, frees one, and returns; this one reads.
  internal::SetLockObserver(CountParkedLocks);
  internal::SetMapObserver(ParkAtFirstMap);
  const PageSourceCounts before_parked = ReadPageSourceCounts();
  std::atomic<bool> a_returned{false};
  void* parked_block = nullptr;
  std::thread a([&] {
    park_at_map = true;
    parked_block = Allocate(kParkedBytes, 16, false);
    park_at_map = false;
    a_returned.store(true);
  });
  while (map_park.load() == 0 && !a_returned.load()) sched_yield();
  const bool parked = map_park.load() == 1;
  call.Record("parked", parked ? 1 : 0);
  call.Record("parked_locks", parked_locks_held.load());
  std::vector<void*> others;
  if (parked && parked_locks_held.load() == 0) {
    call.Record("parked_moved",
                PagesMoved(before_parked, ReadPageSourceCounts()));
    std::thread b([&] {
      for (int i = 0; i < kWhileParkedBlocks; ++i) {
        others.push_back(Allocate(kWhileParkedBytes, 16, false));
      }
      Free(others.front());
      others.erase(others.begin());
    });
    b.join();
    record("during");
  }
  map_park.store(2);
  a.join();
  internal::SetMapObserver(nullptr);
  internal::SetLockObserver(nullptr);
  record("after_parked");
  Free(parked_block);
  for (void* p : others) Free(p);

  // 2. Workers allocate and free at once, large blocks among small ones;
  // this thread reads the counters until they are done.
  // Each worker waits for a read before each large block: the reads fall
  // among the maps, however fast the workers are.
  std::atomic<int> running{kCountingWorkers};
  std::atomic<uint64_t> reads{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kCountingWorkers; ++w) {
    workers.emplace_back([&, w] {
      Rng rng(31 + w);
      void* ring[8] = {};
      for (int round = 0; round < kCountingRounds; ++round) {
        void*& slot = ring[round % 8];
        if (round % kCountingLargeEvery == 0) {
          const uint64_t seen = reads.load();
          while (reads.load() == seen) sched_yield();
        }
        Free(slot);
        const size_t size = round % kCountingLargeEvery == 0
                                ? rng.Between(kMiB, 6 * kMiB)
                                : MixedSize(rng);
        slot = Allocate(size, 16, false);
      }
      for (void* p : ring) Free(p);
      running.fetch_sub(1);
    });
  }
  uint64_t went_down = 0;
  Counters last = ReadCounters();
  while (running.load() != 0) {
    const Counters c = ReadCounters();
    if (c.bytes_returned < last.bytes_returned ||
        c.central_visits < last.central_visits) {
      ++went_down;
    }
    last = c;
    reads.fetch_add(1);
  }
  for (std::thread& t : workers) t.join();
  call.Record("reads", reads.load());
  call.Record("went_down", went_down);
  record("end");
}
ALLOCLAB_FRESH_CALL("allocator_design_counters_while_mapping",
                    CountersWhileMappingCall);

// task.h, ReadCounters(): every map, unmap and release of a call that has
// returned is counted, whatever other threads are doing. One thread is
// parked inside Allocate() at its map while another maps large blocks and
// returns: this thread's read counts the other's maps (the parked call may
// have counted part of its own); then, with every thread out, the counts
// are exact (an allocator that counts from a value it read before its map
// loses the other thread's maps there). Then threads allocate and free at
// once, large blocks among them, while this thread reads the counters
// again and again: bytes_returned and central_visits never go down, and
// once every thread is out they are exact again.
TEST(ValidatorCounters, EveryCallThatReturnedIsCountedWhileOthersMap) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_counters_while_mapping");
  ASSERT_TRUE(r.ok()) << r.status();
  auto v = [&](absl::string_view key) { return r->values[std::string(key)]; };
  ASSERT_EQ(v("parked"), 1)
      << "the test could not stop a thread inside the allocator: a fresh "
         "Allocate() of "
      << kParkedBytes / kMiB
      << " MiB never asked the page source for memory (task.h: it gets "
         "memory only from pages.h)";
  // The counts read `when`, against the page source's: to the byte but
  // for `share` (what calls still under way may have counted of their
  // own), and, once something was released, within the bounds a released
  // range taken into use again leaves.
  auto agree = [&](absl::string_view when, absl::string_view what,
                   double share) {
    auto w = [&](absl::string_view key) {
      return v(absl::StrCat(when, "_", key));
    };
    const std::string read = absl::StrCat(
        kRuleCounters,
        " (task.h, ReadCounters(): every call that returned "
        "is counted): ",
        what, ": bytes_held ", w("held"), ", bytes_returned ", w("returned"),
        "; the page source mapped and did not unmap ", w("mapped_not_unmapped"),
        ", unmapped and released ", w("pages_returned"), ", released ",
        w("released"),
        share == 0
            ? ""
            : absl::StrCat(" (calls under way: ", share, " bytes at most)"));
    EXPECT_LE(std::abs(w("returned") - w("pages_returned")), share) << read;
    EXPECT_LE(w("held"), w("mapped_not_unmapped") + share) << read;
    EXPECT_GE(w("held") + w("released") + share, w("mapped_not_unmapped"))
        << read;
    if (w("released") == 0) {
      EXPECT_LE(std::abs(w("held") - w("mapped_not_unmapped")), share) << read;
    }
  };
  if (v("parked_locks") == 0) {
    // The parked call's own share: what it moved before it parked, and
    // its map, which it may have counted already.
    agree("during",
          absl::StrCat("read while a thread was parked inside Allocate(",
                       kParkedBytes / kMiB,
                       " MiB) at its map, after another "
                       "allocated ",
                       kWhileParkedBlocks, " blocks of ",
                       kWhileParkedBytes / kMiB,
                       " MiB, freed one and "
                       "returned"),
          v("parked_moved") + kParkedSlackBytes);
  }
  agree("after_parked",
        absl::StrCat("every thread out of the allocator, after one was "
                     "parked inside Allocate() at its map while another "
                     "mapped ",
                     kWhileParkedBlocks, " blocks of ",
                     kWhileParkedBytes / kMiB, " MiB"),
        0);
  EXPECT_GT(v("reads"), 0);
  EXPECT_EQ(v("went_down"), 0)
      << "task.h, ReadCounters(): bytes_returned and central_visits never "
         "go down from one read to the next; read "
      << v("reads") << " times while " << kCountingWorkers
      << " threads allocated and freed, " << v("went_down")
      << " reads were lower than the one before";
  agree("end",
        absl::StrCat("every thread out of the allocator, after ",
                     kCountingWorkers,
                     " threads allocated and freed at "
                     "once (large blocks among them) while this one read"),
        0);
}

// ---------------------------------------------------------------------------
// Validator: memory only from the page source.
// ---------------------------------------------------------------------------

constexpr absl::string_view kRuleOnlyPages =
    "task.h, rules of the game: the allocator gets memory only from pages.h "
    "(every block, and all metadata that grows with use)";

// The round counted under ptrace: small and large blocks, freed, a decay
// let pass (releases and unmaps), and blocks again.
constexpr int kOnlyPagesSmall = 1500;
constexpr size_t kOnlyPagesLarge[] = {kMiB, 3 * kMiB, 6 * kMiB, 17 * kMiB};

void OnlyPagesRound(internal::ScopedFakeClock& clock) {
  Rng rng(41);
  void* blocks[kOnlyPagesSmall + std::size(kOnlyPagesLarge)];
  int n = 0;
  for (int i = 0; i < kOnlyPagesSmall; ++i) {
    blocks[n++] = Allocate(MixedSize(rng), 16, false);
  }
  for (size_t size : kOnlyPagesLarge) blocks[n++] = Allocate(size, 16, true);
  for (int i = 0; i < n; ++i) Free(blocks[i]);
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < 2 * kDecayCheckOps; ++i) {
    Free(Allocate(64, 16, false));
  }
  n = 0;
  for (int i = 0; i < kOnlyPagesSmall / 3; ++i) {
    blocks[n++] = Allocate(MixedSize(rng), 16, false);
  }
  for (int i = 0; i < n; ++i) Free(blocks[i]);
}

// Every mmap, munmap, madvise and brk a fresh process makes while a round
// of Allocate() and Free() runs (its first: metadata is mapped too),
// counted by ptrace in a forked copy, beside the page source's own count
// of the same round, which the copy leaves in memory it shares with this
// process (the test's own mapping, not the allocator's).
void OnlyPagesCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  void* shared =
      mmap(nullptr, 2 * sizeof(PageSourceCounts), PROT_READ | PROT_WRITE,
           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    call.Fail("mmap of the shared counts failed");
    return;
  }
  auto* pages = static_cast<PageSourceCounts*>(shared);
  absl::StatusOr<alloclab::SyscallCounts> syscalls =
      alloclab::CountSyscallsInChild([&] {
        pages[0] = ReadPageSourceCounts();
        OnlyPagesRound(clock);
        pages[1] = ReadPageSourceCounts();
      });
  if (absl::IsFailedPrecondition(syscalls.status())) {
    call.Record("skipped", 1);
    return;
  }
  if (!syscalls.ok()) {
    call.Fail(syscalls.status().ToString());
    return;
  }
  call.Record("skipped", 0);
  call.Record("maps", pages[1].map_calls - pages[0].map_calls);
  call.Record("unmaps", pages[1].unmap_calls - pages[0].unmap_calls);
  call.Record("releases", pages[1].release_calls - pages[0].release_calls);
  call.Record("mmap", syscalls->mmap);
  call.Record("munmap", syscalls->munmap);
  call.Record("madvise", syscalls->madvise);
  call.Record("brk", syscalls->brk);
  call.Record("mremap", syscalls->mremap);
}
ALLOCLAB_FRESH_CALL("allocator_design_only_pages", OnlyPagesCall);

// Each MapPages() or MapAlignedPages() is one mmap (the aligned one trims
// its ends with up to two munmaps), each UnmapPages() one munmap, each
// ReleasePages() one madvise; brk and mremap are no page source's. More
// than that is memory the allocator took, or gave back, by itself.
TEST(ValidatorMemorySource, EveryMapUnmapAndReleaseIsThePageSources) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_only_pages");
  ASSERT_TRUE(r.ok()) << r.status();
  auto v = [&](absl::string_view key) {
    return static_cast<int64_t>(r->values[std::string(key)]);
  };
  if (v("skipped") == 1) {
    GTEST_SKIP() << "cannot count system calls here (ptrace refused)";
  }
  const std::string what = absl::StrCat(
      "in a fresh process's first round of ", kOnlyPagesSmall, " small and ",
      std::size(kOnlyPagesLarge),
      " large blocks, freed, a decay and more blocks, the process made ",
      v("mmap"), " mmap, ", v("munmap"), " munmap, ", v("madvise"),
      " madvise, ", v("brk"), " brk and ", v("mremap"),
      " mremap calls; the page source made ", v("maps"), " maps, ", v("unmaps"),
      " unmaps and ", v("releases"), " releases");
  EXPECT_GT(v("maps"), 0) << kRuleOnlyPages << ": " << what;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // A sanitizer's runtime maps, unmaps and releases shadow memory of its
  // own around the page source's calls: there, only brk and mremap count.
  EXPECT_EQ(v("mmap"), v("maps")) << kRuleOnlyPages << ": " << what;
  EXPECT_LE(v("munmap"), v("unmaps") + 2 * v("maps"))
      << kRuleOnlyPages << ": " << what;
  EXPECT_EQ(v("madvise"), v("releases")) << kRuleOnlyPages << ": " << what;
#endif
  EXPECT_EQ(v("brk"), 0) << kRuleOnlyPages << ": " << what;
  EXPECT_EQ(v("mremap"), 0) << kRuleOnlyPages << ": " << what;
}

// Promise 1 above the sizes of the fast-path tests: pairs of blocks of the
// classes over 4 KiB, to 256 KiB, each of a size used before.
constexpr size_t kLargerFastSizes[] = {4097,      6000,          8 * 1024 + 16,
                                       16 * 1024, 32 * 1024 + 1, 65536,
                                       100'000,   200'000,       256 * 1024};

Calls LargerPairs(int pairs) {
  constexpr int kCount = std::size(kLargerFastSizes);
  Calls calls;
  for (int i = 0; i < pairs; ++i) {
    const size_t size = kLargerFastSizes[i % kCount];
    void* p = Allocate(size, 1, false);
    static_cast<volatile char*>(p)[0] = 1;
    Free(p);
    calls.Add(size);
    calls.Add(size);
  }
  return calls;
}

TEST(DesignFastPath, SteadyStatePairsOfBlocksTo256KiBArePrivate) {
  ExpectPrivateFastPath("malloc/free pairs of 4097 bytes to 256 KiB",
                        LargerPairs, 20'000, 100'000);
}

// Promise 1 at every size to 256 KiB, however grouped: for each size of
// GroupedSizes() and each group of 1 to kMostGroup blocks, a
// thread allocates a group and frees it, kWarmRounds times to warm up and
// kCountedRounds times counted. Two counts, each held to the promise's
// allowance (VisitCredit()): the allocator's own central_visits, and
// the lock.h Locks this thread took (lock.h's observer: a lock taken is a
// visit, task.h says), which no allocator reports itself. In a
// fresh process, the decay's clock standing still. A break fails the call
// with the size, group and counts.
constexpr int kMostGroup = 72;
constexpr int kWarmRounds = 3;
constexpr int kCountedRounds = 8;
constexpr size_t kPromiseOneMax = 256 * kKiB;

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

thread_local uint64_t locks_taken = 0;

void CountLocksTaken(const Lock&, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquired) ++locks_taken;
}

// One group's rounds: `rounds` times, `group` blocks of `size` allocated,
// then freed in the order allocated.
void GroupRounds(size_t size, int group, int rounds) {
  void* blocks[kMostGroup];
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < group; ++i) blocks[i] = Allocate(size, 1, false);
    for (int i = 0; i < group; ++i) Free(blocks[i]);
  }
}

void GroupedVisitsCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  internal::SetLockObserver(CountLocksTaken);
  uint64_t cases = 0, broken = 0, most_permille = 0;
  size_t most_size = 0;
  int most_group = 0;
  std::string first;
  for (size_t size : GroupedSizes()) {
    for (int group = 1; group <= kMostGroup; ++group) {
      GroupRounds(size, group, kWarmRounds);
      const uint64_t visits_before = ReadCounters().central_visits;
      const uint64_t locks_before = locks_taken;
      GroupRounds(size, group, kCountedRounds);
      const uint64_t locks = locks_taken - locks_before;
      const uint64_t visits = ReadCounters().central_visits - visits_before;
      const uint64_t ops = 2 * uint64_t{kCountedRounds} * group;
      const uint64_t allowed = ops * VisitCredit(size) / kBytesPerCentralVisit;
      ++cases;
      const uint64_t permille = std::max(visits, locks) * 1000 / allowed;
      if (permille > most_permille) {
        most_permille = permille;
        most_size = size;
        most_group = group;
      }
      if (visits <= allowed && locks <= allowed) continue;
      if (++broken == 1) {
        first = absl::StrCat("blocks of ", size, " bytes in groups of ", group,
                             " (allocated, then freed): ", visits,
                             " central visits counted and ", locks,
                             " locks taken in ", ops, " calls, at most ",
                             allowed, " allowed");
      }
    }
  }
  internal::SetLockObserver(nullptr);
  call.Record("cases", cases);
  call.Record("broken", broken);
  call.Record("most_permille", most_permille);
  call.Record("most_size", most_size);
  call.Record("most_group", most_group);
  if (broken != 0) {
    call.Fail(absl::StrCat(kRuleFastPath, ": ", broken, " of ", cases,
                           " cases; the first: ", first,
                           " (kOpsPerCentralVisit = ", kOpsPerCentralVisit,
                           ", kBytesPerCentralVisit = ", kBytesPerCentralVisit,
                           ")"));
  }
}
ALLOCLAB_FRESH_CALL("allocator_design_grouped_visits", GroupedVisitsCall);

TEST(DesignFastPath, EveryEdgeSizeTo256KiBInEveryGroupingIsPrivate) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_grouped_visits");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["broken"], 0);
  EXPECT_EQ(r->values["cases"],
            static_cast<double>(GroupedSizes().size() * kMostGroup))
      << "the grouped calls did not run for every size and group";
  // The most of its allowance a case used, in thousandths: a figure for
  // the chapter, not a bound (the bound is the allowance itself).
  for (const char* key : {"most_permille", "most_size", "most_group"}) {
    ::testing::Test::RecordProperty(key, static_cast<int>(r->values[key]));
  }
}

// Promise 2, with the clock moving in steps of kDecayNs / 4 while the thread
// that freed everything runs on, making its kDecayCheckOps calls each step:
// memory freed at the start has been idle for 2 * kDecayNs at the end, however
// often the thread looked at the clock in between. A design that counts a
// cache's idle time from its last look at the clock, not from when its
// blocks were freed, keeps them for as long as the thread keeps calling.
void DecayInStepsCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  AllocateAndFreeMixed(64 * kMiB, 2);
  call.Record("held_before", ReadCounters().bytes_held);
  for (int step = 0; step < 8; ++step) {
    clock.Advance(kDecayNs / 4);
    for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  }
  call.Record("held_after", ReadCounters().bytes_held);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_in_steps", DecayInStepsCall);

TEST(DesignDecay, IdleMemoryGoesBackWhileTheClockMovesInSteps) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_in_steps");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread allocated and freed 64 MiB ("
      << r->values["held_before"] << " bytes held then), and ran on: eight "
      << "times kDecayNs / 4 passed and it made " << kDecayCheckOps
      << " malloc/free pairs of 64 bytes; " << r->values["held_after"]
      << " bytes were held after 2 * kDecayNs (kIdleHeldBytes = "
      << kIdleHeldBytes << ")";
}

// Promise 2 with the frees in two waves, kDecayNs / 2 apart: a decay that
// comes when the first wave is due gives it back and must still remember
// when the second is due. A design that forgets (nothing more is due until
// the next free) keeps the second wave for as long as nothing is freed.
void DecayTwoWavesCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  constexpr int kWaveBlocks = 1024;  // 16 MiB of 16 KiB blocks a wave
  std::vector<void*> blocks(2 * kWaveBlocks);
  std::vector<void*> first_check(kDecayCheckOps), second_check(kDecayCheckOps);
  for (void*& p : blocks) p = Allocate(16 * kKiB, 1, false);
  for (int i = 0; i < kWaveBlocks; ++i) Free(blocks[i]);
  clock.Advance(kDecayNs / 2);
  for (int i = kWaveBlocks; i < 2 * kWaveBlocks; ++i) Free(blocks[i]);
  call.Record("held_before", ReadCounters().bytes_held);
  // The first wave is due, the second not yet: allocations only, so that no
  // free can remind a forgetful design of the second.
  clock.Advance(kDecayNs / 2 + kDecayNs / 4);
  for (void*& p : first_check) p = Allocate(64, 1, false);
  call.Record("held_between", ReadCounters().bytes_held);
  clock.Advance(kDecayNs);
  for (void*& p : second_check) p = Allocate(64, 1, false);
  call.Record("held_after", ReadCounters().bytes_held);
  for (void* p : first_check) Free(p);
  for (void* p : second_check) Free(p);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_two_waves", DecayTwoWavesCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenItWasFreedInTwoWaves) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_two_waves");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread freed 16 MiB, kDecayNs / 2 later another "
      << "16 MiB (" << r->values["held_before"] << " bytes held then), and "
      << "ran on, allocating only: " << kDecayCheckOps << " calls when the "
      << "first wave was due (" << r->values["held_between"] << " bytes held), "
      << kDecayCheckOps << " more kDecayNs later, when "
      << "both were: " << r->values["held_after"] << " bytes held "
      << "(kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Promise 2 for blocks freed by threads that only free: this thread
// allocates, 16 others each free a share of the blocks and exit without
// one Allocate() of their own. Whatever they kept must go back too.
void DecayFreeOnlyCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  constexpr int kThreads = 16;
  Rng rng(16);
  std::vector<std::vector<void*>> shares(kThreads);
  for (int i = 0; i < 4000; ++i) {
    void* p = Allocate(MixedSize(rng) % (256 * kKiB) + 1, 1, false);
    if (p != nullptr) shares[i % kThreads].push_back(p);
  }
  RunThreadsInWaves(kThreads, 4, [&](int t) {
    for (void* p : shares[t]) Free(p);
  });
  call.Record("held_before", ReadCounters().bytes_held);
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  call.Record("held_after", ReadCounters().bytes_held);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_free_only", DecayFreeOnlyCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenTheFreeingThreadsOnlyFreed) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_free_only");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ", whether the thread that freed the blocks has "
      << "exited or runs on: this thread allocated 4000 blocks of up to "
      << "256 KiB, 16 threads that never allocated freed them and exited ("
      << r->values["held_before"] << " bytes held then); "
      << r->values["held_after"] << " after 2 * kDecayNs and " << kDecayCheckOps
      << " malloc/free pairs (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Promise 2's "at least once per kDecayCheckOps calls", in every phase: a
// thread four times frees 24 MiB, lets 2 * kDecayNs pass and makes
// kDecayCheckOps allocations. Each cycle is 5120 calls, so its checking
// calls start a quarter of 4096 later each time: a design that looks at
// the clock once per 2048 or 4096 calls misses it in some cycle.
constexpr int kPhaseCycles = 4;

void DecayPhasesCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  constexpr int kBlocks = 1536;  // 2 * 1536 + 2 * 1024 calls = 5120 a cycle
  std::vector<void*> blocks(kBlocks), checking(kDecayCheckOps);
  for (int cycle = 0; cycle < kPhaseCycles; ++cycle) {
    for (void*& p : blocks) p = Allocate(16 * kKiB, 1, false);
    for (void* p : blocks) Free(p);
    clock.Advance(2 * kDecayNs);
    for (void*& p : checking) p = Allocate(64, 1, false);
    call.Record(absl::StrCat("held_", cycle), ReadCounters().bytes_held);
    for (void* p : checking) Free(p);
  }
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_phases", DecayPhasesCall);

TEST(DesignDecay, IdleMemoryGoesBackWhateverThePhaseOfTheCalls) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_phases");
  ASSERT_TRUE(r.ok()) << r.status();
  for (int cycle = 0; cycle < kPhaseCycles; ++cycle) {
    EXPECT_LE(r->values[absl::StrCat("held_", cycle)], kIdleHeldBytes)
        << kRuleDecay << " (kDecayCheckOps: a thread looks at the clock at "
        << "least once per this many calls): cycle " << cycle << " of "
        << kPhaseCycles << ", 1536 blocks of 16 KiB allocated and freed, 2 * "
        << "kDecayNs, then " << kDecayCheckOps << " Allocate(64) calls "
        << "starting " << cycle * 5120 % 4096 << " calls into a 4096-call "
        << "phase; " << r->values[absl::StrCat("held_", cycle)]
        << " bytes held (kIdleHeldBytes = " << kIdleHeldBytes << ")";
  }
}

// Promise 2's "idle time counts from the free" across a thread's exit: a
// thread frees about 26 MB of blocks of 32 to 160 KiB and exits
// `call.arg()` tenths of kDecayNs later; 11 tenths after the free, this
// thread makes kDecayCheckOps calls. A design that counts what the exiting
// thread kept as idle from its exit, not from its free, still holds it.
// Records the bytes held by the allocator's count ("held") and by the page
// source's ("mapped_left": mapped, less unmapped and released, which no
// design can hold less than).
void DecayExitLateCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  int exit_tenths = 0;
  if (!absl::SimpleAtoi(call.arg(), &exit_tenths)) {
    call.Fail(absl::StrCat("not a number of tenths: '", call.arg(), "'"));
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool freed = false, go = false;
  std::thread t([&] {
    Rng rng(34);
    std::vector<void*> blocks;
    for (size_t sum = 0; sum < 26'000'000;) {
      const size_t size = rng.Between(32 * kKiB, 160 * kKiB);
      blocks.push_back(Allocate(size, 1, false));
      sum += size;
    }
    for (void* p : blocks) Free(p);
    std::unique_lock<std::mutex> lock(mu);
    freed = true;
    cv.notify_all();
    cv.wait(lock, [&] { return go; });
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return freed; });
    clock.Advance(exit_tenths * (kDecayNs / 10));
    go = true;
    cv.notify_all();
  }
  t.join();
  clock.Advance((11 - exit_tenths) * (kDecayNs / 10));
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  call.Record("held", ReadCounters().bytes_held);
  call.Record("mapped_left", MappedLeft());
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_exit_late", DecayExitLateCall);

TEST(DesignDecay, IdleTimeCountsFromTheFreeNotTheExit) {
  for (int exit_tenths : {0, 5, 9}) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_decay_exit_late", absl::StrCat(exit_tenths));
    ASSERT_TRUE(r.ok()) << r.status();
    for (const char* count : {"held", "mapped_left"}) {
      EXPECT_LE(r->values[count], kIdleHeldBytes)
          << kRuleDecay << " (idle time counts from the free, whether the "
          << "thread that freed the blocks has exited): a thread freed 26 MB "
          << "of blocks of 32 to 160 KiB and exited 0." << exit_tenths
          << " x kDecayNs later; 1.1 x kDecayNs after the free, after "
          << kDecayCheckOps << " malloc/free pairs of 64 bytes on this "
          << "thread, " << r->values[count] << " bytes held by "
          << (count == std::string("held")
                  ? "ReadCounters()"
                  : "the page source's count (mapped, less unmapped and "
                    "released)")
          << " (kIdleHeldBytes = " << kIdleHeldBytes << ")";
    }
  }
}

// ---------------------------------------------------------------------------
// Design, explored: promise 2 at its edges. Random schedules of calls from
// several threads, each run in a fresh process from its own seed, checked
// after every step against the suite's own record (the blocks it has live,
// when it last freed one, which threads have called and exited) and the
// page source's counts. The fixed scenarios above reach the cases their
// authors had in mind; these reach the boundaries a design's own numbers
// make special: a pass due just before the check, a thread that exits
// just under kDecayNs after its free, only large blocks.
// ---------------------------------------------------------------------------

// ScheduledThread
//
// A thread that runs the calls it is given one at a time, each to its end
// before Run() returns: a schedule's calls from several threads in the one
// order the schedule fixes, so that its seed replays it exactly. Exit()
// ends the thread and joins it: its exit hook (thread_exit.h) has run.
class ScheduledThread {
 public:
  ScheduledThread() : thread_([this] { Loop(); }) {}
  ~ScheduledThread() { Exit(); }

  void Run(std::function<void()> fn) {
    std::unique_lock<std::mutex> lock(mu_);
    task_ = std::move(fn);
    cv_.notify_all();
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
bool ParseSchedule(alloclab::FreshCall& call, uint64_t& seed, int& steps) {
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
std::string ShortestSchedule(absl::string_view fresh_call, uint64_t seed,
                             int most_steps, const absl::Status& failure) {
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

constexpr int kDecaySchedules = 24;
constexpr int kDecayScheduleSteps = 80;
constexpr int kDecayThreads = 4;
constexpr size_t kDecayMostLive = 48 * kMiB;
constexpr int kDecayEndGroups = 8;

// DecayExplorer
//
// One schedule: steps drawn from `seed`, each an allocation of a group of
// blocks, frees (a thread's own blocks or another's), a thread's exit, a
// step of the fake clock to just under, at or just over kDecayNs after one
// of the recent frees (or half of it, or a sixteenth), or a thread's
// kDecayCheckOps calls. After every step, when promise 2 applies (no block
// live, kDecayNs passed since the last free, every thread that called
// since exited but at most one), that one thread (or a new one) makes its
// kDecayCheckOps calls, allocations only (freed after), and the bytes held
// must be at most kIdleHeldBytes, by ReadCounters() and by the page source
// (mapped, less unmapped and released). Every third schedule has only
// large blocks. Its end: every block freed (in half the schedules by
// thread 0, after kDecayEndGroups groups of its own, and thread 0 then
// looks at the clock in steps shorter than kDecayNs / 2), the other
// threads exit, each at its own time, and the check at kDecayNs after the
// last free.
class DecayExplorer {
 public:
  // The schedule of `seed` with `steps` random steps before its end.
  DecayExplorer(internal::ScopedFakeClock& clock, uint64_t seed, int steps)
      : clock_(clock),
        seed_(seed),
        steps_count_(steps),
        rng_(seed),
        edges_(EdgeSizes(kSmallMax)) {}

  // "" when every check held, else the failure, with the seed and the
  // schedule's steps so far.
  std::string Run() {
    for (int step = 0; step < steps_count_ && failure_.empty(); ++step) {
      RandomStep();
      MaybeCheck();
    }
    // The end: every block freed, every thread but one exited, each at its
    // own time, and the clock just past the last free's kDecayNs.
    const bool runs_on = rng_.Next() % 2 == 0;  // thread 0 frees, calls on
    // The thread that runs on has blocks of many sizes to free: enough in
    // its own cache to matter if its idle time restarted at each look.
    for (int i = 0; runs_on && i < kDecayEndGroups && failure_.empty(); ++i) {
      AllocateGroup(0);
    }
    while (failure_.empty() && !live_.empty()) {
      FreeSome(runs_on ? 0 : PickThread(), rng_.Next() % 2 == 0);
    }
    for (int t = 0; t < kDecayThreads && failure_.empty(); ++t) {
      if (rng_.Next() % 2 == 0) StepClock();
      if (t != 0) ExitThread(t);
    }
    // Thread 0 looks at the clock in steps shorter than kDecayNs / 2.
    while (runs_on && failure_.empty() && NowNs() < last_free_ + kDecayNs) {
      Advance(rng_.Between(kDecayNs / 8, kDecayNs / 3), "the clock on");
      Calls(0, kDecayCheckOps);
    }
    if (failure_.empty()) {
      const uint64_t due = last_free_ + kDecayNs + rng_.Between(0, 1);
      if (due > NowNs()) {
        Advance(due - NowNs(), "to the last free + kDecayNs (+0 or 1 ns)");
      }
      MaybeCheck();
    }
    for (int t = 0; t < kDecayThreads; ++t) ExitThread(t);
    return failure_;
  }

  int checks() const { return checks_; }

 private:
  struct Live {
    void* p;
    size_t size;
    int owner;
  };

  static constexpr size_t kSmallMax = 256 * kKiB;

  void RandomStep() {
    const uint64_t pick = rng_.Next() % 100;
    const int t = PickThread();
    if (pick < 30) {
      AllocateGroup(t);
    } else if (pick < 55) {
      FreeSome(t, rng_.Next() % 2 == 0);
    } else if (pick < 65) {
      ExitThread(t);
    } else if (pick < 85) {
      StepClock();
    } else {
      Calls(t, rng_.Next() % 2 == 0 ? kDecayCheckOps : kDecayCheckOps / 4);
    }
  }

  int PickThread() { return static_cast<int>(rng_.Next() % kDecayThreads); }

  ScheduledThread& Thread(int t) {
    if (threads_[t] == nullptr)
      threads_[t] = std::make_unique<ScheduledThread>();
    return *threads_[t];
  }

  // On thread t: a block of a size of this schedule's kind, in a group.
  size_t Size() {
    if (seed_ % 3 == 0) return rng_.Between(kSmallMax + 1, 4 * kMiB);
    const size_t edge = edges_[rng_.Next() % edges_.size()];
    return std::max<size_t>(edge, 1);
  }

  void AllocateGroup(int t) {
    const int n = static_cast<int>(rng_.Between(1, 64));
    std::vector<Live> got;
    size_t bytes = 0;
    for (int i = 0; i < n && live_bytes_ + bytes < kDecayMostLive; ++i) {
      const size_t size = Size();
      got.push_back({nullptr, size, t});
      bytes += size;
    }
    Thread(t).Run([&] {
      for (Live& b : got) b.p = Allocate(b.size, 1, false);
    });
    called_[t] = true;
    for (const Live& b : got) {
      if (b.p == nullptr) {
        return Fail(
            absl::StrCat(kRuleAvailable, ": Allocate(", b.size, ") failed"));
      }
      live_.push_back(b);
      live_bytes_ += b.size;
    }
    Note(absl::StrCat("thread ", t, " allocates ", got.size(), " blocks, ",
                      bytes, " bytes"));
  }

  // Thread t frees some live blocks: its own, or other threads'
  // (`others`), or all that are left when it is the end.
  void FreeSome(int t, bool others) {
    std::vector<Live> chosen, kept;
    const uint64_t share = rng_.Between(1, 4);  // a quarter to all
    for (const Live& b : live_) {
      const bool mine = b.owner == t;
      if ((mine != others || live_.size() < 4) && rng_.Next() % 4 < share) {
        chosen.push_back(b);
      } else {
        kept.push_back(b);
      }
    }
    if (chosen.empty()) return;
    Thread(t).Run([&] {
      for (const Live& b : chosen) Free(b.p);
    });
    called_[t] = true;
    for (const Live& b : chosen) live_bytes_ -= b.size;
    live_ = std::move(kept);
    last_free_ = NowNs();
    frees_.push_back(last_free_);
    Note(absl::StrCat("thread ", t, " frees ", chosen.size(),
                      others ? " blocks of other threads" : " of its blocks"));
  }

  void ExitThread(int t) {
    if (threads_[t] == nullptr) return;
    threads_[t]->Exit();
    threads_[t] = nullptr;
    called_[t] = false;
    Note(absl::StrCat("thread ", t, " exits"));
  }

  // The clock to a boundary of a recent free's decay, or on a little.
  void StepClock() {
    const uint64_t now = NowNs();
    const uint64_t free =
        frees_.empty()
            ? now
            : frees_[frees_.size() - 1 -
                     rng_.Next() % std::min<size_t>(frees_.size(), 4)];
    const uint64_t pick = rng_.Next() % 6;
    const uint64_t target = pick == 0   ? free + kDecayNs - 1
                            : pick == 1 ? free + kDecayNs
                            : pick == 2 ? free + kDecayNs + 1
                            : pick == 3 ? now + kDecayNs / 2
                            : pick == 4 ? now + kDecayNs / 16 + 1
                                        : now + 1;
    if (target > now) {
      Advance(target - now, "the clock on");
    }
  }

  void Advance(uint64_t ns, absl::string_view what) {
    clock_.Advance(ns);
    Note(absl::StrCat(what, " (", ns, " ns)"));
  }

  // Thread t makes `n` calls: malloc/free pairs of 64 bytes, the thread
  // looking at the clock. As in DesignDecay's fixed scenarios, their frees
  // (and the checking calls') do not move the last free: a few KiB, beside
  // kIdleHeldBytes, that a design restamping what it freed long ago at
  // each look would otherwise hide behind.
  void Calls(int t, uint64_t n) {
    Thread(t).Run([&] {
      for (uint64_t i = 0; i < n / 2; ++i) Free(Allocate(64, 1, false));
    });
    called_[t] = true;
    Note(absl::StrCat("thread ", t, " makes ", n, " calls"));
  }

  // Promise 2, when it applies: see the class comment.
  void MaybeCheck() {
    if (!failure_.empty() || !live_.empty()) return;
    if (NowNs() < last_free_ + kDecayNs) return;
    int checker = -1;
    for (int t = 0; t < kDecayThreads; ++t) {
      if (!called_[t]) continue;
      if (checker >= 0) return;  // two threads that called still run
      checker = t;
    }
    if (checker < 0) checker = PickThread();
    std::vector<void*> blocks(kDecayCheckOps);
    Counters held;
    int64_t mapped_left = 0;
    Thread(checker).Run([&] {
      for (void*& p : blocks) p = Allocate(64, 1, false);
      held = ReadCounters();
      mapped_left = MappedLeft();
      for (void* p : blocks) Free(p);
    });
    called_[checker] = true;
    ++checks_;
    Note(absl::StrCat("thread ", checker, " makes ", kDecayCheckOps,
                      " allocations and reads ", held.bytes_held,
                      " bytes held (page source: ", mapped_left, ")"));
    if (held.bytes_held > kIdleHeldBytes ||
        mapped_left > static_cast<int64_t>(kIdleHeldBytes)) {
      Fail(absl::StrCat(
          kRuleDecay, ": ", held.bytes_held, " bytes held by ReadCounters(), ",
          mapped_left, " by the page source (kIdleHeldBytes = ", kIdleHeldBytes,
          ")"));
    }
  }

  void Note(std::string step) { log_.Note(std::move(step)); }

  void Fail(const std::string& what) {
    failure_ = log_.Failure(what, "decay explorer", seed_, steps_count_);
  }

  internal::ScopedFakeClock& clock_;
  const uint64_t seed_;
  const int steps_count_;
  Rng rng_;
  const std::vector<size_t> edges_;
  std::unique_ptr<ScheduledThread> threads_[kDecayThreads];
  bool called_[kDecayThreads] = {};  // called since it started
  std::vector<Live> live_;
  size_t live_bytes_ = 0;
  uint64_t last_free_ = 0;
  std::vector<uint64_t> frees_;
  ScheduleLog log_;
  std::string failure_;
  int checks_ = 0;
};

void DecayExplorerCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  uint64_t seed = 0;
  int steps = kDecayScheduleSteps;
  if (!ParseSchedule(call, seed, steps)) return;
  DecayExplorer explorer(clock, seed, steps);
  const std::string failure = explorer.Run();
  call.Record("checks", explorer.checks());
  if (!failure.empty()) call.Fail(failure);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_explorer", DecayExplorerCall);

// ShortestDecaySchedule()
//
// Seed `seed`'s decay schedule failed with `failure`: the shortest
// schedule of that seed that fails too (ShortestSchedule()).
std::string ShortestDecaySchedule(uint64_t seed, const absl::Status& failure) {
  return ShortestSchedule("allocator_design_decay_explorer", seed,
                          kDecayScheduleSteps, failure);
}

TEST(DesignDecayExplorer, RandomSchedulesGiveIdleMemoryBack) {
  int checks = 0;
  for (uint64_t seed = 1; seed <= kDecaySchedules; ++seed) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_decay_explorer", absl::StrCat(seed));
    ASSERT_TRUE(r.ok()) << ShortestDecaySchedule(seed, r.status());
    checks += static_cast<int>(r->values["checks"]);
  }
  EXPECT_GE(checks, kDecaySchedules) << "the explorer checked too rarely";
  ::testing::Test::RecordProperty("checks", checks);
}

// ---------------------------------------------------------------------------
// Design, explored: promises 3 and 4 together. Random schedules of calls
// from several threads, each run in a fresh process from its own seed,
// checked after every step against what is held by the counts the
// allocator cannot make: the page source's (mapped, less unmapped and
// released) and the resident bytes of its live mappings. ReadCounters() is
// only quoted. The fixed
// scenarios above churn one shape of thread and pass messages of one
// shape; these mix them: threads that exit at once or late, holding
// blocks in their caches or live, or allocating as they exit, threads that only
// free, blocks handed from thread to thread through the suite's queue, at
// every class edge and past the large threshold.
// ---------------------------------------------------------------------------

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

constexpr int kChurnSchedules = 16;
constexpr int kChurnScheduleSteps = 60;
constexpr int kChurnThreads = 4;
// "At most a few hundred KiB of messages live at once" (promise 4): the
// most the schedule keeps live, over all its threads, at any time.
constexpr size_t kChurnMostLive = 512 * kKiB;

// ChurnExplorer
//
// One schedule: steps drawn from `seed`, on kChurnThreads threads, each
// one of: a group of allocations (kept by the thread, or handed to the
// suite's queue for another thread to free); frees of the thread's own
// blocks; frees of other threads' blocks from the queue; a run of
// messages, one thread allocating what another frees; a thread's exit
// (its live blocks handed to the queue), at once or after a pthread key's
// destructor has allocated and freed as it exits (thread_exit.h: the hook
// arms again); short threads that allocate, free and exit. Sizes are class
// edges to 256 KiB (EdgeSizes()) and large sizes past it; in half the
// schedules the last thread only frees. No more than kChurnMostLive bytes
// are ever live, at most two of the threads run at once (a producer and a
// consumer: before a step on others, one exits), and the fake clock stands
// still (no decay helps). After every step the bytes held (ReadHeldNow()'s
// witnessed: the larger of the page source's count and the resident bytes
// of its live mappings; ReadCounters() is only quoted) must be at most
// kMessagePassingHeldBytes while a thread that called runs (promise 4),
// and kThreadChurnHeldBytes once each has exited (promise 3). Its end:
// every block freed, every thread exited, one at a time.
class ChurnExplorer {
 public:
  // The schedule of `seed` with `steps` random steps before its end;
  // `exit_key` a pthread key whose destructor allocates and frees.
  ChurnExplorer(pthread_key_t exit_key, uint64_t seed, int steps)
      : exit_key_(exit_key),
        seed_(seed),
        steps_count_(steps),
        rng_(seed),
        edges_(EdgeSizes(kSmallMax)),
        only_frees_(seed % 2 == 0 ? kChurnThreads - 1 : -1) {}

  // "" when every check held, else the failure, with the seed and the
  // schedule's steps so far.
  std::string Run() {
    for (int step = 0; step < steps_count_ && failure_.empty(); ++step) {
      RandomStep();
      Check();
    }
    // The end: the queue's blocks freed by the threads that run (or a new
    // one), every thread's own blocks by itself, then every thread exits.
    for (int t = 0; t < kChurnThreads && failure_.empty(); ++t) {
      FreeOwn(t, /*all=*/true);
      Check();
    }
    while (failure_.empty() && !queue_.empty()) {
      const int t = PickThread();
      MakeRoom(t, t);
      Consume(t, /*all=*/true);
      Check();
    }
    for (int t = 0; t < kChurnThreads && failure_.empty(); ++t) {
      ExitThread(t, rng_.Next() % 4 == 0);
      Check();
    }
    for (int t = 0; t < kChurnThreads; ++t) ExitThread(t, false);
    return failure_;
  }

  int checks() const { return checks_; }
  int threads() const { return threads_started_; }
  // The most the page source held at a check.
  int64_t most_held() const { return most_held_; }

 private:
  struct Live {
    void* p;
    size_t size;
    int owner;  // the thread that allocated it: its id, never reused
  };

  static constexpr size_t kSmallMax = 256 * kKiB;

  void RandomStep() {
    const uint64_t pick = rng_.Next() % 100;
    const int t = PickThread();
    const int other =
        (t + 1 + rng_.Next() % (kChurnThreads - 1)) % kChurnThreads;
    MakeRoom(t, pick >= 55 && pick < 75 ? other : t);
    if (pick < 25) {
      AllocateGroup(t);
    } else if (pick < 40) {
      FreeOwn(t, rng_.Next() % 4 == 0);
    } else if (pick < 55) {
      Consume(t, rng_.Next() % 4 == 0);
    } else if (pick < 75) {
      Messages(t, other);
    } else if (pick < 85) {
      ExitThread(t, rng_.Next() % 3 == 0);
    } else {
      ShortThreads(static_cast<int>(rng_.Between(1, 16)));
    }
  }

  int PickThread() { return static_cast<int>(rng_.Next() % kChurnThreads); }

  // At most two of the threads run at once, a producer and a consumer:
  // before a step on threads a and b, the others exit until they do.
  void MakeRoom(int a, int b) {
    for (int t = 0; t < kChurnThreads; ++t) {
      int running = 0;
      for (int u = 0; u < kChurnThreads; ++u) {
        running += threads_[u] != nullptr || u == a || u == b ? 1 : 0;
      }
      if (running <= 2) return;
      if (t != a && t != b) ExitThread(t, rng_.Next() % 3 == 0);
    }
  }

  ScheduledThread& Thread(int t) {
    if (threads_[t] == nullptr) {
      threads_[t] = std::make_unique<ScheduledThread>();
      ids_[t] = ++threads_started_;
    }
    return *threads_[t];
  }

  // A class edge to 256 KiB, the smaller ones more often (the lesser of
  // two draws), or (one time in eight) a large size past it.
  size_t Size() {
    if (rng_.Next() % 8 == 0) {
      return rng_.Between(kSmallMax + 1, kSmallMax + kChurnMostLive / 4);
    }
    const size_t i =
        std::min(rng_.Next() % edges_.size(), rng_.Next() % edges_.size());
    return std::max<size_t>(edges_[i], 1);
  }

  // Up to `n` sizes that keep the live bytes within kChurnMostLive.
  std::vector<Live> Sizes(int n) {
    std::vector<Live> got;
    size_t bytes = 0;
    for (int i = 0; i < n; ++i) {
      const size_t size = Size();
      if (live_bytes_ + bytes + size > kChurnMostLive) continue;
      got.push_back({nullptr, size, 0});
      bytes += size;
    }
    return got;
  }

  // Allocates `got` on thread t; false, and the schedule failed, when a
  // block could not be had.
  bool AllocateOn(int t, std::vector<Live>& got) {
    Thread(t).Run([&] {
      for (Live& b : got) {
        b.p = Allocate(b.size, 1, false);
        if (b.p != nullptr) static_cast<char*>(b.p)[0] = 1;
      }
    });
    called_[t] = true;
    for (Live& b : got) {
      if (b.p == nullptr) {
        Fail(absl::StrCat(kRuleAvailable, ": Allocate(", b.size, ") failed"));
        return false;
      }
      b.owner = ids_[t];
      live_bytes_ += b.size;
    }
    return true;
  }

  void FreeOn(int t, const std::vector<Live>& blocks) {
    Thread(t).Run([&] {
      for (const Live& b : blocks) Free(b.p);
    });
    called_[t] = true;
    for (const Live& b : blocks) live_bytes_ -= b.size;
  }

  // Thread t allocates a group: each block kept, or handed to the queue.
  void AllocateGroup(int t) {
    if (t == only_frees_) return Consume(t, false);
    std::vector<Live> got = Sizes(static_cast<int>(rng_.Between(1, 32)));
    if (got.empty() || !AllocateOn(t, got)) return;
    int handed = 0;
    for (const Live& b : got) {
      if (rng_.Next() % 2 == 0) {
        queue_.push_back(b);
        ++handed;
      } else {
        own_.push_back(b);
      }
    }
    Note(absl::StrCat("thread ", t, " allocates ", got.size(), " blocks (",
                      handed, " to the queue); ", live_bytes_, " bytes live"));
  }

  template <typename Take>
  std::vector<Live> Share(std::vector<Live>& from, bool all, Take take) {
    return TakeShare(rng_, from, all, take);
  }

  // Thread t frees some of its own blocks (all of them when `all`).
  void FreeOwn(int t, bool all) {
    if (threads_[t] == nullptr) return;
    const int id = ids_[t];
    const std::vector<Live> chosen =
        Share(own_, all, [&](const Live& b) { return b.owner == id; });
    if (chosen.empty()) return;
    FreeOn(t, chosen);
    Note(
        absl::StrCat("thread ", t, " frees ", chosen.size(), " of its blocks"));
  }

  // Thread t frees some of the queue's blocks that other threads allocated
  // (all of the queue when `all`).
  void Consume(int t, bool all) {
    Thread(t);
    const int id = ids_[t];
    const std::vector<Live> chosen =
        Share(queue_, all, [&](const Live& b) { return all || b.owner != id; });
    if (chosen.empty()) return;
    FreeOn(t, chosen);
    Note(absl::StrCat("thread ", t, " frees ", chosen.size(),
                      " blocks from the queue"));
  }

  // Thread `producer` allocates messages that `consumer` frees: rounds of
  // a few at a time, of one of DesignMessagePassing's shapes, small or
  // large.
  void Messages(int producer, int consumer) {
    if (producer == only_frees_) std::swap(producer, consumer);
    if (producer == only_frees_) return;
    const int rounds = static_cast<int>(rng_.Between(4, 32));
    const int ring = static_cast<int>(rng_.Between(1, 8));
    const bool large = rng_.Next() % 2 == 0;
    int messages = 0;
    for (int r = 0; r < rounds && failure_.empty(); ++r) {
      std::vector<Live> got;
      for (int i = 0; i < ring; ++i) {
        const MessageShape& shape = kMessageShapes[large ? 1 : 0];
        const size_t size = rng_.Between(shape.min_bytes, shape.max_bytes);
        if (live_bytes_ + size > kChurnMostLive) break;
        got.push_back({nullptr, size, 0});
        live_bytes_ += size;  // counted while the round is planned
      }
      for (const Live& b : got) live_bytes_ -= b.size;
      if (got.empty() || !AllocateOn(producer, got)) break;
      FreeOn(consumer, got);
      messages += static_cast<int>(got.size());
    }
    Note(absl::StrCat("thread ", producer, " sends ", messages,
                      large ? " large" : " small", " messages to thread ",
                      consumer, ", at most ", ring, " at a time"));
  }

  // Thread t exits (after its pthread key's destructor allocated and freed,
  // when `allocating`); its live blocks go to the queue.
  void ExitThread(int t, bool allocating) {
    if (threads_[t] == nullptr) return;
    if (allocating) {
      void* const value = reinterpret_cast<void*>(rng_.Next() | 1);
      Thread(t).Run([&] { pthread_setspecific(exit_key_, value); });
    }
    threads_[t]->Exit();
    threads_[t] = nullptr;
    called_[t] = false;
    const int id = ids_[t];
    const std::vector<Live> left =
        Share(own_, true, [&](const Live& b) { return b.owner == id; });
    queue_.insert(queue_.end(), left.begin(), left.end());
    Note(absl::StrCat("thread ", t, " exits",
                      allocating ? ", allocating as it exits" : "", "; ",
                      left.size(), " of its blocks live, to the queue"));
  }

  // `n` threads, one after another, each allocating a group, freeing it
  // and a share of the queue, and exiting (half of them allocating as they
  // exit).
  void ShortThreads(int n) {
    for (int i = 0; i < n && failure_.empty(); ++i) {
      std::vector<Live> got = Sizes(static_cast<int>(rng_.Between(1, 16)));
      const std::vector<Live> taken =
          Share(queue_, false, [](const Live&) { return true; });
      const uint64_t exit_value = rng_.Next() | 1;
      void* const value =
          exit_value % 4 == 1 ? reinterpret_cast<void*>(exit_value) : nullptr;
      bool failed = false;
      std::thread([&] {
        for (Live& b : got) {
          b.p = Allocate(b.size, 1, false);
          if (b.p == nullptr) failed = true;
        }
        for (const Live& b : got) Free(b.p);
        for (const Live& b : taken) Free(b.p);
        pthread_setspecific(exit_key_, value);
      }).join();
      ++threads_started_;
      for (const Live& b : taken) live_bytes_ -= b.size;
      if (failed) {
        return Fail(absl::StrCat(kRuleAvailable,
                                 ": Allocate() failed in a short thread"));
      }
    }
    Note(absl::StrCat(n, " short threads allocate, free and exit"));
  }

  // Promise 3 or 4, whichever applies: see the class comment.
  void Check() {
    if (!failure_.empty()) return;
    int running = 0;
    for (int t = 0; t < kChurnThreads; ++t) running += called_[t] ? 1 : 0;
    if (running > 2) return;  // more than a producer and a consumer
    const HeldNow held = ReadHeldNow();
    ++checks_;
    most_held_ = std::max(most_held_, static_cast<int64_t>(held.witnessed));
    const uint64_t bound =
        running > 0 ? kMessagePassingHeldBytes : kThreadChurnHeldBytes;
    if (!held.resident.has_value()) {
      Fail(
          "internal::ResidentMappedBytes() is unavailable: more live "
          "mappings than the page source's table holds");
      return;
    }
    if (held.witnessed <= bound) return;
    Fail(absl::StrCat(
        running > 0 ? kRuleMessages : kRuleChurn, ": ", held.witnessed,
        " bytes held (the larger of the resident bytes of the page source's "
        "live mappings, ",
        *held.resident,
        ", and the page source's mapped, less unmapped and released, ",
        held.mapped_left,
        ": a released range taken into use again is held again; "
        "ReadCounters() says ",
        held.counted, "), with ", live_bytes_, " bytes live (at most ",
        kChurnMostLive, "), ", running, " of the threads running, after ",
        threads_started_, " threads (",
        running > 0 ? "kMessagePassingHeldBytes" : "kThreadChurnHeldBytes",
        " = ", bound, ")"));
  }

  void Note(std::string step) { log_.Note(std::move(step)); }

  void Fail(const std::string& what) {
    failure_ = log_.Failure(what, "churn explorer", seed_, steps_count_);
  }

  const pthread_key_t exit_key_;
  const uint64_t seed_;
  const int steps_count_;
  Rng rng_;
  const std::vector<size_t> edges_;
  const int only_frees_;  // the thread that only frees, or -1
  std::unique_ptr<ScheduledThread> threads_[kChurnThreads];
  int ids_[kChurnThreads] = {};
  bool called_[kChurnThreads] = {};  // called since it started
  int threads_started_ = 0;
  std::vector<Live> own_;    // live, kept by the thread that allocated them
  std::vector<Live> queue_;  // live, handed over for another thread to free
  size_t live_bytes_ = 0;
  ScheduleLog log_;
  std::string failure_;
  int checks_ = 0;
  int64_t most_held_ = 0;
};

void ChurnExplorerCall(alloclab::FreshCall& call) {
  // The decay's clock stands still: what is held must not depend on how
  // long the run took.
  internal::ScopedFakeClock clock;
  uint64_t seed = 0;
  int steps = kChurnScheduleSteps;
  if (!ParseSchedule(call, seed, steps)) return;
  // The allocator's key first (this thread's call makes it), so that the
  // test's destructor runs after the allocator's ThreadExit().
  Free(Allocate(64, 1, false));
  pthread_key_t key;
  if (pthread_key_create(&key, AllocateWhileExiting) != 0) {
    call.Fail("pthread_key_create failed");
    return;
  }
  ChurnExplorer explorer(key, seed, steps);
  const std::string failure = explorer.Run();
  call.Record("checks", explorer.checks());
  call.Record("threads", explorer.threads());
  call.Record("most_held", static_cast<double>(explorer.most_held()));
  if (!failure.empty()) call.Fail(failure);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_explorer", ChurnExplorerCall);

TEST(DesignChurnExplorer, RandomSchedulesStayBounded) {
  int checks = 0;
  int threads = 0;
  double most_held = 0;
  for (uint64_t seed = 1; seed <= kChurnSchedules; ++seed) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_churn_explorer", absl::StrCat(seed));
    ASSERT_TRUE(r.ok()) << ShortestSchedule("allocator_design_churn_explorer",
                                            seed, kChurnScheduleSteps,
                                            r.status());
    checks += static_cast<int>(r->values["checks"]);
    threads += static_cast<int>(r->values["threads"]);
    most_held = std::max(most_held, r->values["most_held"]);
  }
  EXPECT_GE(checks, kChurnSchedules * kChurnScheduleSteps)
      << "the explorer checked too rarely";
  ::testing::Test::RecordProperty("checks", checks);
  ::testing::Test::RecordProperty("threads", threads);
  ::testing::Test::RecordProperty("most_held", static_cast<int64_t>(most_held));
}

// ---------------------------------------------------------------------------
// Promise 6: threads keep to their own cache lines.
// ---------------------------------------------------------------------------

// Blocks of these sizes, 16 bytes most often (mimalloc-bench's glibc-thread
// shape: four to a 64-byte line); each allocating turn takes one of them.
constexpr size_t kOwnLineSizes[] = {16, 16, 16, 32, 48, 64, 96, 128, 200, 1000};
constexpr int kOwnLineTurns = 1000;

// OwnLineBlock
//
// A live block of one thread: where, and the bytes asked for.
struct OwnLineBlock {
  uintptr_t start = 0;
  size_t size = 0;
};

// SharedLine
//
// A line holding live blocks of both threads: the first one found, and how
// many there are.
struct SharedLines {
  size_t count = 0;
  uintptr_t line = 0;
  size_t sizes[2] = {0, 0};  // a block of each thread's on `line`
};

// CountSharedLines()
//
// The lines of `line_bytes` that hold bytes of a block of live[0] and of a
// block of live[1].
SharedLines CountSharedLines(const std::vector<OwnLineBlock> live[2],
                             uintptr_t line_bytes) {
  struct Holders {
    int mask = 0;
    size_t sizes[2] = {0, 0};
  };
  std::unordered_map<uintptr_t, Holders> lines;
  for (int t = 0; t < 2; ++t) {
    for (const OwnLineBlock& b : live[t]) {
      for (uintptr_t line = b.start / line_bytes;
           line <= (b.start + b.size - 1) / line_bytes; ++line) {
        Holders& h = lines[line];
        h.mask |= 1 << t;
        h.sizes[t] = b.size;
      }
    }
  }
  SharedLines shared;
  for (const auto& [line, h] : lines) {
    if (h.mask != 3) continue;
    if (shared.count++ == 0 || line < shared.line) {
      shared.line = line;
      shared.sizes[0] = h.sizes[0];
      shared.sizes[1] = h.sizes[1];
    }
  }
  return shared;
}

// In a fresh process: threads A and B take turns, one at a time, in a fixed
// order (a turn is the lock's: the other waits for it), kOwnLineTurns in
// all. In its turn a thread allocates 1 to 48 blocks of one size of
// kOwnLineSizes, or frees a random half of its live blocks, in a random
// order (fixed seeds): its cache fills, drains and refills, as a program's
// does. After every turn, with both threads alive and neither in the
// allocator, the lines (of `arg` bytes) that hold live blocks of both are
// counted. Every call is made in the same order on every run: the count is
// a fact of the design, not of the scheduler.
void OwnLinesCall(alloclab::FreshCall& call) {
  uintptr_t line_bytes = 0;
  if (!absl::SimpleAtoi(call.arg(), &line_bytes) || line_bytes == 0) {
    call.Fail(absl::StrCat("not a line size: '", call.arg(), "'"));
    return;
  }
  // The decay's clock stands still: no flush of a cache in the middle.
  internal::ScopedFakeClock clock;
  std::vector<OwnLineBlock> live[2];
  std::mutex mu;
  std::condition_variable turned;
  int turn = 0;  // whose: turn % 2
  int sharing_turns = 0, first_turn = -1, failed = 0;
  size_t most_shared = 0;
  SharedLines first;
  auto run = [&](int me) {
    Rng rng(61 + static_cast<uint64_t>(me));
    for (int t = me; t < kOwnLineTurns; t += 2) {
      std::unique_lock<std::mutex> lock(mu);
      turned.wait(lock, [&] { return turn == t; });
      std::vector<OwnLineBlock>& mine = live[me];
      if (mine.size() < 64 || (mine.size() < 1500 && rng.Next() % 2 == 0)) {
        const size_t size =
            kOwnLineSizes[rng.Next() % std::size(kOwnLineSizes)];
        const int count = static_cast<int>(rng.Between(1, 48));
        for (int i = 0; i < count; ++i) {
          void* p = Allocate(size, 1, false);
          if (p == nullptr) {
            ++failed;
            break;
          }
          memset(p, me + 1, size);  // written, as a thread's own data is
          mine.push_back({reinterpret_cast<uintptr_t>(p), size});
        }
      } else {
        for (size_t i = mine.size(); i > 1; --i) {  // a shuffle, seeded
          std::swap(mine[i - 1], mine[rng.Next() % i]);
        }
        for (size_t n = mine.size() / 2; n > 0; --n) {
          Free(reinterpret_cast<void*>(mine.back().start));
          mine.pop_back();
        }
      }
      const SharedLines shared = CountSharedLines(live, line_bytes);
      if (shared.count != 0) {
        ++sharing_turns;
        if (first_turn < 0) {
          first_turn = t;
          first = shared;
        }
        most_shared = std::max(most_shared, shared.count);
      }
      ++turn;
      turned.notify_all();
    }
  };
  std::thread a(run, 0);
  std::thread b(run, 1);
  a.join();
  b.join();
  for (std::vector<OwnLineBlock>& mine : live) {
    for (const OwnLineBlock& block : mine) {
      Free(reinterpret_cast<void*>(block.start));
    }
  }
  call.Record("failed", failed);
  call.Record("sharing_turns", sharing_turns);
  call.Record("most_shared", static_cast<double>(most_shared));
  call.Record("first_turn", first_turn);
  call.Record("first_size_a", static_cast<double>(first.sizes[0]));
  call.Record("first_size_b", static_cast<double>(first.sizes[1]));
}
ALLOCLAB_FRESH_CALL("allocator_design_own_lines", OwnLinesCall);

TEST(DesignOwnLines, TwoThreadsNeverShareALineOfLiveBlocks) {
  const absl::StatusOr<alloclab::CacheLine> line = alloclab::ReadCacheLine();
  if (!line.ok()) {
    GTEST_SKIP() << "cannot read this machine's cache line: " << line.status();
  }
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_own_lines", absl::StrCat(line->bytes));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
  EXPECT_EQ(r->values["sharing_turns"], 0)
      << kRuleOwnLines << ": two threads taking turns, " << kOwnLineTurns
      << " turns of allocating 1 to 48 blocks of 16 to 1000 bytes or freeing "
      << "half of their own; after " << r->values["sharing_turns"]
      << " of those turns, lines of " << line->bytes << " bytes ("
      << line->source << ") held live blocks of both threads: up to "
      << r->values["most_shared"] << " lines at once, first after turn "
      << r->values["first_turn"] << " (one line held thread A's block of "
      << r->values["first_size_a"] << " bytes and thread B's of "
      << r->values["first_size_b"] << ")";
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

constexpr int kFastSchedules = 24;
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
  // The maps, unmaps and releases the page source has made so far.
  static uint64_t PageCalls() {
    const PageSourceCounts pages = ReadPageSourceCounts();
    return pages.map_calls + pages.unmap_calls + pages.release_calls;
  }

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
    const uint64_t pages_before = PageCalls();
    uint64_t locks = 0;
    measured_.Run([&] {
      const uint64_t before = locks_taken;
      fn();
      locks = locks_taken - before;
    });
    const uint64_t visits = ReadCounters().central_visits - visits_before;
    const uint64_t page_calls = PageCalls() - pages_before;
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

// ---------------------------------------------------------------------------
// Design, explored: promise 5, where it is promised: the fixed traces, each
// replayed kTraceReplays times, each time in a fresh process at addresses
// the kernel places anew (a design whose metadata depends on where its
// memory lands holds more on some layouts), the peak held counted both by
// the allocator (ReplayTrace()'s bytes_held) and by the page source (mapped,
// less unmapped and released): the larger is held to the promise. Traces
// of the same shapes drawn from other seeds are no promise of task.h: over
// 40 other seeds the reference fell to 0.43 on one 'mixed' and to 0.48 on
// one 'large', thread_owned_pages to 0.49 on one 'mixed'.
// ---------------------------------------------------------------------------

constexpr int kTraceReplays = 3;

TEST(DesignUtilizationExplorer, FixedTracesAtAnyAddressesUseTheMemoryTheyHold) {
  double least = 1;
  std::string least_name;
  for (const Trace& trace : Traces()) {
    for (int replay = 1; replay <= kTraceReplays; ++replay) {
      absl::StatusOr<alloclab::FreshCallResult> r =
          RunFresh("allocator_design_trace", trace.name);
      ASSERT_TRUE(r.ok()) << r.status();
      const double live = r->values["peak_live"];
      const double held =
          std::max(r->values["peak_held"], r->values["peak_mapped"]);
      const double utilization = held > 0 ? live / held : 1;
      if (utilization < least) {
        least = utilization;
        least_name = trace.name;
      }
      EXPECT_GE(utilization, kMinUtilization)
          << kRuleUtilization << ": trace " << trace.name << " (" << trace.what
          << "), replay " << replay << " of " << kTraceReplays
          << " in a fresh process, peaked at " << live << " bytes live and "
          << r->values["peak_held"] << " held by ReadCounters(), "
          << r->values["peak_mapped"]
          << " by the page source's count (kMinUtilization = "
          << kMinUtilization << ")";
    }
  }
  // The least utilization met, in thousandths: a figure, not a bound.
  ::testing::Test::RecordProperty("least_permille",
                                  static_cast<int>(least * 1000));
  ::testing::Test::RecordProperty("least_trace", least_name);
}

// ---------------------------------------------------------------------------
// Design, explored: promise 6. Random schedules of calls from several
// threads, each in a fresh process from its own seed, the lines of live
// blocks checked after every step against the blocks the suite tracks (where
// Allocate() put them, the sizes asked for), never against anything the
// allocator says. The fixed test above has two threads of one alignment
// that never exit and never free each other's blocks; these have up to
// kOwnLineThreads at once, every alignment to 4 KiB, zeroed requests, blocks
// freed by another thread (their lines then excluded, as task.h says),
// threads that exit with blocks live (theirs then nobody's) and new ones
// that take their place.
// ---------------------------------------------------------------------------

constexpr int kOwnLineSchedules = 64;
constexpr int kOwnLineScheduleSteps = 160;
constexpr int kOwnLineThreads = 3;
// The most blocks a thread keeps live: its cache fills, drains and refills.
constexpr size_t kOwnLineMostLive = 600;

// OwnLinesExplorer
//
// One schedule: steps drawn from `seed`, on kOwnLineThreads threads, each
// one of: a group of 1 to 48 allocations of one size (a class edge to
// 4 KiB, more often a small one; now and then to 64 KiB) at one alignment
// (the minimum, or a power of two to 4 KiB), zeroed or not, each block
// written all over by its thread; frees of a share of the thread's own
// blocks, in a random order; frees of another thread's blocks (or of an
// exited thread's), whose lines (all of each block, as far as UsableSize()
// says) are then that thread's to reuse, left out of the check for the rest
// of the schedule; a thread's exit, its live blocks then nobody's (a new
// thread takes its place at its next step). After every step, every line
// of `line_bytes` (common/machine/cpu_facts.h) that holds bytes of live blocks
// of two running threads, and was never under a block freed by another thread,
// is a failure.
class OwnLinesExplorer {
 public:
  OwnLinesExplorer(uintptr_t line_bytes, uint64_t seed, int steps)
      : line_bytes_(line_bytes),
        seed_(seed),
        steps_count_(steps),
        rng_(seed),
        edges_(EdgeSizes(64 * kKiB)) {}

  // "" when every check held, else the failure, with the seed and the
  // schedule's steps so far.
  std::string Run() {
    for (int step = 0; step < steps_count_ && failure_.empty(); ++step) {
      RandomStep();
      Check();
    }
    // The end: every thread frees what it has live, then exits.
    for (int t = 0; t < kOwnLineThreads; ++t) {
      if (threads_[t] != nullptr) FreeOwn(t, /*all=*/true);
      ExitThread(t);
    }
    if (!orphans_.empty()) {
      Thread(0).Run([&] {
        for (const Live& b : orphans_) Free(reinterpret_cast<void*>(b.start));
      });
      orphans_.clear();
      ExitThread(0);
    }
    return failure_;
  }

  int checks() const { return checks_; }
  int threads() const { return threads_started_; }

 private:
  struct Live {
    uintptr_t start;
    size_t size;
    size_t usable;  // UsableSize(): the block, whose lines a free by another
                    // thread makes that thread's
    size_t alignment;
    int owner;  // the thread that allocated it: its id, never reused
  };

  void RandomStep() {
    const uint64_t pick = rng_.Next() % 100;
    const int t = static_cast<int>(rng_.Next() % kOwnLineThreads);
    if (pick < 45) {
      AllocateGroup(t);
    } else if (pick < 70) {
      FreeOwn(t, rng_.Next() % 8 == 0);
    } else if (pick < 82) {
      FreeOthers(t);
    } else if (pick < 90) {
      ExitThread(t);
    } else {
      Pairs(t);
    }
  }

  ScheduledThread& Thread(int t) {
    if (threads_[t] == nullptr) {
      threads_[t] = std::make_unique<ScheduledThread>();
      ids_[t] = ++threads_started_;
    }
    return *threads_[t];
  }

  // A class edge to 4 KiB, the smaller ones more often (the least of two
  // draws), or now and then one to 64 KiB.
  size_t Size() {
    size_t i =
        std::min(rng_.Next() % edges_.size(), rng_.Next() % edges_.size());
    if (rng_.Next() % 8 != 0) {
      while (edges_[i] > 4 * kKiB) i /= 2;
    }
    return std::max<size_t>(edges_[i], 1);
  }

  // The minimum half the time, else a power of two from 32 to 4 KiB, 32
  // (less than a line) as often as all the others.
  size_t Alignment() {
    if (rng_.Next() % 2 == 0) return 1;
    if (rng_.Next() % 2 == 0) return 32;
    return size_t{64} << (rng_.Next() % 7);
  }

  void AllocateGroup(int t) {
    const size_t size = Size();
    const size_t alignment = Alignment();
    const bool zero = rng_.Next() % 4 == 0;
    const int n = static_cast<int>(rng_.Between(1, 48));
    std::vector<void*> got(n);
    std::vector<size_t> usable(n);
    Thread(t).Run([&] {
      for (int i = 0; i < n; ++i) {
        got[i] = Allocate(size, alignment, zero);
        if (got[i] == nullptr) continue;
        std::memset(got[i], 0x5a, size);  // the thread's data
        usable[i] = UsableSize(got[i]);
      }
    });
    for (int i = 0; i < n; ++i) {
      if (got[i] == nullptr) {
        return Fail(absl::StrCat(kRuleAvailable, ": Allocate(", size, ", ",
                                 alignment, ") failed"));
      }
      own_.push_back({Address(got[i]), size, std::max(size, usable[i]),
                      alignment, ids_[t]});
    }
    Note(absl::StrCat("thread ", t, " (id ", ids_[t], ") allocates ", n,
                      " blocks of ", size, " bytes aligned to ", alignment,
                      zero ? ", zeroed" : ""));
    // Too many live: the thread frees half of its own.
    size_t mine = 0;
    for (const Live& b : own_) mine += b.owner == ids_[t] ? 1 : 0;
    if (mine > kOwnLineMostLive) FreeOwn(t, false);
  }

  // `n` blocks of one size allocated and freed at once, in pairs: the
  // thread's cache turns over without keeping anything live.
  void Pairs(int t) {
    const size_t size = Size();
    const int n = static_cast<int>(rng_.Between(1, 256));
    Thread(t).Run([&] {
      for (int i = 0; i < n; ++i) Free(Allocate(size, 1, false));
    });
    Note(
        absl::StrCat("thread ", t, " makes ", n, " pairs of ", size, " bytes"));
  }

  // TakeShare(), the blocks in a random order.
  template <typename Take>
  std::vector<Live> Share(std::vector<Live>& from, bool all, Take take) {
    std::vector<Live> chosen = TakeShare(rng_, from, all, take);
    for (size_t i = chosen.size(); i > 1; --i) {
      std::swap(chosen[i - 1], chosen[rng_.Next() % i]);
    }
    return chosen;
  }

  void FreeOn(int t, const std::vector<Live>& blocks) {
    Thread(t).Run([&] {
      for (const Live& b : blocks) Free(reinterpret_cast<void*>(b.start));
    });
  }

  // Thread t frees some of its own blocks (all of them when `all`).
  void FreeOwn(int t, bool all) {
    if (threads_[t] == nullptr) return;
    const int id = ids_[t];
    const std::vector<Live> chosen =
        Share(own_, all, [&](const Live& b) { return b.owner == id; });
    if (chosen.empty()) return;
    FreeOn(t, chosen);
    Note(
        absl::StrCat("thread ", t, " frees ", chosen.size(), " of its blocks"));
  }

  // Thread t frees some blocks of another running thread, or of exited
  // ones: their lines are t's to reuse from now on (task.h), and left out.
  void FreeOthers(int t) {
    Thread(t);
    const int id = ids_[t];
    std::vector<Live> chosen =
        Share(orphans_, false, [](const Live&) { return true; });
    const std::vector<Live> theirs = Share(own_, false, [&](const Live& b) {
      return b.owner != id && rng_.Next() % 2 == 0;
    });
    chosen.insert(chosen.end(), theirs.begin(), theirs.end());
    if (chosen.empty()) return;
    FreeOn(t, chosen);
    for (const Live& b : chosen) {
      for (uintptr_t line = b.start / line_bytes_;
           line <= (b.start + std::max<size_t>(b.usable, 1) - 1) / line_bytes_;
           ++line) {
        excluded_.insert(line);
      }
    }
    Note(absl::StrCat("thread ", t, " frees ", chosen.size(),
                      " blocks of other threads (", theirs.size(),
                      " of running ones): their lines are left out"));
  }

  // Thread t exits; its live blocks are nobody's.
  void ExitThread(int t) {
    if (threads_[t] == nullptr) return;
    threads_[t]->Exit();
    threads_[t] = nullptr;
    const int id = ids_[t];
    const std::vector<Live> left =
        Share(own_, true, [&](const Live& b) { return b.owner == id; });
    orphans_.insert(orphans_.end(), left.begin(), left.end());
    Note(absl::StrCat("thread ", t, " exits; ", left.size(),
                      " of its blocks live, nobody's now"));
  }

  // Promise 6: see the class comment. Only a block's first and last lines
  // can hold another block's bytes.
  void Check() {
    if (!failure_.empty()) return;
    ++checks_;
    std::unordered_map<uintptr_t, const Live*> holder;
    for (const Live& b : own_) {
      const uintptr_t first = b.start / line_bytes_;
      const uintptr_t last =
          (b.start + std::max<size_t>(b.size, 1) - 1) / line_bytes_;
      for (uintptr_t line : {first, last}) {
        if (excluded_.count(line) != 0) continue;
        auto [it, inserted] = holder.emplace(line, &b);
        if (inserted || it->second->owner == b.owner) continue;
        const Live& a = *it->second;
        return Fail(absl::StrCat(
            kRuleOwnLines, ": the line of ", line_bytes_, " bytes at ",
            absl::StrFormat("%#x", line * line_bytes_),
            " holds bytes of thread id ", a.owner, "'s live block of ", a.size,
            " bytes aligned to ", a.alignment, " at ",
            absl::StrFormat("%#x", a.start), " and of thread id ", b.owner,
            "'s live block of ", b.size, " bytes aligned to ", b.alignment,
            " at ", absl::StrFormat("%#x", b.start),
            "; both threads run, and no block on that line was freed by "
            "another thread"));
      }
    }
  }

  void Note(std::string step) { log_.Note(std::move(step)); }

  void Fail(const std::string& what) {
    failure_ = log_.Failure(what, "own-lines explorer", seed_, steps_count_);
  }

  const uintptr_t line_bytes_;
  const uint64_t seed_;
  const int steps_count_;
  Rng rng_;
  const std::vector<size_t> edges_;
  std::unique_ptr<ScheduledThread> threads_[kOwnLineThreads];
  int ids_[kOwnLineThreads] = {};
  int threads_started_ = 0;
  std::vector<Live> own_;                   // live, of running threads
  std::vector<Live> orphans_;               // live, of threads that have exited
  std::unordered_set<uintptr_t> excluded_;  // lines under a block freed by
                                            // another thread
  ScheduleLog log_;
  std::string failure_;
  int checks_ = 0;
};

void OwnLinesExplorerCall(alloclab::FreshCall& call) {
  // The decay's clock stands still: no flush of a cache in the middle.
  internal::ScopedFakeClock clock;
  uint64_t seed = 0;
  int steps = kOwnLineScheduleSteps;
  if (!ParseSchedule(call, seed, steps)) return;
  const absl::StatusOr<alloclab::CacheLine> line = alloclab::ReadCacheLine();
  if (!line.ok()) {
    call.Fail(absl::StrCat("cannot read this machine's cache line: ",
                           line.status().ToString()));
    return;
  }
  OwnLinesExplorer explorer(line->bytes, seed, steps);
  const std::string failure = explorer.Run();
  call.Record("checks", explorer.checks());
  call.Record("threads", explorer.threads());
  if (!failure.empty()) call.Fail(failure);
}
ALLOCLAB_FRESH_CALL("allocator_design_own_lines_explorer",
                    OwnLinesExplorerCall);

TEST(DesignOwnLinesExplorer, RandomSchedulesKeepThreadsToTheirOwnLines) {
  const absl::StatusOr<alloclab::CacheLine> line = alloclab::ReadCacheLine();
  if (!line.ok()) {
    GTEST_SKIP() << "cannot read this machine's cache line: " << line.status();
  }
  int checks = 0;
  int threads = 0;
  for (uint64_t seed = 1; seed <= kOwnLineSchedules; ++seed) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_own_lines_explorer", absl::StrCat(seed));
    ASSERT_TRUE(r.ok()) << ShortestSchedule(
        "allocator_design_own_lines_explorer", seed, kOwnLineScheduleSteps,
        r.status());
    checks += static_cast<int>(r->values["checks"]);
    threads += static_cast<int>(r->values["threads"]);
  }
  EXPECT_GE(checks, kOwnLineSchedules * kOwnLineScheduleSteps)
      << "the explorer checked too rarely";
  ::testing::Test::RecordProperty("checks", checks);
  ::testing::Test::RecordProperty("threads", threads);
}

// ---------------------------------------------------------------------------
// Tests the mutation report asked for (tests/allocator_design/mutation.md).
// ---------------------------------------------------------------------------

// Promise 2 for many large blocks at once: a thread allocates
// kManyLargeBlocks blocks of kManyLargeBlockBytes (above 256 KiB, so each
// may be a mapping of its own), all live together, frees them all, and runs
// on after 2 * kDecayNs. Whatever keeps large mappings for reuse must give
// back every one of them, however many went idle together (a design that
// bounds such a cache by its entries must also count them right).
constexpr int kManyLargeBlocks = 64;
constexpr size_t kManyLargeBlockBytes = 300 * kKiB;

void DecayManyLargeCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks(kManyLargeBlocks);
  int failed = 0;
  for (void*& p : blocks) {
    p = Allocate(kManyLargeBlockBytes, 1, false);
    if (p == nullptr) ++failed;
  }
  for (void* p : blocks) Free(p);
  call.Record("failed", failed);
  call.Record("held_before", ReadCounters().bytes_held);
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) Free(Allocate(64, 1, false));
  call.Record("held_after", ReadCounters().bytes_held);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_many_large", DecayManyLargeCall);

TEST(DesignDecay, IdleMemoryGoesBackWhenManyLargeBlocksWereFreedTogether) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_many_large");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecay << ": a thread allocated " << kManyLargeBlocks
      << " blocks of " << kManyLargeBlockBytes << " bytes, all live at once, "
      << "and freed them (" << r->values["held_before"] << " bytes held "
      << "then); 2 * kDecayNs later it made " << kDecayCheckOps
      << " malloc/free pairs of 64 bytes: " << r->values["held_after"]
      << " bytes were held (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Counters' central_visits for blocks above 256 KiB: a thread allocates
// kLargeVisitBlocks blocks of 1 MiB and frees them, lock.h's observer
// counting the calls in which it took a lock. Each such call met the other
// threads, so central_visits rises by at least as many (task.h: two locks
// taken at once may count once, a call that took one counts).
constexpr int kLargeVisitBlocks = 16;

TEST(ValidatorCounters, EveryLargeCallThatTookALockIsAVisit) {
  std::vector<void*> blocks(kLargeVisitBlocks);
  uint64_t calls_with_locks = 0;
  internal::SetLockObserver(CountLocksTaken);
  const uint64_t visits_before = ReadCounters().central_visits;
  for (void*& p : blocks) {
    const uint64_t locks_before = locks_taken;
    p = Allocate(kMiB, 1, false);
    if (locks_taken != locks_before) ++calls_with_locks;
  }
  for (void* p : blocks) {
    const uint64_t locks_before = locks_taken;
    Free(p);
    if (locks_taken != locks_before) ++calls_with_locks;
  }
  const uint64_t visits = ReadCounters().central_visits - visits_before;
  internal::SetLockObserver(nullptr);
  for (void* p : blocks) EXPECT_NE(p, nullptr) << kRuleAvailable;
  EXPECT_GE(visits, calls_with_locks)
      << kRuleVisits << ": " << kLargeVisitBlocks << " blocks of 1 MiB "
      << "allocated, then freed; " << calls_with_locks << " of those calls "
      << "took a lock (lock.h), and central_visits rose by " << visits;
}

}  // namespace
}  // namespace allocator_design
