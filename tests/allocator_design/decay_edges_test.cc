// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Promise 2 of labs/allocator_design/task.h at its exact edges, part of the
// same suite as task_test.cc and linked with it against each
// implementation: "once every block is freed and kDecayNs has passed on the
// page source's clock (NowNs()), the thread that next makes kDecayCheckOps
// calls leaves at most kIdleHeldBytes held". task_test.cc's DesignDecay
// tests let 1.25 or 2 times kDecayNs pass; DesignDecayExplorer meets the
// edges below on some schedules only. Here each is a fixed test:
//
//   - idle exactly kDecayNs: the time "has passed" once the clock reads the
//     free's time plus kDecayNs, not only after it;
//   - exactly kDecayCheckOps calls, starting just after the call in which
//     the thread last looked at the clock (found by watching the bytes
//     held drop call by call): a thread that looks once per
//     kDecayCheckOps + 1 calls misses it;
//   - two waves of frees, the second kDecayNs / 32 after the first, around
//     a decay pass that gives the first back: the second goes back
//     kDecayNs after its own free, not a while after that pass.
//
// The bytes held are judged by the suite's oracle (held.h). Each check
// runs in a fresh process on the fake clock (internal/pages_testing.h),
// which moves only when told.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/task.h"
#include "tests/allocator_design/held.h"
#include "tests/allocator_design/run_fresh.h"

namespace allocator_design {
namespace {

using ::allocator_design::suite::ReadHeldNow;
using ::allocator_design::suite::RunFresh;

constexpr absl::string_view kRuleDecayEdge =
    "task.h, promise 2 (idle memory goes back): once every block is freed "
    "and kDecayNs has passed on the page source's clock (NowNs()), the "
    "thread that next makes kDecayCheckOps calls (any calls, allocations "
    "alone too) leaves at most kIdleHeldBytes held";

constexpr size_t kKiB = 1024;

// A wave of frees: kWaveBlocks blocks of kWaveBlockBytes (16 MiB and a
// block, four times kIdleHeldBytes), allocated and freed by this thread.
constexpr int kWaveBlocks = static_cast<int>(kDecayCheckOps) + 1;
constexpr size_t kWaveBlockBytes = 16 * kKiB;
static_assert(kWaveBlocks * kWaveBlockBytes / 2 > kIdleHeldBytes,
              "half a wave must be more than may stay held");

// FreeAWave()
//
// Allocates `count` blocks of kWaveBlockBytes and frees them (2 * `count`
// calls), writing the first byte of each; false when one could not be had.
bool FreeAWave(int count = kWaveBlocks) {
  std::vector<void*> blocks(count);
  bool ok = true;
  for (void*& p : blocks) {
    p = Allocate(kWaveBlockBytes, 1, false);
    if (p == nullptr) {
      ok = false;
    } else {
      static_cast<char*>(p)[0] = 1;
    }
  }
  for (void* p : blocks) Free(p);
  return ok;
}

// CheckingCalls()
//
// kDecayCheckOps calls, allocations only (of 64 bytes), into `blocks`, for
// the caller to free after it has read what is held.
void CheckingCalls(std::vector<void*>& blocks) {
  for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
    blocks.push_back(Allocate(64, 1, false));
  }
}

void FreeAll(std::vector<void*>& blocks) {
  for (void* p : blocks) Free(p);
  blocks.clear();
}

// Idle exactly kDecayNs: a wave freed, the clock moved by exactly kDecayNs,
// then kDecayCheckOps allocations. Records "held_before" and "held_after"
// (HeldNow's judged) and "failed".
void DecayExactlyCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  call.Record("failed", FreeAWave() ? 0 : 1);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  std::vector<void*> checking;
  CheckingCalls(checking);
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  FreeAll(checking);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_exactly", DecayExactlyCall);

TEST(DesignDecay, IdleForExactlyKDecayNsGoesBack) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_exactly");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["failed"], 0) << "Allocate() failed";
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecayEdge << " (\"once kDecayNs has passed\": when the clock "
      << "reads the free's time plus kDecayNs, it has): a thread allocated "
      << "and freed " << kWaveBlocks << " blocks of " << kWaveBlockBytes
      << " bytes (" << static_cast<int64_t>(r->values["held_before"])
      << " bytes held then); "
      << "exactly kDecayNs later it made " << kDecayCheckOps
      << " Allocate(64) calls, and "
      << static_cast<int64_t>(r->values["held_after"])
      << " bytes were held, by the largest of the suite's three counts "
      << "(kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Exactly kDecayCheckOps calls, in the phase just after a look at the
// clock. First a wave is freed, the clock moves by kDecayNs, and this
// thread allocates 64 bytes a call, reading what is held after each: the
// call after which it is at most kIdleHeldBytes is one in which the thread
// looked at the clock ("tick_call", at most kDecayCheckOps). Then it frees
// those blocks and another wave, sized so that the calls since that look
// are a multiple of kDecayCheckOps + 1 (2 or 3 times): a thread that looks
// once per kDecayCheckOps + 1 calls has just looked again when they end,
// and its next look is one call past the kDecayCheckOps checking calls
// that follow kDecayNs later. Any window of kDecayCheckOps calls has a look
// for a thread that keeps the promise. Records "tick_call", "wave",
// "held_before" and "held_after".
void DecayTickPhaseCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  bool ok = FreeAWave();
  clock.Advance(kDecayNs);
  std::vector<void*> first;
  int tick_call = 0;
  for (uint64_t i = 1; i <= 2 * kDecayCheckOps; ++i) {
    first.push_back(Allocate(64, 1, false));
    if (ReadHeldNow().judged <= kIdleHeldBytes) {
      tick_call = static_cast<int>(i);
      break;
    }
  }
  call.Record("tick_call", tick_call);
  if (tick_call == 0) return;  // nothing went back: the test says so
  FreeAll(first);              // tick_call calls
  const int period = static_cast<int>(kDecayCheckOps) + 1;
  const int since = tick_call % 2 == 0 ? 2 * period : 3 * period;
  const int wave = (since - tick_call) / 2;
  call.Record("wave", wave);
  ok = FreeAWave(wave) && ok;  // `since` calls since the look
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  std::vector<void*> checking;
  CheckingCalls(checking);
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  call.Record("failed", ok ? 0 : 1);
  FreeAll(checking);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_tick_phase", DecayTickPhaseCall);

TEST(DesignDecay, KDecayCheckOpsCallsAreEnoughInThePhaseJustAfterALook) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_tick_phase");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["failed"], 0) << "Allocate() failed";
  ASSERT_GE(r->values["tick_call"], 1)
      << kRuleDecayEdge << ": a thread allocated and freed " << kWaveBlocks
      << " blocks of " << kWaveBlockBytes << " bytes; kDecayNs later, "
      << "after each of its next " << 2 * kDecayCheckOps << " Allocate(64) "
      << "calls more than kIdleHeldBytes (" << kIdleHeldBytes
      << ") was still held";
  EXPECT_LE(r->values["tick_call"], kDecayCheckOps)
      << kRuleDecayEdge << ": a thread allocated and freed " << kWaveBlocks
      << " blocks of " << kWaveBlockBytes << " bytes; kDecayNs later, it "
      << "took " << static_cast<int64_t>(r->values["tick_call"])
      << " Allocate(64) calls, more "
      << "than kDecayCheckOps (" << kDecayCheckOps << "), to hold at most "
      << "kIdleHeldBytes";
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecayEdge << " (kDecayCheckOps: a thread looks at the clock "
      << "at least once per this many calls, in any phase): a thread looked "
      << "at the clock in its call "
      << static_cast<int64_t>(r->values["tick_call"]) << " (what "
      << "it held fell there), then freed those blocks, and allocated and "
      << "freed " << static_cast<int64_t>(r->values["wave"]) << " blocks of "
      << kWaveBlockBytes << " bytes, "
      << static_cast<int64_t>(r->values["tick_call"] + 2 * r->values["wave"])
      << " calls since that look ("
      << static_cast<int64_t>(r->values["held_before"])
      << " bytes held then); exactly kDecayNs later its next " << kDecayCheckOps
      << " calls left " << static_cast<int64_t>(r->values["held_after"])
      << " bytes held (kIdleHeldBytes = " << kIdleHeldBytes << ")";
}

