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
// Two parts, as task.h says, in files of their own (suite_support.h has
// what they share):
//
//   Validator* tests, this file: the malloclab-style facts every allocator
//   owes its callers, as contents and counts. The starter passes them all.
//
//   Design* tests, a file per promise and its edges (fast_path_test.cc,
//   decay_test.cc, decay_edges_test.cc, churn_and_messages_test.cc,
//   churn_edges_test.cc, utilization_test.cc, own_lines_test.cc,
//   own_lines_refusal_test.cc):
//   task.h's six promises, as counts: system calls (from
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
#include "absl/strings/match.h"
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
#include "tests/allocator_design/forked_child.h"
#include "tests/allocator_design/run_fresh.h"
#include "tests/allocator_design/suite_support.h"

namespace allocator_design::suite {
namespace {

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

// In a fresh process (nothing cached that a design could serve size 0
// from): at each alignment, every power of two to 1 MiB, four blocks of
// size 0 live at once, each non-null, aligned and distinct, then freed.
// Records "bad" (alignments where one was not) and "first_bad_alignment".
void SizeZeroAlignedCall(alloclab::FreshCall& call) {
  int bad = 0;
  size_t first_bad = 0;
  for (size_t alignment = 1; alignment <= (size_t{1} << 20); alignment *= 2) {
    void* blocks[4];
    bool ok = true;
    for (int i = 0; i < 4; ++i) {
      blocks[i] = Allocate(0, alignment, false);
      ok = ok && blocks[i] != nullptr && Address(blocks[i]) % alignment == 0;
      for (int j = 0; j < i; ++j) ok = ok && blocks[j] != blocks[i];
    }
    for (void* p : blocks) Free(p);
    if (!ok && bad++ == 0) first_bad = alignment;
  }
  call.Record("bad", bad);
  call.Record("first_bad_alignment", static_cast<double>(first_bad));
}
ALLOCLAB_FRESH_CALL("allocator_design_size_zero_aligned", SizeZeroAlignedCall);

// Size 0, fresh and recycled: 1000 live at once, every other one freed,
// 1000 more: every live one distinct; and at every alignment to 1 MiB, in
// a fresh process (SizeZeroAlignedCall()).
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

  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_size_zero_aligned");
  ASSERT_TRUE(r.ok()) << kRuleSizeZero << " (not a crash): " << r.status();
  EXPECT_EQ(r->values["bad"], 0)
      << kRuleSizeZero << ", aligned as asked: in a fresh process, four "
      << "Allocate(0, alignment) live at once were not each a non-null, "
      << "aligned block of its own at " << r->values["bad"]
      << " alignments of the powers of two to 1 MiB, the first "
      << r->values["first_bad_alignment"];
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

// Each impossible call in a forked copy of this process: a size that
// wraps when rounded up (to a page, or past a head before the block as
// large as the alignment) may give a block, or write past what was mapped
// for it and crash; either is a failure named by its call, not the end of
// the suite. The sizes: near SIZE_MAX, near 2^63, and just below SIZE_MAX
// by the alignment (with a page more and less), where rounding up to the
// alignment is what overflows.
TEST(ValidatorImpossibleSizes, FailWithoutOverflow) {
  const size_t page = PageSize();
  for (size_t alignment : {size_t{1}, size_t{16}, size_t{4096}, size_t{1} << 20,
                           size_t{1} << 30}) {
    for (size_t size :
         {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 15, SIZE_MAX - page + 1,
          SIZE_MAX - 2 * page, size_t{1} << 63, (size_t{1} << 63) + 1,
          SIZE_MAX / 2, SIZE_MAX - alignment + 1, SIZE_MAX - alignment - page,
          SIZE_MAX - alignment - 2 * page}) {
      for (bool zero : {false, true}) {
        fflush(nullptr);
        const pid_t pid = fork();
        if (pid == 0) {
          void* p = Allocate(size, alignment, zero);
          _exit(p == nullptr ? 0 : 1);
        }
        ASSERT_GT(pid, 0) << "fork() failed";
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
            << kRuleImpossible << ": Allocate(" << size << ", " << alignment
            << (zero ? ", true" : ", false") << ") "
            << (WIFSIGNALED(status)
                    ? absl::StrCat("crashed (signal ", WTERMSIG(status),
                                   "): its size rounded up overflowed")
                    : std::string("gave a block"));
      }
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
  // From here on, a call that waits for a lock nobody will release (left
  // held on a refused call's way out) ends this copy, as in
  // PartialRefusalCall().
  alarm(20);
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
  alarm(0);
  call.Record("failed_after", failed_after);
  call.Record("changed", changed);
  call.Record("large_while_refused", large_while_refused);
}
ALLOCLAB_FRESH_CALL("allocator_design_refusal", RefusalCall);

TEST(ValidatorRefusal, NullptrWhileThePageSourceRefusesThenWorksAgain) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_refusal");
  ASSERT_TRUE(r.ok()) << kRuleRefused
                      << " (not a crash, not an abort, and no call left "
                      << "waiting for 20 s: a lock left held on a refused "
                      << "call's way out?): " << r.status();
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

// What a child that exited kChildWaitedForever did (forked_child.h).
constexpr absl::string_view kChildWaitsForever =
    "was about to wait for a lock that a thread of the parent's held at the "
    "fork and no thread of the child holds: it would have waited forever";

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
      internal::SetLockObserver(suite::ExitWhenWaitingForever);
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
                        : WIFEXITED(status) && WEXITSTATUS(status) ==
                                                   suite::kChildWaitedForever
                            ? std::string(kChildWaitsForever)
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
  bool forked = false;
  std::atomic<bool> a_returned{false};
  internal::CloseMapGate();
  void* large = nullptr;
  std::thread a([&] {
    large = Allocate((64 << 20) + 19 * PageSize(), 16, false);
    a_returned.store(true);
  });
  WaitUntil([&] { return internal::ParkedAtMapGate() || a_returned.load(); });
  const bool parked = internal::ParkedAtMapGate();
  call.Record("parked", parked ? 1 : 0);
  if (!parked) {
    internal::OpenMapGate();
    a.join();
    Free(large);
    return;
  }
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
    internal::SetLockObserver(suite::ExitWhenWaitingForever);
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
      << (r->values["child"] == 5 ? "was still blocked after 10 s"
          : r->values["child"] == suite::kChildWaitedForever
              ? std::string(kChildWaitsForever)
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

// A second wave of one size, in a thread of its own: a thread allocates
// 16 MiB of 64-byte blocks, writes them, frees them and exits; a decay is
// let pass (kDecayCheckOps calls kDecayNs later); another thread allocates
// as many again and writes every byte, so that whatever the decay released
// is taken into use again, in as many refills as a design makes for 16 MiB
// of one class. With those blocks live and no other thread in the
// allocator, its counters agree with the page source and it holds at least
// what is resident.
constexpr size_t kSecondWaveBytes = 16 * kMiB;
constexpr size_t kSecondWaveBlock = 64;

void WriteAWave(std::vector<void*>& blocks) {
  for (void*& p : blocks) {
    p = Allocate(kSecondWaveBlock, 1, false);
    if (p != nullptr) memset(p, 1, kSecondWaveBlock);
  }
}

TEST(ValidatorCounters, AgreeWithThePageSourceOnASecondWaveOfOneSize) {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks(kSecondWaveBytes / kSecondWaveBlock);
  std::thread([&] {
    WriteAWave(blocks);
    for (void* p : blocks) Free(p);
  }).join();
  clock.Advance(2 * kDecayNs);
  for (uint64_t i = 0; i < 2 * kDecayCheckOps; ++i) {
    Free(Allocate(128, 1, false));
  }
  ExpectCountersAgreeNow("a wave of 64-byte blocks freed, decay passed");
  std::thread([&] {
    WriteAWave(blocks);
    ExpectCountersAgreeNow(
        "after the decay, 16 MiB of 64-byte blocks again, every byte "
        "written, by another thread");
    for (void* p : blocks) Free(p);
  }).join();
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
// "<case index>,<maps allowed>". Records "locks_held_after_call" (the
// lock.h Locks the call's thread still held when it returned, by lock.h's
// observer: the copy ends there when any, its next call would wait
// forever) and "first_null", "refused" (maps the call had
// refused: 0 when it made no more than `mapped`), "failed_after", "changed"
// and the counters and page-source counts after the call
// ("after_call_...") and after the blocks that follow ("after_more_...").
constinit std::atomic<int64_t> maps_before_refusal{0};
alignas(internal::ScopedMapRefusal) unsigned char partial_refusal[sizeof(
    internal::ScopedMapRefusal)];
constinit std::atomic<bool> partial_refusal_on{false};

// The lock.h Locks this thread holds, as lock.h's observer saw them taken
// and given back: after a call has returned, none (task.h: a refused map
// leaves no lock held).
thread_local int locks_held_by_this_thread = 0;
void CountLocksHeld(const Lock&, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquired) ++locks_held_by_this_thread;
  if (event == internal::LockEvent::kReleasing) --locks_held_by_this_thread;
}

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
  internal::SetLockObserver(CountLocksHeld);
  void* first = Allocate(c.size, c.alignment, false);
  internal::SetLockObserver(nullptr);
  internal::SetMapObserver(nullptr);
  // A lock still held would stop this thread's next call (and its
  // ReadCounters()) for good: the copy ends here, saying so.
  call.Record("locks_held_after_call", locks_held_by_this_thread);
  call.Record("first_null", first == nullptr ? 1 : 0);
  if (locks_held_by_this_thread != 0) return;
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
  // suite knows; a refusal after the fourth is no refusal there. Its first
  // map refused (none allowed) is the commonest refusal: a call that
  // needed memory and got none.
  constexpr int kMostMapsAllowed = 4;
  for (size_t index = 0; index < std::size(kRefusalCases); ++index) {
    const RefusalCase& c = kRefusalCases[index];
    for (int mapped = 0; mapped <= kMostMapsAllowed; ++mapped) {
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
      if (r->values["locks_held_after_call"] != 0) {
        ADD_FAILURE() << kRuleRefused << ": no lock stays held: " << which
                      << ", the call returned "
                      << (r->values["first_null"] != 0 ? "nullptr" : "a block")
                      << " with " << r->values["locks_held_after_call"]
                      << " lock.h Lock(s) still held by its thread (lock.h's "
                      << "observer), which its next call waits for forever";
        continue;
      }
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

// Counters before anything happened: in a fresh process, before any
// Allocate() or Free(), no thread has met the others and the page source
// has returned nothing, so central_visits and bytes_returned read 0, and
// bytes_held is what the page source mapped (nothing, unless the allocator
// sets itself up when its counters are first read). A count that starts
// anywhere else is wrong from the first read, though every difference of
// two reads hides it.
void CountersAtStartCall(alloclab::FreshCall& call) {
  const Counters c = ReadCounters();
  const PageSourceCounts pages = ReadPageSourceCounts();
  call.Record("central_visits", static_cast<double>(c.central_visits));
  call.Record("bytes_held", static_cast<double>(c.bytes_held));
  call.Record("bytes_returned", static_cast<double>(c.bytes_returned));
  call.Record("pages_mapped", static_cast<double>(pages.bytes_mapped));
  call.Record("pages_returned",
              static_cast<double>(pages.bytes_unmapped + pages.bytes_released));
}
ALLOCLAB_FRESH_CALL("allocator_design_counters_at_start", CountersAtStartCall);

TEST(ValidatorCounters, ReadBeforeAnyCallTheyStartFromNothing) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_counters_at_start");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["central_visits"], 0)
      << kRuleVisits << ": read in a fresh process before any Allocate() or "
      << "Free(), no thread has met the others yet";
  EXPECT_EQ(r->values["bytes_returned"], r->values["pages_returned"])
      << kRuleCounters << ": read before any call";
  EXPECT_EQ(r->values["bytes_held"], r->values["pages_mapped"])
      << kRuleCounters << ": read before any call, nothing released yet";
}

// A thread's first Allocate() finds nothing of its own: it takes a batch
// from the central pool (a visit) or maps memory from the page source. So
// threads that each make one allocation and exit make, between them, at
// least as many central visits and map calls as there were threads; an
// allocator whose central_visits misses visits (promise 1's count) falls
// short.
TEST(ValidatorCounters, CentralVisitsAreCounted) {
  constexpr int kThreads = 64;
  // Read around each first call, in its own thread, before it exits: what a
  // thread's exit gives back may take the page heap's lock too, and count,
  // which must not stand in for the refill's own visit.
  std::atomic<uint64_t> counted{0};
  std::atomic<int> failed{0};
  RunThreadsInWaves(kThreads, 1, [&](int) {
    const Counters before = ReadCounters();
    const uint64_t maps_before = ReadPageSourceCounts().map_calls;
    void* p = Allocate(64, 1, false);
    const Counters after = ReadCounters();
    counted.fetch_add(after.central_visits - before.central_visits +
                      ReadPageSourceCounts().map_calls - maps_before);
    if (p == nullptr) failed.fetch_add(1);
    Free(p);
  });
  EXPECT_EQ(failed.load(), 0) << kRuleAvailable << ": Allocate(64) failed";
  EXPECT_GE(counted.load(), static_cast<uint64_t>(kThreads))
      << kRuleVisits << ": " << kThreads << " threads, one after another, "
      << "each made its first Allocate(64) (nothing of its own to serve it "
      << "from) and exited; around those calls, central_visits and the page "
      << "source's maps rose by " << counted.load() << " in all";
}

// Every call that takes a lock is a central visit, whatever the lock is for:
// here the threads exit with their blocks live, one after another, so that
// each next thread finds what the last one left (spans, pages or lists with
// room beside blocks still out) and may take it over. Each of its calls is
// watched by lock.h's observer, alone in the allocator: a call that took a
// lock and left central_visits where it was has a visit that the counters
// miss, whichever path it took.
TEST(ValidatorCounters, EveryCallThatTakesALockIsCounted) {
  constexpr int kThreads = 200;
  constexpr int kBlocks = 64;
  constexpr size_t kBlockBytes = 100;
  std::vector<void*> live(kThreads * kBlocks, nullptr);
  std::atomic<int> uncounted{0};
  std::atomic<int> locked_calls{0};
  std::atomic<int> failed{0};
  internal::SetLockObserver(CountLocksTaken);
  RunThreadsInWaves(kThreads, 1, [&](int t) {
    for (int i = 0; i < kBlocks; ++i) {
      const uint64_t before = ReadCounters().central_visits;
      const uint64_t locks_before = locks_taken;
      void* p = Allocate(kBlockBytes, 1, false);
      const uint64_t locks = locks_taken - locks_before;
      const uint64_t after = ReadCounters().central_visits;
      if (p == nullptr) failed.fetch_add(1);
      live[t * kBlocks + i] = p;
      if (locks == 0) continue;
      locked_calls.fetch_add(1);
      if (after == before) uncounted.fetch_add(1);
    }
  });
  internal::SetLockObserver(nullptr);
  for (void* p : live) Free(p);
  EXPECT_EQ(failed.load(), 0) << kRuleAvailable << ": Allocate() failed";
  EXPECT_EQ(uncounted.load(), 0)
      << kRuleVisits << ": " << kThreads << " threads, one after another, "
      << "each allocated " << kBlocks << " blocks of " << kBlockBytes
      << " bytes and exited with all of them live; of the " << locked_calls
      << " Allocate() calls that took a lock (lock.h's observer), "
      << uncounted.load() << " left central_visits where it was";
}

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

// Every edge size, at every alignment up to 1 MiB and 0 (task.h: the
// default, what the shim's malloc() passes; above 256 KiB at a few: each is
// a mapping), asked for plain and then again with `zero` once the
// first block, written all over, is freed (a thread cache, or a cache of
// large mappings, hands the same memory back).
TEST(ValidatorEdges, EveryEdgeSizeAtEveryAlignmentWithAndWithoutZero) {
  Failures failures;
  for (size_t size : EdgeSizes(4 * kMiB)) {
    for (size_t alignment = 0; alignment <= kMiB;
         alignment = alignment == 0 ? 1 : 2 * alignment) {
      if (size > 256 * kKiB && alignment > 1 && alignment != 4096 &&
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
         "alignment, and 0 (task.h, Allocate(): `alignment` 0 means "
         "kMinAlignment)";
}

// Memory of one kind, written all over and freed, then asked for with
// `zero` as another kind would take it: blocks of one class whose spans
// go back whole and are carved for another class, before and after the
// decay has released them, and after the clock alone passed kDecayNs
// (memory idle that long, which no call has released yet: its old bytes
// are still there), freed by a thread that exits and by one that runs on.
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
      for (const char* after :
           {"", ", and 2 * kDecayNs passed, then kDecayCheckOps calls",
            ", and 2 * kDecayNs passed with no call"}) {
        if (exits) {
          std::thread([&] { DirtyAndFree(r.dirty_size, kTotal); }).join();
        } else {
          DirtyAndFree(r.dirty_size, kTotal);
        }
        if (*after != '\0') clock.Advance(2 * kDecayNs);
        if (absl::StrContains(after, "kDecayCheckOps")) {
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
                exits ? "that then exited" : "that runs on (this one)", after,
                ")"));
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

// The thread marked parks at its map numbered park_at_map_number (from 0,
// in the order it makes them; the page source's observer, before it maps)
// until the test lets it go; lock.h's observer counts the locks it holds
// then: a design that maps under a lock may make every other thread wait
// there, and is not read while it does. marked_maps counts the marked
// thread's maps until it parks.
thread_local bool park_at_map = false;
constinit int park_at_map_number = 0;
std::atomic<int> marked_maps{0};
std::atomic<int> map_park{0};  // 0 not yet, 1 parked, 2 let go
std::atomic<int> parked_locks_held{0};

void ParkAtMap() {
  if (!park_at_map) return;
  if (marked_maps.fetch_add(1) != park_at_map_number) return;
  park_at_map = false;
  map_park.store(1);
  while (map_park.load() != 2) sched_yield();
}

void CountParkedLocks(const Lock&, internal::LockEvent event) {
  if (!park_at_map) return;
  if (event == internal::LockEvent::kAcquired) parked_locks_held.fetch_add(1);
  if (event == internal::LockEvent::kReleasing) parked_locks_held.fetch_sub(1);
}

// Starts a thread that makes `calls` marked (ParkAtMap()) and waits until it
// parks at its map or returns from them; records "parked" (0: it made
// fewer maps) and "parked_locks" (the locks it held there). True when it
// is parked holding no lock: then another thread may run beside it. The
// caller lets it go (map_park.store(2)) and joins it.
std::atomic<bool> marked_returned{false};

bool StartParkedAtMap(alloclab::FreshCall& call, std::thread& marked,
                      std::function<void()> calls) {
  marked = std::thread([calls] {
    park_at_map = true;
    calls();
    park_at_map = false;
    marked_returned.store(true);
  });
  while (map_park.load() == 0 && !marked_returned.load()) sched_yield();
  const bool parked = map_park.load() == 1;
  call.Record("parked", parked ? 1 : 0);
  call.Record("parked_locks", parked_locks_held.load());
  return parked && parked_locks_held.load() == 0;
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
  internal::SetMapObserver(ParkAtMap);
  const PageSourceCounts before_parked = ReadPageSourceCounts();
  void* parked_block = nullptr;
  std::thread a;
  const bool beside = StartParkedAtMap(
      call, a, [&] { parked_block = Allocate(kParkedBytes, 16, false); });
  std::vector<void*> others;
  if (beside) {
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
// Validator: the counters when two threads race to map the same thing.
// ---------------------------------------------------------------------------

// What each of the two racing threads allocates, in this order, keeping
// every block live: large blocks (each a map of its own, and the metadata
// that describes it), a block of each kind of span, a large aligned one.
constexpr size_t kRaceSizes[] = {300 * kKiB, 48,           5 * kKiB,
                                 100 * kKiB, 3 * kMiB + 7, 300 * kKiB};
// The racing thread is parked at each of its maps in turn (a fresh process
// for each); no call of kRaceSizes needs more maps than this.
constexpr int kMostRaceMaps = 32;

// In a fresh process, the clock standing still: thread A allocates
// kRaceSizes and parks at its map numbered by the argument (ParkAtMap());
// thread B then
// allocates kRaceSizes too (the same maps A waits to make: a span, a large
// block, a piece of metadata, whatever A's call was about to map, B maps
// first) and returns; A is let go, finishes, and returns. With both out of
// the allocator, the counters are read against the page source's and
// held.h's oracle ("live_"), then every block is freed and they are read
// again ("freed_"). Records "parked" (0: A made fewer maps; "maps" says how
// many), "parked_locks", and for each reading "returned", "pages_returned",
// "released", "held", "mapped_left" and "witnessed".
// RecordBesideTheOracle()
//
// The counters now beside the page source's counts and held.h's oracle,
// each recorded as "<when>_<name>": "returned", "pages_returned" (unmapped
// and released), "released", "held", "mapped_left" and "witnessed". Call it
// with no other thread in the allocator.
void RecordBesideTheOracle(alloclab::FreshCall& call, absl::string_view when) {
  const Counters c = ReadCounters();
  const PageSourceCounts p = ReadPageSourceCounts();
  const HeldNow held = ReadHeldNow();
  call.Record(absl::StrCat(when, "_returned"), c.bytes_returned);
  call.Record(absl::StrCat(when, "_pages_returned"),
              p.bytes_unmapped + p.bytes_released);
  call.Record(absl::StrCat(when, "_released"), p.bytes_released);
  call.Record(absl::StrCat(when, "_held"), c.bytes_held);
  call.Record(absl::StrCat(when, "_mapped_left"),
              static_cast<double>(held.mapped_left));
  call.Record(absl::StrCat(when, "_witnessed"), held.witnessed);
}

void MapRaceCall(alloclab::FreshCall& call) {
  if (!absl::SimpleAtoi(call.arg(), &park_at_map_number) ||
      park_at_map_number < 0) {
    call.Fail(absl::StrCat("not a map number: ", call.arg()));
    return;
  }
  internal::ScopedFakeClock clock;  // standing still: no decay
  auto record = [&](absl::string_view when) {
    RecordBesideTheOracle(call, when);
  };
  auto allocate_all = [](std::vector<void*>& blocks) {
    for (size_t size : kRaceSizes) blocks.push_back(Allocate(size, 16, false));
  };
  internal::SetLockObserver(CountParkedLocks);
  internal::SetMapObserver(ParkAtMap);
  std::vector<void*> a_blocks, b_blocks;
  std::thread a;
  if (StartParkedAtMap(call, a, [&] { allocate_all(a_blocks); })) {
    std::thread b([&] { allocate_all(b_blocks); });
    b.join();
  }
  map_park.store(2);
  a.join();
  internal::SetMapObserver(nullptr);
  internal::SetLockObserver(nullptr);
  call.Record("maps", marked_maps.load());
  int failed = 0;
  for (void* p : a_blocks) failed += p == nullptr ? 1 : 0;
  for (void* p : b_blocks) failed += p == nullptr ? 1 : 0;
  call.Record("failed", failed);
  record("live");
  for (void* p : a_blocks) Free(p);
  for (void* p : b_blocks) Free(p);
  record("freed");
}
ALLOCLAB_FRESH_CALL("allocator_design_map_race", MapRaceCall);

// task.h, Counters and ReadCounters(): exact when no other thread is in the
// allocator, to the byte while nothing was released, however the threads
// before met. Two threads ask for the same memory at once: one is parked at
// a map (each of its maps in turn, a fresh process each) while the other
// makes the same calls, maps what the first was about to, and returns; then
// the first goes on, and what it mapped and no longer needs (a span, a
// metadata piece another thread mapped first) it keeps or gives back. Every
// byte the page source unmapped or released is in bytes_returned, and
// bytes_held is what is mapped and not unmapped (held.h's oracle: the page
// source's count, and the resident bytes, which no allocator holds less
// than), with the blocks live and once all are freed.
TEST(ValidatorCounters, ExactAfterTwoThreadsRacedToMapTheSameThing) {
  int races = 0;
  for (int k = 0; k < kMostRaceMaps; ++k) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_map_race", absl::StrCat(k));
    ASSERT_TRUE(r.ok()) << r.status();
    auto v = [&](absl::string_view key) { return r->values[std::string(key)]; };
    if (v("parked") == 0) {
      EXPECT_GE(k, 1) << "a fresh thread's calls (" << std::size(kRaceSizes)
                      << " blocks of 48 bytes to 3 MiB) made no map: task.h, "
                         "rules of the game: the allocator gets memory only "
                         "from pages.h";
      break;
    }
    if (v("parked_locks") != 0) continue;  // no race: the other would wait
    ++races;
    EXPECT_EQ(v("failed"), 0) << kRuleAvailable;
    for (const char* when : {"live", "freed"}) {
      auto w = [&](absl::string_view key) {
        return v(absl::StrCat(when, "_", key));
      };
      const std::string what = absl::StrCat(
          kRuleCounters,
          " (task.h, ReadCounters(): exact when no other thread is in the "
          "allocator): thread A was parked at its map #",
          k, " (of its calls: ", std::size(kRaceSizes),
          " blocks of 48 bytes to 3 MiB, kept live) while thread B made the "
          "same calls and returned; with both out of the allocator and the "
          "blocks ",
          when, ": bytes_returned ", static_cast<int64_t>(w("returned")),
          ", bytes_held ", static_cast<int64_t>(w("held")),
          "; the page source unmapped and released ",
          static_cast<int64_t>(w("pages_returned")), " (released ",
          static_cast<int64_t>(w("released")),
          "), mapped and did not unmap or "
          "release ",
          static_cast<int64_t>(w("mapped_left")),
          ", resident or mapped at least ",
          static_cast<int64_t>(w("witnessed")));
      EXPECT_EQ(w("returned"), w("pages_returned")) << what;
      EXPECT_GE(w("held"), w("witnessed")) << what;
      EXPECT_LE(w("held"), w("mapped_left") + w("released")) << what;
      if (w("released") == 0) {
        EXPECT_EQ(w("held"), w("mapped_left")) << what;
      }
    }
  }
  RecordProperty("races", races);
}

// ---------------------------------------------------------------------------
// Validator: the counters when a free lands beside memory being released.
// ---------------------------------------------------------------------------

// The decaying thread of ReleaseRaceCall(): lock.h's observer parks it at
// the second lock it waits for while holding none (a decay pass gives its
// lock back to release pages with none held, and takes one again to file
// them as released), until the test lets it go.
thread_local bool release_watched = false;
thread_local int release_watched_held = 0;
constinit std::atomic<int> release_watched_waits{0};
constinit std::atomic<bool> release_parked{false};
constinit std::atomic<bool> release_let_go{false};

void ParkAtSecondFreeWait(const Lock&, internal::LockEvent event) {
  if (!release_watched) return;
  if (event == internal::LockEvent::kAcquired) ++release_watched_held;
  if (event == internal::LockEvent::kReleasing) --release_watched_held;
  if (event != internal::LockEvent::kAcquiring || release_watched_held != 0 ||
      ++release_watched_waits != 2) {
    return;
  }
  release_parked.store(true);
  while (!release_let_go.load()) sched_yield();
}

// In a fresh process, on the fake clock: a thread allocates three blocks of
// 100 KiB (side by side in many designs), writes them, frees the middle one
// and exits (its cache given back). Once it has been idle kDecayNs, a new
// thread's first call (a large block: it looks at the clock) is parked at
// its second wait for a lock with none held, as a decay pass is after it
// released the idle memory and before it files it; meanwhile a third thread
// frees the first block, beside the middle one, and exits. Then the
// decaying thread goes on, the last block is freed, and three times kDecayNs
// passes, each followed by kDecayCheckOps large calls of a fresh thread, so
// that everything is free and has decayed. The counters beside the
// oracle, "raced_" after the race, "decayed_" at the end; "parked": 1 when
// the thread was parked, 0 when its call waited for fewer locks.
void ReleaseRaceCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  constexpr size_t kBytes = 100 * kKiB;
  void* blocks[3] = {};
  std::thread([&] {
    for (void*& p : blocks) {
      p = Allocate(kBytes, 16, false);
      if (p != nullptr) memset(p, 1, kBytes);
    }
    Free(blocks[1]);
  }).join();
  if (blocks[0] == nullptr || blocks[1] == nullptr || blocks[2] == nullptr) {
    call.Fail(std::string(kRuleAvailable));
    return;
  }
  clock.Advance(kDecayNs);
  internal::SetLockObserver(ParkAtSecondFreeWait);
  std::atomic<bool> done{false};
  std::thread decaying([&] {
    release_watched = true;
    Free(Allocate(300 * kKiB, 16, false));
    release_watched = false;
    done.store(true);
  });
  while (!release_parked.load() && !done.load()) sched_yield();
  call.Record("parked", release_parked.load() ? 1 : 0);
  std::thread([&] { Free(blocks[0]); }).join();
  release_let_go.store(true);
  decaying.join();
  internal::SetLockObserver(nullptr);
  RecordBesideTheOracle(call, "raced");
  std::thread([&] { Free(blocks[2]); }).join();
  for (int i = 0; i < 3; ++i) {
    clock.Advance(kDecayNs);
    std::thread([] {
      for (uint64_t j = 0; j < kDecayCheckOps / 2; ++j) {
        Free(Allocate(300 * kKiB, 16, false));
      }
    }).join();
  }
  RecordBesideTheOracle(call, "decayed");
}
ALLOCLAB_FRESH_CALL("allocator_design_release_race", ReleaseRaceCall);

// task.h, Counters: "a released range taken into use again is held again",
// and ReadCounters() is exact when no other thread is in the allocator,
// even when, while one thread released idle memory, another freed the
// block beside it (ReleaseRaceCall()): a design that merges the two
// counts the released part held again. Every byte the page source unmapped
// or released is in bytes_returned, and bytes_held is at least what is
// resident or mapped and not given back (held.h's oracle) and at most what
// is mapped and not unmapped: after the race, and once everything is free
// and has decayed.
TEST(ValidatorCounters, ExactWhenABlockIsFreedBesideMemoryBeingReleased) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_release_race");
  ASSERT_TRUE(r.ok()) << r.status();
  RecordProperty("parked", static_cast<int>(r->values["parked"]));
  for (const char* when : {"raced", "decayed"}) {
    auto w = [&](absl::string_view key) {
      return r->values[absl::StrCat(when, "_", key)];
    };
    const std::string what = absl::StrCat(
        kRuleCounters,
        " (task.h, ReadCounters(): exact when no other thread is in the "
        "allocator): three blocks of 100 KiB, the middle one freed and idle "
        "kDecayNs; a thread's decay released it and was stopped before it "
        "took a lock again while another thread freed the first block; ",
        when == std::string("raced") ? "with every thread out of the allocator"
                                     : "then every block freed and decayed",
        ": bytes_returned ", static_cast<int64_t>(w("returned")),
        ", bytes_held ", static_cast<uint64_t>(w("held")),
        "; the page source unmapped and released ",
        static_cast<int64_t>(w("pages_returned")), " (released ",
        static_cast<int64_t>(w("released")),
        "), mapped and did not unmap or release ",
        static_cast<int64_t>(w("mapped_left")),
        ", resident or mapped at least ", static_cast<int64_t>(w("witnessed")));
    EXPECT_EQ(w("returned"), w("pages_returned")) << what;
    EXPECT_GE(w("held"), w("witnessed")) << what;
    EXPECT_LE(w("held"), w("mapped_left") + w("released")) << what;
  }
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
  // A sanitizer's runtime maps, unmaps and releases shadow memory of its
  // own around the page source's calls: there, only brk and mremap count.
  if (!kSanitized) {
    EXPECT_EQ(v("mmap"), v("maps")) << kRuleOnlyPages << ": " << what;
    EXPECT_LE(v("munmap"), v("unmaps") + 2 * v("maps"))
        << kRuleOnlyPages << ": " << what;
    EXPECT_EQ(v("madvise"), v("releases")) << kRuleOnlyPages << ": " << what;
  }
  EXPECT_EQ(v("brk"), 0) << kRuleOnlyPages << ": " << what;
  EXPECT_EQ(v("mremap"), 0) << kRuleOnlyPages << ": " << what;
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
}  // namespace allocator_design::suite
