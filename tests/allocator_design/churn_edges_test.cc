// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Promise 3 of labs/allocator_design/task.h at its edges, part of the same
// suite as task_test.cc and linked with it against each implementation:
// "threads that allocate, free and exit leave at most kThreadChurnHeldBytes
// held, however many there were", for blocks of any size. task_test.cc's
// DesignThreadChurn tests churn small blocks; here threads churn large
// ones, from just over 256 KiB (where task.h lets a block be a mapping of
// its own) to 64 MiB, several threads at once, so that a cache of freed
// mappings bounded by anything but what is still live keeps megabytes of
// them once every thread has gone. Then orders of calls a design's exit
// could miss, each a fresh process of steps: threads that used small blocks
// before churning large ones (an exit armed at a thread's first small call
// must give back the large cache too), a block larger than any other
// churned then a wave that fills a cache (the huge block, freed, is no
// longer live, however it went back), large blocks freed by a thread
// other than the one that allocated them, and small blocks of every size
// to 16 KiB freed by another thread while the one that allocated them
// still runs, before its exit; a thread that churns one block of every
// class edge size to 256 KiB, freed by itself or by another while it runs;
// threads live at once that each used every size, or one block just over
// 128 KiB, then all exit (each exit must give back what they left
// together, not a slice of it, and spans of every size); producers that
// exit with their blocks out, whose blocks other threads then free before
// exiting; and threads that churn large blocks as they exit, after the
// allocator's exit hook.
//
// The bytes held are judged by the suite's oracle (held.h): the largest of
// the allocator's own count, the page source's (mapped, less unmapped and
// released) and the resident bytes of the page source's live mappings. The
// page source's clock stands still, so that no decay (promise 2) gives back
// what the exits should have.

#include <pthread.h>

#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "tests/allocator_design/held.h"
#include "tests/allocator_design/run_fresh.h"

