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
// them once every thread has gone.
//
// The bytes held are judged by the suite's oracle (held.h): the largest of
// the allocator's own count, the page source's (mapped, less unmapped and
// released) and the resident bytes of the page source's live mappings. The
// page source's clock stands still, so that no decay (promise 2) gives back
// what the exits should have.

#include <barrier>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"
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
    "free and exit leave at most kThreadChurnHeldBytes held, however many "
    "there were (blocks of any size)";

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

// One wave: kLargeChurnThreads threads, thread t in round r churning
// `size_of(t, r)`; all have exited when it returns. Counts the blocks that
// could not be had in `failed`.
template <typename SizeOf>
void LargeChurnWave(SizeOf size_of, int& failed) {
  std::barrier live(kLargeChurnThreads);
  std::vector<int> failures(kLargeChurnThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kLargeChurnThreads; ++t) {
    threads.emplace_back([&, t] {
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

}  // namespace
}  // namespace allocator_design
