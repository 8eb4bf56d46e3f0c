// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Promise 6 of lab allocator_design while the page source refuses, part of
// the same suite as task_test.cc and linked with it against each
// implementation: a Design test.
//
// Promise 6 (task.h) holds for two threads that both run and each free only
// blocks they allocated themselves, whatever the page source does. When it
// refuses, Allocate() may give nullptr (task.h: "nullptr when it cannot be
// had: the page source refuses"); what it must not do is find the room for a
// thread's blocks on another thread's lines. The fixed test of promise 6
// (DesignOwnLines.TwoThreadsNeverShareALineOfLiveBlocks) maps as it likes;
// this one has a thread run out of its own memory while no map succeeds,
// beside another thread whose spans have room, and both go on allocating.
//
// Which spans a thread has depends on what the allocator already holds: the
// check runs in a fresh copy of this binary (common/harness/fresh_process.h),
// and makes every call in a fixed order, one thread at a time, so that what it
// finds is a fact of the design, not of the scheduler.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/machine/cpu_facts.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/task.h"
#include "tests/allocator_design/run_fresh.h"
#include "tests/allocator_design/suite_support.h"

namespace allocator_design {
namespace {

constexpr absl::string_view kRuleOwnLinesRefused =
    "task.h, promise 6 (threads keep to their own cache lines): of two "
    "threads that both run and each free only blocks they allocated "
    "themselves, no cache line holds bytes of live blocks of both, at any "
    "size and alignment; while the page source refuses, Allocate() may give "
    "nullptr, "
    "never room on the other thread's lines";

// The sizes checked, one after the other: four blocks to a 64-byte line,
// and one that straddles lines.
constexpr size_t kRefusedLineSizes[] = {16, 48};
// Blocks thread A allocates with maps allowed, of which it frees every
// other one (so its spans hold its live blocks and free room between them),
// and thread B allocates: several refills each.
constexpr int kRefusedLineBlocks = 3000;
// The most a thread allocates in one turn while the page source refuses: far
// more than a span of the smallest size holds, so that a design keeping no
// hidden reserve runs out, and a bound for one that does.
constexpr int kMostRefusedBlocks = 1 << 16;

// The steps, in order, for each size: A allocates and frees every other
// block of its own; B allocates; the page source refuses; B allocates until
// Allocate() gives nullptr, then A does, then B again; the page source maps
// again, and each frees its blocks. The lines are checked after every
// step.
enum class Step {
  kAAllocates,
  kAFreesEveryOther,
  kBAllocates,
  kRefuse,
  kBAllocatesWhileRefused,
  kAAllocatesWhileRefused,
  kBAllocatesAgainWhileRefused,
  kMapAgain,
  kBFreesAll,
};
constexpr Step kSteps[] = {
    Step::kAAllocates,
    Step::kAFreesEveryOther,
    Step::kBAllocates,
    Step::kRefuse,
    Step::kBAllocatesWhileRefused,
    Step::kAAllocatesWhileRefused,
    Step::kBAllocatesAgainWhileRefused,
    Step::kMapAgain,
    Step::kBFreesAll,
};
constexpr int kStepCount = sizeof(kSteps) / sizeof(kSteps[0]);

const char* DescribeStep(int step) {
  switch (step < 0 || step >= kStepCount ? Step::kBFreesAll : kSteps[step]) {
    case Step::kAAllocates:
      return "thread A allocated its blocks (maps allowed)";
    case Step::kAFreesEveryOther:
      return "thread A freed every other one of its blocks";
    case Step::kBAllocates:
      return "thread B allocated its blocks (maps allowed)";
    case Step::kRefuse:
      return "the page source began to refuse";
    case Step::kBAllocatesWhileRefused:
      return "thread B allocated until Allocate() gave nullptr, every map "
             "refused";
    case Step::kAAllocatesWhileRefused:
      return "thread A allocated until Allocate() gave nullptr, every map "
             "refused";
    case Step::kBAllocatesAgainWhileRefused:
      return "thread B allocated again until Allocate() gave nullptr, every "
             "map refused";
    case Step::kMapAgain:
      return "the page source mapped again and thread A freed its blocks";
    case Step::kBFreesAll:
      return "thread B freed its blocks";
  }
  return "";
}

// Allocates up to `most` blocks of `size` bytes into `mine`, stopping at the
// first nullptr; returns whether there was one.
bool AllocateUntilNullptr(size_t size, int most, std::vector<void*>& mine) {
  for (int i = 0; i < most; ++i) {
    void* p = Allocate(size, 1, false);
    if (p == nullptr) return true;
    mine.push_back(p);
  }
  return false;
}

// Thread `t` (0: A, 1: B) runs step `step` of size `size`; `live[t]` are
// its live blocks. Returns the steps whose Allocate() gave nullptr with maps
// allowed (0 or 1).
int RunStep(Step step, int t, size_t size, std::vector<void*> live[2],
            std::optional<internal::ScopedMapRefusal>& refusal,
            int& refused_nullptrs) {
  std::vector<void*>& mine = live[t];
  int failed = 0;
  switch (step) {
    case Step::kAAllocates:
    case Step::kBAllocates:
      if (AllocateUntilNullptr(size, kRefusedLineBlocks, mine)) ++failed;
      break;
    case Step::kAFreesEveryOther: {
      std::vector<void*> kept;
      for (size_t i = 0; i < mine.size(); ++i) {
        if (i % 2 == 0) {
          Free(mine[i]);
        } else {
          kept.push_back(mine[i]);
        }
      }
      mine.swap(kept);
      break;
    }
    case Step::kRefuse:
      refusal.emplace();
      break;
    case Step::kBAllocatesWhileRefused:
    case Step::kAAllocatesWhileRefused:
    case Step::kBAllocatesAgainWhileRefused:
      if (AllocateUntilNullptr(size, kMostRefusedBlocks, mine)) {
        ++refused_nullptrs;
      }
      break;
    case Step::kMapAgain:
      refusal.reset();
      for (void* p : mine) Free(p);
      mine.clear();
      break;
    case Step::kBFreesAll:
      for (void* p : mine) Free(p);
      mine.clear();
      break;
  }
  return failed;
}

// The lines of `line_bytes` that hold bytes of a block of `live[0]` and of a
// block of `live[1]` (blocks of `size` bytes): how many, and the first
// found.
struct Shared {
  uint64_t lines = 0;
  uintptr_t first = 0;
};

Shared SharedLinesOf(const std::vector<void*> live[2], size_t size,
                     uintptr_t line_bytes) {
  std::unordered_set<uintptr_t> lines_of_a;
  for (void* p : live[0]) {
    const uintptr_t start = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t line = start / line_bytes;
         line <= (start + size - 1) / line_bytes; ++line) {
      lines_of_a.insert(line);
    }
  }
  Shared shared;
  std::unordered_set<uintptr_t> counted;
  for (void* p : live[1]) {
    const uintptr_t start = reinterpret_cast<uintptr_t>(p);
    for (uintptr_t line = start / line_bytes;
         line <= (start + size - 1) / line_bytes; ++line) {
      if (lines_of_a.count(line) == 0 || !counted.insert(line).second) {
        continue;
      }
      if (shared.lines++ == 0) shared.first = line * line_bytes;
    }
  }
  return shared;
}

// In a fresh process: threads A and B, both alive throughout, take the steps
// of every size of kRefusedLineSizes in turn, one thread at a time (a turn
// is a lock's: the other waits for it); the lines (of `arg` bytes) are
// checked after every step, neither thread in the allocator. Records
// "failed" (steps that got nullptr with maps allowed), "refused_nullptrs"
// (nullptr while the page source refused), "refused" (maps it refused),
// "sharing_steps" and, for the first step after which a line held live blocks
// of both, "size", "step", "lines" and "line" (its address).
void OwnLinesRefusedCall(alloclab::FreshCall& call) {
  uintptr_t line_bytes = 0;
  if (!absl::SimpleAtoi(call.arg(), &line_bytes) || line_bytes == 0) {
    call.Fail(absl::StrCat("not a line size: '", call.arg(), "'"));
    return;
  }
  // The decay's clock stands still: no flush of a cache in the middle.
  internal::ScopedFakeClock clock;
  std::optional<internal::ScopedMapRefusal> refusal;
  uint64_t refused = 0;
  std::vector<void*> live[2];
  std::mutex mu;
  std::condition_variable turned;
  int turn = 0;  // the step of all sizes now
  int failed = 0, refused_nullptrs = 0, sharing_steps = 0;
  int first_step = -1;
  size_t first_size = 0;
  Shared first;
  constexpr int kTurns =
      kStepCount * static_cast<int>(sizeof(kRefusedLineSizes) /
                                    sizeof(kRefusedLineSizes[0]));
  auto run = [&](int me) {
    for (int t = 0; t < kTurns; ++t) {
      const int step = t % kStepCount;
      const size_t size = kRefusedLineSizes[t / kStepCount];
      const Step what = kSteps[step];
      const int whose = what == Step::kAAllocates ||
                                what == Step::kAFreesEveryOther ||
                                what == Step::kAAllocatesWhileRefused ||
                                what == Step::kRefuse || what == Step::kMapAgain
                            ? 0
                            : 1;
      if (whose != me) continue;
      std::unique_lock<std::mutex> lock(mu);
      turned.wait(lock, [&] { return turn == t; });
      if (what == Step::kMapAgain && refusal.has_value()) {
        refused += refusal->refused();
      }
      failed += RunStep(what, me, size, live, refusal, refused_nullptrs);
      const Shared shared = SharedLinesOf(live, size, line_bytes);
      if (shared.lines != 0) {
        ++sharing_steps;
        if (first_step < 0) {
          first_step = step;
          first_size = size;
          first = shared;
        }
      }
      ++turn;
      turned.notify_all();
    }
  };
  // Each frees only blocks it allocated itself.
  std::thread a(run, 0);
  std::thread b(run, 1);
  a.join();
  b.join();
  call.Record("failed", failed);
  call.Record("refused_nullptrs", refused_nullptrs);
  call.Record("refused", static_cast<double>(refused));
  call.Record("sharing_steps", sharing_steps);
  call.Record("size", static_cast<double>(first_size));
  call.Record("step", first_step);
  call.Record("lines", static_cast<double>(first.lines));
  call.Record("line", static_cast<double>(first.first));
}
ALLOCLAB_FRESH_CALL("allocator_design_own_lines_refused", OwnLinesRefusedCall);

TEST(DesignOwnLines, TwoThreadsKeepToTheirOwnLinesWhileThePageSourceRefuses) {
  const uintptr_t line_bytes = suite::OwnLineBytes();
  absl::StatusOr<alloclab::FreshCallResult> r = suite::RunFresh(
      "allocator_design_own_lines_refused", absl::StrCat(line_bytes));
  ASSERT_TRUE(r.ok()) << r.status();
  RecordProperty("refused", absl::StrCat(r->values["refused"]));
  RecordProperty("refused_nullptrs",
                 absl::StrCat(r->values["refused_nullptrs"]));
  EXPECT_EQ(r->values["failed"], 0)
      << "task.h, Allocate(): nullptr only when the page source refuses, or "
         "the size is so large that rounding it up would overflow (maps "
         "were allowed)";
  EXPECT_EQ(r->values["sharing_steps"], 0)
      << kRuleOwnLinesRefused << ": in a fresh process, two threads took "
      << "turns (thread A allocated " << kRefusedLineBlocks << " blocks and "
      << "freed every other one, thread B allocated " << kRefusedLineBlocks
      << ", then, every map refused, each allocated until Allocate() gave "
      << "nullptr); after " << r->values["sharing_steps"] << " of those "
      << "steps, lines of " << line_bytes
      << " bytes (kOwnLineBytes, or this machine's line when "
      << "larger) held live blocks of both threads: first for blocks of "
      << r->values["size"] << " bytes, after the step where "
      << DescribeStep(static_cast<int>(r->values["step"])) << " ("
      << r->values["lines"] << " lines, the first at "
      << absl::StrCat(absl::Hex(static_cast<uint64_t>(r->values["line"])))
      << ")";
}

}  // namespace
}  // namespace allocator_design