namespace allocator_design {
namespace {

using ::allocator_design::suite::ExpectResidentKnown;
using ::allocator_design::suite::HeldCounts;
using ::allocator_design::suite::HeldWorst;
using ::allocator_design::suite::ReadHeldNow;
using ::allocator_design::suite::RunFresh;

constexpr absl::string_view kRuleChurnAnySize =
    "task.h, promise 3 (thread exit gives back): threads that allocate, "
    "free and exit leave at most kThreadChurnHeldBytes held after each exit, "
    "beside the blocks still live, however many there were (blocks larger "
    "than 256 KiB, any amount)";

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;

// The sizes churned: just over the largest size promise 1 keeps private
// (256 KiB, where a block may become a mapping of its own), then 1, 8, 32
// and 64 MiB.
constexpr size_t kLargeChurnSizes[] = {256 * kKiB + 1, 1 * kMiB, 8 * kMiB,
                                       32 * kMiB, 64 * kMiB};
constexpr int kNumLargeChurnSizes = std::size(kLargeChurnSizes);

// Threads at once in each wave, and the rounds each makes: a block
// allocated, its first and last bytes written, held until every thread of
// the wave has its own (so that all are live at once), then freed.
constexpr int kLargeChurnThreads = 4;
constexpr int kLargeChurnRounds = 2;

// One wave: kLargeChurnThreads threads, each first calling `first()`, then
// thread t in round r churning `size_of(t, r)`; all have exited when it
// returns. Counts the blocks that could not be had in `failed`.
template <typename SizeOf, typename First = void (*)()>
void LargeChurnWave(
    SizeOf size_of, int& failed, First first = [] {}) {
  std::barrier live(kLargeChurnThreads);
  std::vector<int> failures(kLargeChurnThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kLargeChurnThreads; ++t) {
    threads.emplace_back([&, t] {
      first();
      for (int round = 0; round < kLargeChurnRounds; ++round) {
        const size_t size = size_of(t, round);
        char* p = static_cast<char*>(Allocate(size, 1, false));
        if (p == nullptr) {
          ++failures[t];
        } else {
          p[0] = 1;
          p[size - 1] = 1;
        }
        live.arrive_and_wait();  // every thread's block live at once
        Free(p);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int f : failures) failed += f;
}

// Every size alone (wave w churns kLargeChurnSizes[w] in each thread), then
// every size at once (thread t's round r takes the size t + r along, each
// round its own mix), the bytes held read after each wave: every thread so
// far has exited there. Records "held_<w>" for each wave, the worst of
// every reading (HeldWorst) and "failed".
void LargeChurnCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;  // standing still: no decay
  HeldWorst worst;
  int failed = 0;
  for (int w = 0; w <= kNumLargeChurnSizes; ++w) {
    if (w < kNumLargeChurnSizes) {
      LargeChurnWave([w](int, int) { return kLargeChurnSizes[w]; }, failed);
    } else {
      LargeChurnWave(
          [](int t, int round) {
            return kLargeChurnSizes[(t + round) % kNumLargeChurnSizes];
          },
          failed);
    }
    const suite::HeldNow held = ReadHeldNow();
    worst.Add(held);
    call.Record(absl::StrCat("held_", w), static_cast<double>(held.judged));
  }
  call.Record("failed", failed);
  worst.Record(call);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_large", LargeChurnCall);

TEST(DesignThreadChurn, ThreadsThatChurnLargeBlocksOfAnySizeLeaveLittleHeld) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_churn_large");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << "task.h, Allocate(): nullptr only when the page source refuses: "
      << static_cast<int64_t>(r->values["failed"])
      << " large blocks could not be had";
  ExpectResidentKnown(*r);
  for (int w = 0; w <= kNumLargeChurnSizes; ++w) {
    const std::string what =
        w < kNumLargeChurnSizes
            ? absl::StrCat("blocks of ", kLargeChurnSizes[w], " bytes")
            : std::string("blocks of every size above, mixed");
    EXPECT_LE(r->values[absl::StrCat("held_", w)], kThreadChurnHeldBytes)
        << kRuleChurnAnySize << ": after wave " << w << " ("
        << kLargeChurnThreads << " threads at once, each " << kLargeChurnRounds
        << " times allocating " << what << ", all live at once, and freeing "
        << "them, then exiting; the clock standing still), "
        << static_cast<int64_t>(r->values[absl::StrCat("held_", w)])
        << " bytes held by the largest of the three counts "
           "(kThreadChurnHeldBytes = "
        << kThreadChurnHeldBytes << ")";
  }
  EXPECT_LE(r->values["held"], kThreadChurnHeldBytes)
      << kRuleChurnAnySize << ": over every wave, at most " << HeldCounts(*r)
      << " (kThreadChurnHeldBytes = " << kThreadChurnHeldBytes << ")";
}

// -----------------------------------------------------------------------------
// Orders of calls a design's exit could miss: each a fresh process of steps,
// every thread of a step exited when its bytes held are read.
// -----------------------------------------------------------------------------

// A step of an order: what its threads do (all joined when it returns; it
// counts the blocks that could not be had in `failed`) and, for a failure's
// message, what that is in words.
struct ChurnStep {
  const char* what;
  void (*run)(int& failed);
};

// Allocates `count` blocks of `size` bytes, all live at once, each written
// at its first and last byte; counts those that could not be had.
std::vector<char*> AllocateLive(size_t size, int count, int& failed) {
  std::vector<char*> blocks;
  for (int i = 0; i < count; ++i) {
    char* p = static_cast<char*>(Allocate(size, 1, false));
    if (p == nullptr) {
      ++failed;
      continue;
    }
    p[0] = 1;
    p[size - 1] = 1;
    blocks.push_back(p);
  }
  return blocks;
}

// Frees each of `blocks`.
void FreeAll(const std::vector<char*>& blocks) {
  for (char* p : blocks) Free(p);
}

// `count` blocks of `size` bytes allocated, all live at once, then freed.
void ChurnLive(size_t size, int count, int& failed) {
  FreeAll(AllocateLive(size, count, failed));
}

// Runs `body` on a thread of its own and waits for it to exit.
template <typename Body>
void OnAThread(Body body) {
  std::thread(body).join();
}

// Runs `before` on a thread that then waits while another thread runs
// `meanwhile` and exits, then runs `after` and exits; both have exited when
// it returns.
template <typename Before, typename Meanwhile, typename After>
void AroundAnotherThread(Before before, Meanwhile meanwhile, After after) {
  std::barrier step(2);
  std::thread first([&] {
    before();
    step.arrive_and_wait();  // `before` done
    step.arrive_and_wait();  // the other thread has exited
    after();
  });
  step.arrive_and_wait();
  OnAThread(meanwhile);
  step.arrive_and_wait();
  first.join();
}

// Runs each of `steps` (none with a thread left running) and records
// "held_<i>", the bytes held after step i, the worst of every reading
// (HeldWorst) and "failed".
void RunChurnSteps(alloclab::FreshCall& call,
                   std::span<const ChurnStep> steps) {
  internal::ScopedFakeClock clock;  // standing still: no decay
  HeldWorst worst;
  int failed = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    steps[i].run(failed);
    const suite::HeldNow held = ReadHeldNow();
    worst.Add(held);
    call.Record(absl::StrCat("held_", i), static_cast<double>(held.judged));
  }
  call.Record("failed", failed);
  worst.Record(call);
}

// Runs the fresh call `name` of `steps` and judges it: every block had,
// and after each step at most kThreadChurnHeldBytes held.
void ExpectChurnStepsLeaveLittleHeld(absl::string_view name,
                                     std::span<const ChurnStep> steps) {
  absl::StatusOr<alloclab::FreshCallResult> r = RunFresh(name);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << "task.h, Allocate(): nullptr only when the page source refuses: "
      << static_cast<int64_t>(r->values["failed"])
      << " large blocks could not be had";
  ExpectResidentKnown(*r);
  for (size_t i = 0; i < steps.size(); ++i) {
    const double held = r->values[absl::StrCat("held_", i)];
    EXPECT_LE(held, kThreadChurnHeldBytes)
        << kRuleChurnAnySize << ": after step " << i << " of " << steps.size()
        << " (" << steps[i].what << "; every thread exited, the clock standing "
        << "still), " << static_cast<int64_t>(held)
        << " bytes held by the largest of the three counts "
           "(kThreadChurnHeldBytes = "
        << kThreadChurnHeldBytes << ")";
  }
  EXPECT_LE(r->values["held"], kThreadChurnHeldBytes)
      << kRuleChurnAnySize << ": over every step, at most " << HeldCounts(*r)
      << " (kThreadChurnHeldBytes = " << kThreadChurnHeldBytes << ")";
}

// The large blocks of these orders: 8 MiB, four live at once (32 MiB, twice
// kThreadChurnHeldBytes: a cache of freed mappings that kept them all breaks
// promise 3), and 1 MiB, forty at once.
constexpr size_t kEightMiB = 8 * kMiB;
constexpr int kEightMiBLive = 4;
constexpr size_t kOneMiB = 1 * kMiB;
constexpr int kOneMiBLive = 40;

// A block larger than any the other steps churn, 64 MiB (the largest size
// of kLargeChurnSizes): one a design maps and unmaps by itself, caching
// none that large.
constexpr size_t kHugeBlock = 64 * kMiB;

// Small blocks first: a thread whose first calls set up its cache of small
// blocks (64 bytes, or the largest promise 1 keeps private, 256 KiB), which
// a design may arm its exit at, then churns large ones. Its exit must give
// the large ones' cache back as well.
constexpr size_t kSmallFirst = 64;
constexpr size_t kLargestPrivate = 256 * kKiB;
constexpr ChurnStep kSmallThenLargeSteps[] = {
    {"a thread allocating and freeing one 64-byte block, then 4 blocks of "
     "8 MiB live at once and freeing them, then exiting",
     [](int& failed) {
       OnAThread([&] {
         Free(Allocate(kSmallFirst, 1, false));
         ChurnLive(kEightMiB, kEightMiBLive, failed);
       });
     }},
    {"a thread allocating one 64-byte block, 4 blocks of 8 MiB live at "
     "once and freeing them, then the 64-byte block, then exiting",
     [](int& failed) {
       OnAThread([&] {
         void* small = Allocate(kSmallFirst, 1, false);
         ChurnLive(kEightMiB, kEightMiBLive, failed);
         Free(small);
       });
     }},
    {"a thread allocating and freeing one 256 KiB block, then 40 blocks of "
     "1 MiB live at once and freeing them, then exiting",
     [](int& failed) {
       OnAThread([&] {
         Free(Allocate(kLargestPrivate, 1, false));
         ChurnLive(kOneMiB, kOneMiBLive, failed);
       });
     }},
    {"4 threads at once, each allocating and freeing one 64-byte block, "
     "then 2 rounds of one 8 MiB block (all 4 threads' live at once) freed, "
     "then exiting",
     [](int& failed) {
       LargeChurnWave([](int, int) { return kEightMiB; }, failed,
                      [] { Free(Allocate(kSmallFirst, 1, false)); });
     }},
};

void SmallThenLargeCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kSmallThenLargeSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_small_then_large",
                    SmallThenLargeCall);

TEST(DesignThreadChurn,
     ThreadsThatUsedSmallBlocksBeforeLargeOnesLeaveLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_small_then_large",
                                  kSmallThenLargeSteps);
}

// Promise 3 beside large blocks that stay live ("larger blocks, any
// amount"): this thread keeps kLargeLiveBlocks blocks of kLargeLiveBytes
// live throughout (24 MiB, more than kThreadChurnHeldBytes), and
// kLargeLiveThreads threads, one after another, each allocate as many of
// that size, all live at once, free them and exit; then as many again,
// each handing its blocks to this thread, which frees them once it has
// exited. What the exits leave beyond the live blocks is bounded however
// many large bytes are live: a cache of freed mappings may keep some for
// the next blocks, not as many again as are live. Records "held_<i>" and
// "handed_<i>", the bytes held after thread i's exit (and, handed, this
// thread's frees) less the live blocks' pages, and "failed".
constexpr size_t kLargeLiveBytes = 4 * kMiB;
constexpr int kLargeLiveBlocks = 6;
constexpr int kLargeLiveThreads = 10;

void ChurnBesideLargeLiveCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;  // standing still: no decay
  int failed = 0;
  const std::vector<char*> live =
      AllocateLive(kLargeLiveBytes, kLargeLiveBlocks, failed);
  const size_t page = PageSize();
  const uint64_t live_bytes =
      live.size() * ((kLargeLiveBytes + page - 1) & ~(page - 1));
  for (int t = 0; t < kLargeLiveThreads; ++t) {
    OnAThread([&] { ChurnLive(kLargeLiveBytes, kLargeLiveBlocks, failed); });
    call.Record(absl::StrCat("held_", t),
                static_cast<double>(ReadHeldNow().judged) -
                    static_cast<double>(live_bytes));
  }
  for (int t = 0; t < kLargeLiveThreads; ++t) {
    std::vector<char*> handed;
    OnAThread([&] {
      handed = AllocateLive(kLargeLiveBytes, kLargeLiveBlocks, failed);
    });
    FreeAll(handed);
    call.Record(absl::StrCat("handed_", t),
                static_cast<double>(ReadHeldNow().judged) -
                    static_cast<double>(live_bytes));
  }
  FreeAll(live);
  call.Record("failed", failed);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_beside_large_live",
                    ChurnBesideLargeLiveCall);