// Two waves around a pass: a wave freed, another kDecayNs / 32 later; at
// exactly kDecayNs after the first, kDecayCheckOps allocations (a decay
// pass there gives the first wave back, the second not yet idle for
// kDecayNs); at exactly kDecayNs after the second, kDecayCheckOps
// allocations more. Records "held_before" (both waves freed),
// "held_between" and "held_after".
constexpr uint64_t kSecondWaveAfterNs = kDecayNs / 32;

void DecayWavesAroundAPassCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  bool ok = FreeAWave();
  clock.Advance(kSecondWaveAfterNs);
  ok = FreeAWave() && ok;
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs - kSecondWaveAfterNs);
  std::vector<void*> first, second;
  CheckingCalls(first);
  call.Record("held_between", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kSecondWaveAfterNs);
  CheckingCalls(second);
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  call.Record("failed", ok ? 0 : 1);
  FreeAll(second);
  FreeAll(first);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_waves_around_a_pass",
                    DecayWavesAroundAPassCall);

TEST(DesignDecay, EachWaveGoesBackKDecayNsAfterItsOwnFree) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_waves_around_a_pass");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["failed"], 0) << "Allocate() failed";
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecayEdge << " (idle time counts from the free): a thread "
      << "freed " << kWaveBlocks << " blocks of " << kWaveBlockBytes
      << " bytes, and as many again kDecayNs / 32 later ("
      << static_cast<int64_t>(r->values["held_before"])
      << " bytes held then); exactly kDecayNs "
      << "after the first wave it made " << kDecayCheckOps << " Allocate(64) "
      << "calls (" << static_cast<int64_t>(r->values["held_between"])
      << " bytes held: the first "
      << "wave was due), and exactly kDecayNs after the second, "
      << kDecayCheckOps << " more, which left "
      << static_cast<int64_t>(r->values["held_after"])
      << " bytes held (kIdleHeldBytes = " << kIdleHeldBytes << "): the "
      << "second wave is due kDecayNs after its own free, whenever the "
      << "pass that gave back the first was";
}

}  // namespace
}  // namespace allocator_design