TEST(DesignThreadChurn,
     ThreadsThatChurnLargeBlocksBesideLiveOnesLeaveLittleHeld) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_churn_beside_large_live");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0)
      << "task.h, Allocate(): nullptr only when the page source refuses: "
      << static_cast<int64_t>(r->values["failed"])
      << " large blocks could not be had";
  for (const char* phase : {"held_", "handed_"}) {
    const bool handed = absl::string_view(phase) == "handed_";
    for (int t = 0; t < kLargeLiveThreads; ++t) {
      const double left = r->values[absl::StrCat(phase, t)];
      EXPECT_LE(left, kThreadChurnHeldBytes)
          << kRuleChurnAnySize << ": the main thread kept " << kLargeLiveBlocks
          << " blocks of " << kLargeLiveBytes << " bytes live throughout; "
          << "after thread " << t << " (of " << kLargeLiveThreads
          << ", one after another, each allocating " << kLargeLiveBlocks
          << " blocks of " << kLargeLiveBytes << " bytes, all live at once, "
          << (handed ? "handing them to the main thread and exiting, the main "
                       "thread freeing them then"
                     : "freeing them and exiting")
          << "; the clock standing still), " << static_cast<int64_t>(left)
          << " bytes were held beyond the live blocks' pages, by the largest "
          << "of the three counts (kThreadChurnHeldBytes = "
          << kThreadChurnHeldBytes << ")";
    }
  }
}

// A block above every cached size, then a wave that fills a cache: a
// design that counts the huge block as still live after its free (it went
// back to the page source, not into the cache) keeps a full cache at every
// later exit. Then the same with the huge block live across another
// thread's churn and exit, freed last by a thread that then exits.
constexpr ChurnStep kHugeThenFillSteps[] = {
    {"a thread allocating and freeing one 64 MiB block, then 4 blocks of "
     "8 MiB live at once and freeing them, then exiting",
     [](int& failed) {
       OnAThread([&] {
         ChurnLive(kHugeBlock, 1, failed);
         ChurnLive(kEightMiB, kEightMiBLive, failed);
       });
     }},
    {"a thread allocating and freeing one 64 MiB block, then exiting; then "
     "another allocating 4 blocks of 8 MiB live at once and freeing them, "
     "then exiting",
     [](int& failed) {
       OnAThread([&] { ChurnLive(kHugeBlock, 1, failed); });
       OnAThread([&] { ChurnLive(kEightMiB, kEightMiBLive, failed); });
     }},
    {"a thread allocating one 64 MiB block; while it is live, another "
     "allocating 4 blocks of 8 MiB live at once and freeing them, then "
     "exiting; then the first freeing its 64 MiB block and exiting",
     [](int& failed) {
       std::vector<char*> huge;
       int failed_first = 0;  // each thread counts its own
       AroundAnotherThread(
           [&] { huge = AllocateLive(kHugeBlock, 1, failed_first); },
           [&] { ChurnLive(kEightMiB, kEightMiBLive, failed); },
           [&] { FreeAll(huge); });
       failed += failed_first;
     }},
};

void HugeThenFillCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kHugeThenFillSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_huge_then_fill", HugeThenFillCall);

TEST(DesignThreadChurn, AHugeBlockThenAWaveOfLargeOnesLeaveLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_huge_then_fill",
                                  kHugeThenFillSteps);
}

// Large blocks freed by a thread other than the one that allocated them:
// the allocating thread exited before (its blocks live at its exit) or
// after the freeing one; the freeing one used a small block first or not.
constexpr ChurnStep kFreedByAnotherSteps[] = {
    {"a thread allocating 4 blocks of 8 MiB live at once and exiting; then "
     "another freeing them and exiting",
     [](int& failed) {
       std::vector<char*> blocks;
       OnAThread(
           [&] { blocks = AllocateLive(kEightMiB, kEightMiBLive, failed); });
       OnAThread([&] { FreeAll(blocks); });
     }},
    {"a thread allocating 4 blocks of 8 MiB live at once; another freeing "
     "them and exiting; then the first exiting",
     [](int& failed) {
       std::vector<char*> blocks;
       AroundAnotherThread(
           [&] { blocks = AllocateLive(kEightMiB, kEightMiBLive, failed); },
           [&] { FreeAll(blocks); }, [] {});
     }},
    {"a thread allocating 4 blocks of 8 MiB live at once and exiting; then "
     "another allocating and freeing one 64-byte block, then freeing them, "
     "then exiting",
     [](int& failed) {
       std::vector<char*> blocks;
       OnAThread(
           [&] { blocks = AllocateLive(kEightMiB, kEightMiBLive, failed); });
       OnAThread([&] {
         Free(Allocate(kSmallFirst, 1, false));
         FreeAll(blocks);
       });
     }},
};

void FreedByAnotherCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kFreedByAnotherSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_freed_by_another",
                    FreedByAnotherCall);

TEST(DesignThreadChurn,
     ThreadsThatFreeAnotherThreadsLargeBlocksLeaveLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_freed_by_another",
                                  kFreedByAnotherSteps);
}

// Small blocks freed by another thread while the thread that allocated them
// runs, then that thread's exit: for each size from 16 bytes to 16 KiB
// (16-byte steps to 128, then four per doubling), one after another, a
// thread allocates 512 KiB of blocks of that size (all live at once) and
// waits while another frees them all and exits; then it exits. A design
// that gives back at the exit only what the exiting thread freed itself
// (and leaves what others freed into its pages as still out) keeps 512 KiB
// of each size, 18 MiB in all, more than kThreadChurnHeldBytes. Not 1 MiB
// a size: the starter, which keeps promise 3 (task.h), keeps what was freed
// on one list per class with no bound in total, and held 19,922,944 bytes
// at 1 MiB a size: the starter is the learner's to start from, and its
// per-class lists bound nothing in total.
constexpr size_t kHandedBytesPerSize = 512 * kKiB;
constexpr size_t kHandedLargestSize = 16 * kKiB;

// The class edge sizes from 16 bytes to `largest` (a power of two at least
// 256), smallest first: 16-byte steps to 128, then four per doubling.
std::vector<size_t> HandedSizes(size_t largest) {
  std::vector<size_t> sizes;
  for (size_t n = 16; n <= 128; n += 16) sizes.push_back(n);
  for (size_t base = 128; base < largest; base *= 2) {
    for (size_t q = 1; q <= 4; ++q) sizes.push_back(base + q * base / 4);
  }
  return sizes;
}

constexpr ChurnStep kFreedWhileRunningSteps[] = {
    {"for each size from 16 bytes to 16 KiB, a thread allocating 512 KiB of "
     "blocks of it live at once; while it waits, another freeing them all "
     "and exiting; then the first exiting",
     [](int& failed) {
       for (size_t size : HandedSizes(kHandedLargestSize)) {
         std::vector<char*> blocks;
         AroundAnotherThread(
             [&] {
               blocks = AllocateLive(
                   size, static_cast<int>(kHandedBytesPerSize / size), failed);
             },
             [&] { FreeAll(blocks); }, [] {});
       }
     }},
};

void FreedWhileRunningCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kFreedWhileRunningSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_freed_while_running",
                    FreedWhileRunningCall);

TEST(DesignThreadChurn,
     ThreadsWhoseBlocksAnotherFreedWhileTheyRanLeaveLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_freed_while_running",
                                  kFreedWhileRunningSteps);
}

// A thread that churns one block of every size: one block of each class edge
// size from 16 bytes to 256 KiB (HandedSizes(), up to the largest size
// promise 1 keeps private), all live at once, freed by the thread itself
// before it exits, or by another while it runs (then the other exits, then
// it). A design that keeps, per class, a span or a run of pages for the
// next blocks of that size (a few dozen classes, each with its own) must
// give every one of them back at the exit: the clock stands still.
std::vector<char*> AllocateOneOfEachSize(int& failed) {
  std::vector<char*> blocks;
  for (size_t size : HandedSizes(kLargestPrivate)) {
    for (char* p : AllocateLive(size, 1, failed)) blocks.push_back(p);
  }
  return blocks;
}

constexpr ChurnStep kEverySizeSelfSteps[] = {
    {"a thread allocating one block of each class edge size from 16 bytes to "
     "256 KiB, all live at once, freeing them and exiting",
     [](int& failed) {
       OnAThread([&] { FreeAll(AllocateOneOfEachSize(failed)); });
     }},
};

void EverySizeSelfCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kEverySizeSelfSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_every_size_self",
                    EverySizeSelfCall);

TEST(DesignThreadChurn, AThreadThatChurnedOneBlockOfEverySizeLeavesLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_every_size_self",
                                  kEverySizeSelfSteps);
}

constexpr ChurnStep kEverySizeHandedSteps[] = {
    {"a thread allocating one block of each class edge size from 16 bytes to "
     "256 KiB, all live at once; while it waits, another freeing them all "
     "and exiting; then the first exiting",
     [](int& failed) {
       std::vector<char*> blocks;
       AroundAnotherThread([&] { blocks = AllocateOneOfEachSize(failed); },
                           [&] { FreeAll(blocks); }, [] {});
     }},
};

void EverySizeHandedCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kEverySizeHandedSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_every_size_handed",
                    EverySizeHandedCall);

TEST(DesignThreadChurn,
     AThreadWhoseBlockOfEverySizeAnotherFreedLeavesLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_every_size_handed",
                                  kEverySizeHandedSteps);
}

// Large blocks churned as a thread exits: a pthread key of the test's, made
// after the allocator's (so that its destructor runs after the allocator's
// ThreadExit() in each round, as glibc runs them in key order), allocates
// 4 blocks of 8 MiB live at once and frees them. The thread had freed a
// large block before: whatever its exit noted of that, the blocks freed
// after it must go back too (thread_exit.h: the hook arms again and runs
// again).
constexpr int kLargeAsTheyExitThreads = 8;

// The key's destructor: `failures`, the key's value, counts the blocks
// that could not be had.
void ChurnLargeWhileExiting(void* failures) {
  int failed = 0;
  ChurnLive(kEightMiB, kEightMiBLive, failed);
  static_cast<std::atomic<int>*>(failures)->fetch_add(failed);
}

constexpr ChurnStep kLargeAsTheyExitSteps[] = {
    {"8 threads one after another, each allocating and freeing one block of "
     "8 MiB, then exiting; as each exits, after the allocator's exit hook (a "
     "pthread key's destructor), it allocates 4 blocks of 8 MiB live at once "
     "and frees them",
     [](int& failed) {
       Free(Allocate(kSmallFirst, 1, false));  // the allocator's key first
       pthread_key_t key;
       if (pthread_key_create(&key, ChurnLargeWhileExiting) != 0) {
         ++failed;
         return;
       }
       std::atomic<int> failures{0};
       for (int t = 0; t < kLargeAsTheyExitThreads; ++t) {
         OnAThread([&] {
           ChurnLive(kEightMiB, 1, failed);
           pthread_setspecific(key, &failures);
         });
       }
       failed += failures.load();
     }},
};

void LargeAsTheyExitCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kLargeAsTheyExitSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_large_as_they_exit",
                    LargeAsTheyExitCall);

TEST(DesignThreadChurn, ThreadsThatChurnLargeBlocksAsTheyExitLeaveLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_large_as_they_exit",
                                  kLargeAsTheyExitSteps);
}

// -----------------------------------------------------------------------------
// Threads live at once, each with its own blocks, then all exiting: what each
// exit gives back must not be only a slice of what they left together, nor
// leave out the spans of any size.
// -----------------------------------------------------------------------------

// Threads live at once in these steps: 8 that each use every size (a few
// MiB each, tens together in spans of their sizes, 12 MiB of blocks), and
// 64 that each use one block just over 128 KiB (8 MiB of blocks, which the
// starter, keeping every block freed on its lists, holds; a design whose
// spans for them are larger holds several times it, unless its exits give
// them back).
constexpr int kEverySizeAtOnceThreads = 8;
constexpr int kOneSizeAtOnceThreads = 64;
constexpr size_t kJustOver128KiB = 128 * kKiB + 1;

// `threads` threads live at once, each allocating `blocks()` (all its
// blocks live), waiting until every thread has its own, then freeing them
// and exiting; all have exited when it returns.
template <typename Blocks>
void AtOnce(int threads, Blocks blocks) {
  std::barrier live(threads);
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&] {
      std::vector<char*> mine = blocks();
      live.arrive_and_wait();  // every thread's blocks live at once
      FreeAll(mine);
    });
  }
  for (std::thread& thread : running) thread.join();
}

constexpr ChurnStep kAtOnceEverySizeSteps[] = {
    {"8 threads live at once, each allocating one block of each class edge "
     "size from 16 bytes to 256 KiB (all live at once), then, once every "
     "thread has its blocks, freeing them and exiting",
     [](int& failed) {
       std::vector<int> failures(kEverySizeAtOnceThreads, 0);
       std::atomic<int> next{0};
       AtOnce(kEverySizeAtOnceThreads,
              [&] { return AllocateOneOfEachSize(failures[next++]); });
       for (int f : failures) failed += f;
     }},
};

void AtOnceEverySizeCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kAtOnceEverySizeSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_at_once_every_size",
                    AtOnceEverySizeCall);

TEST(DesignThreadChurn, ThreadsLiveAtOnceThatEachUsedEverySizeLeaveLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_at_once_every_size",
                                  kAtOnceEverySizeSteps);
}

constexpr ChurnStep kAtOnceOneSizeSteps[] = {
    {"64 threads live at once, each allocating one block of 128 KiB + 1 "
     "bytes, then, once every thread has its block, freeing it and exiting",
     [](int& failed) {
       std::vector<int> failures(kOneSizeAtOnceThreads, 0);
       std::atomic<int> next{0};
       AtOnce(kOneSizeAtOnceThreads, [&] {
         return AllocateLive(kJustOver128KiB, 1, failures[next++]);
       });
       for (int f : failures) failed += f;
     }},
};

void AtOnceOneSizeCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kAtOnceOneSizeSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_at_once_one_size",
                    AtOnceOneSizeCall);

TEST(DesignThreadChurn,
     ThreadsLiveAtOnceThatEachUsedOneLargeSizeLeaveLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_at_once_one_size",
                                  kAtOnceOneSizeSteps);
}

// Producers that exit with their blocks out, and consumers that free them:
// kOneSizeAtOnceThreads threads live at once each allocate one block of
// 256 KiB and exit with it live; then as many threads each free one and
// exit, or one thread frees them all and exits. Every thread allocated,
// freed or both, and exited: what their blocks held must go back as the
// last of them exits, though no thread that allocated them is left.
constexpr size_t kHandedOnBytes = 256 * kKiB;

// kOneSizeAtOnceThreads producers live at once, each allocating one block
// of kHandedOnBytes and exiting with it live; their blocks.
std::vector<char*> ProducersExitWithTheirBlocks(int& failed) {
  std::vector<char*> blocks(kOneSizeAtOnceThreads, nullptr);
  std::vector<int> failures(kOneSizeAtOnceThreads, 0);
  std::barrier live(kOneSizeAtOnceThreads);
  std::vector<std::thread> producers;
  for (int t = 0; t < kOneSizeAtOnceThreads; ++t) {
    producers.emplace_back([&, t] {
      std::vector<char*> mine = AllocateLive(kHandedOnBytes, 1, failures[t]);
      if (!mine.empty()) blocks[t] = mine[0];
      live.arrive_and_wait();  // every producer's block live at once
    });
  }
  for (std::thread& thread : producers) thread.join();
  for (int f : failures) failed += f;
  return blocks;
}

constexpr ChurnStep kHandedOnSteps[] = {
    {"64 threads live at once, each allocating one block of 256 KiB and "
     "exiting with it live; then 64 threads, each freeing one of them and "
     "exiting",
     [](int& failed) {
       const std::vector<char*> blocks = ProducersExitWithTheirBlocks(failed);
       std::vector<std::thread> consumers;
       for (char* p : blocks) consumers.emplace_back([p] { Free(p); });
       for (std::thread& thread : consumers) thread.join();
     }},
    {"the same, the blocks freed by one thread that then exits",
     [](int& failed) {
       const std::vector<char*> blocks = ProducersExitWithTheirBlocks(failed);
       OnAThread([&] { FreeAll(blocks); });
     }},
};

void HandedOnCall(alloclab::FreshCall& call) {
  RunChurnSteps(call, kHandedOnSteps);
}
ALLOCLAB_FRESH_CALL("allocator_design_churn_handed_on", HandedOnCall);

TEST(DesignThreadChurn,
     ThreadsThatExitedWithTheirBlocksOutThenThoseThatFreedThemLeaveLittleHeld) {
  ExpectChurnStepsLeaveLittleHeld("allocator_design_churn_handed_on",
                                  kHandedOnSteps);
}

}  // namespace
}  // namespace allocator_design
