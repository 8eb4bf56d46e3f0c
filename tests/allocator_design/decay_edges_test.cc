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
//     kDecayNs after its own free, not a while after that pass;
//   - a thread that only freed, whose checking calls fill its cache past
//     any bound it keeps in bytes: what it then gives back of what it kept
//     is idle since its free, not since the checking calls.
//
// The bytes held are judged by the suite's oracle (held.h). Each check
// runs in a fresh process on the fake clock (internal/pages_testing.h),
// which moves only when told.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/task.h"
#include "tests/allocator_design/held.h"
#include "tests/allocator_design/run_fresh.h"
#include "tests/allocator_design/suite_support.h"

namespace allocator_design {
namespace {

using ::allocator_design::suite::IdleBound;
using ::allocator_design::suite::kRuleDecayOwner;
using ::allocator_design::suite::ReadHeldNow;
using ::allocator_design::suite::RunFresh;
using ::allocator_design::suite::ScheduledThread;

constexpr absl::string_view kRuleDecayEdge =
    "task.h, promise 2 (idle memory goes back): once every block is freed "
    "and kDecayNs has passed on the page source's clock (NowNs()), the "
    "thread that next makes kDecayCheckOps calls (any calls: Allocate() and "
    "Free() of blocks of any size, alignment or kind, allocations alone "
    "too) leaves at most kIdleHeldBytes held";

constexpr size_t kKiB = 1024;

// A wave of frees: kWaveBlocks blocks of kWaveBlockBytes (16 MiB and a
// block, four times kIdleHeldBytes), allocated and freed by this thread.
constexpr int kWaveBlocks = static_cast<int>(kDecayCheckOps) + 1;
constexpr size_t kWaveBlockBytes = 16 * kKiB;
static_assert(kWaveBlocks * kWaveBlockBytes / 2 > kIdleHeldBytes,
              "half a wave must be more than may stay held");

// FreeAWave()
//
// Allocates `count` blocks of `bytes` and frees them (2 * `count` calls),
// writing the first byte of each; false when one could not be had.
bool FreeAWave(int count = kWaveBlocks, size_t bytes = kWaveBlockBytes) {
  std::vector<void*> blocks(count);
  bool ok = true;
  for (void*& p : blocks) {
    p = Allocate(bytes, 1, false);
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

// Idle exactly kDecayNs, the wave in many sizes: groups of kManySizesGroup
// blocks of each of 16 sizes from 16 KiB to 241 KiB, allocated then freed
// (whatever a thread keeps for itself of each size, it keeps of all 16:
// more than kIdleHeldBytes in all where a single size stays under it),
// the clock moved by exactly kDecayNs, then kDecayCheckOps allocations.
// Records "held_before", "held_after" and "failed".
constexpr int kManySizesGroup = 64;
constexpr size_t kManySizesFirst = 16 * kKiB;
constexpr size_t kManySizesStep = 15 * kKiB;
constexpr int kManySizes = 16;

void DecayExactlyManySizesCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  bool ok = true;
  for (int i = 0; i < kManySizes; ++i) {
    ok = FreeAWave(kManySizesGroup, kManySizesFirst + i * kManySizesStep) && ok;
  }
  call.Record("failed", ok ? 0 : 1);
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  std::vector<void*> checking;
  CheckingCalls(checking);
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  FreeAll(checking);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_exactly_many_sizes",
                    DecayExactlyManySizesCall);

TEST(DesignDecay, IdleForExactlyKDecayNsGoesBackInEverySize) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_exactly_many_sizes");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["failed"], 0) << "Allocate() failed";
  EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
      << kRuleDecayEdge << " (\"once kDecayNs has passed\": when the clock "
      << "reads the free's time plus kDecayNs, it has): a thread allocated "
      << "and freed groups of " << kManySizesGroup << " blocks of "
      << kManySizes << " sizes from " << kManySizesFirst << " bytes ("
      << static_cast<int64_t>(r->values["held_before"])
      << " bytes held then); exactly kDecayNs later it made " << kDecayCheckOps
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

// ---------------------------------------------------------------------------
// The checking calls of every kind: "any calls" are Allocate() and Free()
// of blocks of any size, alignment and kind. Free(nullptr) is ignored
// (task.h's Free()): no test counts it as a call. Nor are the checking
// calls ever frees alone: their blocks would be live when kDecayNs passes,
// before "every block is freed"; the last half of one kind's are.
// ---------------------------------------------------------------------------

// Above promise 1's 256 KiB, where a block may be a mapping of its own.
constexpr size_t kLargeBlockBytes = 300 * kKiB;

// CheckingKind
//
// One kind of checking calls: kDecayCheckOps calls that leave no block
// live, Allocate(size, alignment, zero) and Free() in pairs, or (`halves`)
// kDecayCheckOps / 2 allocations and then their frees, frees alone last.
struct CheckingKind {
  const char* name;
  size_t size;
  size_t alignment;
  bool zero;
  bool halves;
};

constexpr CheckingKind kCheckingKinds[] = {
    {"small", 64, 1, false, false},
    {"zeroed", 64, 1, true, false},
    {"aligned_64", 64, 64, false, false},
    {"aligned_1mib", 64, 1 << 20, false, false},
    {"large", kLargeBlockBytes, 1, false, false},
    {"large_zeroed_aligned_4kib", kLargeBlockBytes, 4 * kKiB, true, false},
    {"allocations_then_frees", 64, 1, false, true},
};
static_assert(kDecayCheckOps % 2 == 0, "the checking calls come in pairs");

// Describe()
//
// A kind's calls, for a failure's message.
std::string Describe(const CheckingKind& k) {
  return absl::StrCat(
      k.halves ? absl::StrCat(kDecayCheckOps / 2, " calls of ") : std::string(),
      "Allocate(", k.size, ", ", k.alignment,
      ", zero=", k.zero ? "true" : "false", ")",
      k.halves ? absl::StrCat(", then ", kDecayCheckOps / 2,
                              " of Free() on those blocks")
               : " and Free() in pairs");
}

// CheckingCallsOf()
//
// kDecayCheckOps calls of kind `k`, every block freed by the last of them;
// false when an allocation failed.
bool CheckingCallsOf(const CheckingKind& k) {
  bool ok = true;
  void* blocks[kDecayCheckOps / 2];
  for (void*& p : blocks) {
    p = Allocate(k.size, k.alignment, k.zero);
    ok = ok && p != nullptr;
    if (!k.halves) Free(p);
  }
  if (k.halves) {
    for (void* p : blocks) Free(p);
  }
  return ok;
}

// The checking calls of `call.arg()`'s kind, from a thread that has just
// looked at the clock. A wave is freed (by this thread, which runs on), the
// clock moves by kDecayNs, and another thread makes pairs of Allocate(64)
// and Free(), reading what is held after each: the call after which it is
// at most kIdleHeldBytes is one in which that thread looked ("look_call",
// at most kDecayCheckOps), and it frees its block if it has one
// ("calls_since_look", 0 or 1). Then this thread frees another wave, the
// clock moves by kDecayNs again, and the other thread makes its
// kDecayCheckOps calls of the kind: a design that leaves a kind out of its
// count of calls makes fewer, and does not look again. Records "look_call",
// "calls_since_look", "held_before" (the second wave freed), "held_after"
// and "failed".
void DecayCheckingKindCall(alloclab::FreshCall& call) {
  const CheckingKind* kind = nullptr;
  for (const CheckingKind& k : kCheckingKinds) {
    if (call.arg() == k.name) kind = &k;
  }
  call.Record("failed", 1);
  if (kind == nullptr) return;
  internal::ScopedFakeClock clock;
  bool ok = FreeAWave();
  clock.Advance(kDecayNs);
  suite::ScheduledThread checker;
  int look_call = 0;
  int since = 0;
  checker.Run([&] {
    void* p = nullptr;
    for (uint64_t i = 1; i <= 2 * kDecayCheckOps; ++i) {
      if (p == nullptr) {
        p = Allocate(64, 1, false);
        ok = ok && p != nullptr;
      } else {
        Free(p);
        p = nullptr;
      }
      if (ReadHeldNow().judged <= kIdleHeldBytes) {
        look_call = static_cast<int>(i);
        break;
      }
    }
    if (p != nullptr) {
      Free(p);
      since = 1;
    }
  });
  call.Record("look_call", look_call);
  call.Record("calls_since_look", since);
  call.Record("failed", ok ? 0 : 1);
  if (look_call == 0) return;  // nothing went back: the test says so
  ok = FreeAWave() && ok;
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  checker.Run([&] { ok = CheckingCallsOf(*kind) && ok; });
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  call.Record("failed", ok ? 0 : 1);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_checking_kind",
                    DecayCheckingKindCall);

TEST(DesignDecay, CheckingCallsOfEveryKindCount) {
  for (const CheckingKind& kind : kCheckingKinds) {
    SCOPED_TRACE(kind.name);
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_decay_checking_kind", kind.name);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->values["failed"], 0) << "Allocate() failed";
    if (r->values["look_call"] < 1) {
      ADD_FAILURE() << kRuleDecayEdge << ": a thread allocated and freed "
                    << kWaveBlocks << " blocks of " << kWaveBlockBytes
                    << " bytes; kDecayNs later, after each of another "
                    << "thread's next " << 2 * kDecayCheckOps
                    << " calls (Allocate(64) and Free() in pairs) more than "
                    << "kIdleHeldBytes (" << kIdleHeldBytes
                    << ") was still held";
      continue;
    }
    EXPECT_LE(r->values["look_call"], kDecayCheckOps)
        << kRuleDecayEdge << ": a thread allocated and freed " << kWaveBlocks
        << " blocks of " << kWaveBlockBytes << " bytes; kDecayNs later, "
        << "another thread took "
        << static_cast<int64_t>(r->values["look_call"])
        << " calls (Allocate(64) and Free() in pairs), more than "
        << "kDecayCheckOps (" << kDecayCheckOps << "), to hold at most "
        << "kIdleHeldBytes";
    EXPECT_LE(r->values["held_after"], IdleBound(1, kind.size))
        << kRuleDecayEdge << " (\"any calls\": Allocate() and Free() of "
        << "blocks of every size, alignment and kind count): a thread "
        << "looked at the clock in its call "
        << static_cast<int64_t>(r->values["look_call"])
        << " (what was held fell there) and made "
        << static_cast<int64_t>(r->values["calls_since_look"])
        << " more; another, which runs on, then allocated and freed "
        << kWaveBlocks << " blocks of " << kWaveBlockBytes << " bytes ("
        << static_cast<int64_t>(r->values["held_before"])
        << " bytes held then); exactly kDecayNs later the first made "
        << kDecayCheckOps << " calls, " << Describe(kind) << ", which left "
        << static_cast<int64_t>(r->values["held_after"]) << " bytes held where "
        << IdleBound(1, kind.size)
        << " are allowed (kIdleHeldBytes, and the calls' largest block over "
        << "256 KiB beside)";
  }
}

// ---------------------------------------------------------------------------
// Waves of small and large frees kDecayNs / 2 apart.
// ---------------------------------------------------------------------------

// A wave of large frees: four blocks of 6 MiB (24 MiB, six times
// kIdleHeldBytes), each a mapping of its own (promise 1: above 256 KiB).
constexpr int kLargeWaveBlocks = 4;
constexpr size_t kLargeWaveBlockBytes = 6 * kKiB * kKiB;
static_assert(kLargeWaveBlocks * kLargeWaveBlockBytes / 2 > kIdleHeldBytes,
              "half a wave must be more than may stay held");

// WavesScenario
//
// Which wave comes first, kDecayNs / 2 before the other; whether the small
// wave's thread exits after its frees (else this thread frees it, and runs
// on); whether this thread, which frees the large wave and runs on, makes
// the checking calls itself (else a new thread does, each time).
struct WavesScenario {
  const char* name;
  bool large_first;
  bool small_thread_exits;
  bool checks_here;
};

constexpr WavesScenario kWavesScenarios[] = {
    {"small_exited_then_large", false, true, false},
    {"small_then_large_checked_by_the_freeing_thread", false, false, true},
    {"large_then_small_exited", true, true, false},
    {"large_then_small_checked_by_the_freeing_thread", true, false, true},
};

// Describe()
//
// A scenario's waves and checks, for a failure's message.
std::string Describe(const WavesScenario& w) {
  const std::string small =
      absl::StrCat(kWaveBlocks, " blocks of ", kWaveBlockBytes, " bytes",
                   w.small_thread_exits ? " (by a thread that then exited)"
                                        : " (by the thread that runs on)");
  const std::string large =
      absl::StrCat(kLargeWaveBlocks, " blocks of ", kLargeWaveBlockBytes,
                   " bytes (by a thread that runs on)");
  return absl::StrCat(
      "a wave of ", w.large_first ? large : small,
      " was freed, and kDecayNs / 2 later one of ",
      w.large_first ? small : large, "; kDecayNs after each wave's frees, ",
      w.checks_here ? "the thread that runs on" : "a new thread", " made ",
      kDecayCheckOps, " calls, Allocate(64) and Free() in pairs");
}

// The two waves of `call.arg()`'s scenario, and the checking calls kDecayNs
// after each. Records "held_before" (both waves freed), "held_between"
// (after the first checking calls), "held_after" and "failed".
void DecayWavesOfBothSizesCall(alloclab::FreshCall& call) {
  const WavesScenario* w = nullptr;
  for (const WavesScenario& s : kWavesScenarios) {
    if (call.arg() == s.name) w = &s;
  }
  call.Record("failed", 1);
  if (w == nullptr) return;
  internal::ScopedFakeClock clock;
  bool ok = true;
  auto free_small = [&] {
    if (w->small_thread_exits) {
      std::thread([&] { ok = FreeAWave() && ok; }).join();
    } else {
      ok = FreeAWave() && ok;
    }
  };
  if (w->large_first) {
    ok = FreeAWave(kLargeWaveBlocks, kLargeWaveBlockBytes) && ok;
  } else {
    free_small();
  }
  clock.Advance(kDecayNs / 2);
  if (w->large_first) {
    free_small();
  } else {
    ok = FreeAWave(kLargeWaveBlocks, kLargeWaveBlockBytes) && ok;
  }
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  // The checking calls; what is held when they end (before a new thread's
  // exit: its calls are what it leaves).
  auto check = [&] {
    auto pairs = [&] {
      for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
        void* p = Allocate(64, 1, false);
        ok = ok && p != nullptr;
        Free(p);
      }
    };
    if (w->checks_here) {
      pairs();
      return static_cast<double>(ReadHeldNow().judged);
    }
    suite::ScheduledThread checker;
    checker.Run(pairs);
    return static_cast<double>(ReadHeldNow().judged);
  };
  clock.Advance(kDecayNs / 2);  // the first wave idle for kDecayNs
  call.Record("held_between", check());
  clock.Advance(kDecayNs / 2);  // the second too
  call.Record("held_after", check());
  call.Record("failed", ok ? 0 : 1);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_waves_of_both_sizes",
                    DecayWavesOfBothSizesCall);

TEST(DesignDecay, SmallAndLargeWavesEachGoBackKDecayNsAfterTheirOwnFree) {
  for (const WavesScenario& w : kWavesScenarios) {
    SCOPED_TRACE(w.name);
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_decay_waves_of_both_sizes", w.name);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->values["failed"], 0) << "Allocate() failed";
    EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
        << kRuleDecayEdge << " (idle time counts from the free, whether the "
        << "thread that freed the blocks has exited or runs on): "
        << Describe(w) << ". " << static_cast<int64_t>(r->values["held_before"])
        << " bytes were held once both waves were freed, "
        << static_cast<int64_t>(r->values["held_between"])
        << " after the first checking calls (the first wave due), and "
        << static_cast<int64_t>(r->values["held_after"])
        << " after the second (kIdleHeldBytes = " << kIdleHeldBytes
        << "): the second wave is due kDecayNs after its own free, whether "
        << "its blocks are small or large";
  }
}

// ---------------------------------------------------------------------------
// Blocks that wait for their owner: promise 2's last sentence, "blocks that
// a thread still running allocated may wait for that thread instead ...:
// they go back once it, too, has made kDecayCheckOps calls after kDecayNs
// has passed, or has exited". Thread A allocates and then waits, alive;
// thread B frees every block, and lives on or exits. Exactly kDecayNs after
// the last free, A makes its kDecayCheckOps calls (of one kind: any calls
// count), after B's or alone, or A exits without a call and then B or a new
// thread makes them. The exception excuses no more: blocks of a thread that had
// exited before their free (decay_test.cc's ...WhenItsThreadExitedBefore
// TheFree and ...WhenTheCheckingCallsFreeOthersBlocks) and blocks the
// checking thread allocated itself (...WhenTheFreeingThreadsOnlyFreed) go
// back at the checking thread's calls, as the tests above check.
// ---------------------------------------------------------------------------

// The blocks A allocates, 16 MiB in all (four times kIdleHeldBytes): of 64
// bytes, or of sizes in turn from several classes, those over 8 KiB (the
// 1 MiB spans of the reference's classes above 16 KiB) and a large one
// (above 256 KiB: a mapping of its own) among them.
constexpr size_t kOwnerBytes = size_t{16} << 20;
constexpr size_t kOwnerMixedSizes[] = {
    64,         1000,          3000,
    9 * kKiB,   12 * kKiB + 1, 20 * kKiB + 1,
    100 * kKiB, 200 * kKiB,    kLargeBlockBytes};
static_assert(kOwnerBytes > 2 * kIdleHeldBytes,
              "half of A's blocks must be more than may stay held");

// OwnerScenario
//
// `call.arg()` split: "<sizes>,<then>", sizes "small" or "mixed"; then one
// of "after_freer:<kind>" (B makes kDecayCheckOps pairs of Allocate(64) and
// Free(), then A makes its calls), "owner_alone:<kind>" (B exits after its
// frees, and only A calls: promise 2 lets a freeing thread that runs on and
// never calls keep what it freed, in a cache of its own),
// "exit:freer" or "exit:new_thread" (A exits, then B, or a new thread once
// B too has exited after its frees, makes kDecayCheckOps pairs),
// "exit_early:freer" (A exits kDecayNs / 2 after the frees, B's pairs kDecayNs
// after them). A's kinds: "pairs" (Allocate(64) and Free()), "large_pairs" (of
// kLargeBlockBytes), "allocations" (of 64 bytes, live when the bytes held are
// read), "frees" (of 16-byte blocks a new thread allocates one at a time just
// before each).
struct OwnerScenario {
  std::string sizes;
  std::string then;
  std::string kind;
};

bool ParseOwnerScenario(absl::string_view arg, OwnerScenario& out) {
  const std::vector<std::string> parts = absl::StrSplit(arg, ',');
  if (parts.size() != 2) return false;
  const std::vector<std::string> then = absl::StrSplit(parts[1], ':');
  if (then.size() != 2) return false;
  out = {parts[0], then[0], then[1]};
  return (out.sizes == "small" || out.sizes == "mixed") &&
         (out.then == "after_freer" || out.then == "owner_alone" ||
          out.then == "exit" || out.then == "exit_early");
}

// Describe()
//
// A scenario, for a failure's message.
std::string Describe(const OwnerScenario& o) {
  std::string blocks =
      o.sizes == "small"
          ? absl::StrCat("blocks of 64 bytes, ", kOwnerBytes, " bytes in all")
          : absl::StrCat("blocks of ", absl::StrJoin(kOwnerMixedSizes, ", "),
                         " bytes in turn, ", kOwnerBytes, " bytes in all");
  std::string calls;
  if (o.kind == "pairs") {
    calls = absl::StrCat(kDecayCheckOps,
                         " calls, Allocate(64) and Free() in pairs");
  } else if (o.kind == "large_pairs") {
    calls = absl::StrCat(kDecayCheckOps, " calls, Allocate(", kLargeBlockBytes,
                         ") and Free() in pairs");
  } else if (o.kind == "allocations") {
    calls =
        absl::StrCat(kDecayCheckOps, " calls of Allocate(64), live when read");
  } else if (o.kind == "frees") {
    calls = absl::StrCat(kDecayCheckOps,
                         " calls of Free(), each on a 16-byte block a new "
                         "thread had just allocated");
  }
  std::string steps;
  if (o.then == "after_freer") {
    steps = absl::StrCat("exactly kDecayNs after the last free, B made ",
                         kDecayCheckOps,
                         " pairs of Allocate(64) and Free(), then A, still "
                         "running, made ",
                         calls);
  } else if (o.then == "owner_alone") {
    steps = absl::StrCat(
        "exactly kDecayNs after the last free, A, still running, made ", calls);
  } else if (o.then == "exit") {
    steps = absl::StrCat(
        "exactly kDecayNs after the last free, A exited without a call, "
        "then ",
        o.kind == "freer" ? "B" : "a new thread", " made ", kDecayCheckOps,
        " pairs of Allocate(64) and Free()");
  } else {
    steps = absl::StrCat(
        "kDecayNs / 2 after the last free, A exited without a call; "
        "kDecayNs after the free, B made ",
        kDecayCheckOps, " pairs of Allocate(64) and Free()");
  }
  return absl::StrCat(
      "thread A allocated ", blocks,
      " and waited, alive; thread B freed them "
      "all and ",
      o.then == "owner_alone" || o.kind == "new_thread" ? "exited" : "ran on",
      "; ", steps);
}

// OwnerAllocates()
//
// A's blocks, kOwnerBytes of `sizes`, the first byte of each written; false
// when one could not be had.
bool OwnerAllocates(const std::string& sizes, std::vector<void*>& blocks) {
  bool ok = true;
  size_t i = 0;
  for (size_t total = 0; total < kOwnerBytes; ++i) {
    const size_t size =
        sizes == "small" ? 64
                         : kOwnerMixedSizes[i % (sizeof(kOwnerMixedSizes) /
                                                 sizeof(kOwnerMixedSizes[0]))];
    void* p = Allocate(size, 1, false);
    if (p == nullptr) {
      ok = false;
    } else {
      static_cast<char*>(p)[0] = 1;
      blocks.push_back(p);
    }
    total += size;
  }
  return ok;
}

// PairsOf()
//
// kDecayCheckOps calls, Allocate(`size`) and Free() in pairs; false when an
// allocation failed.
bool PairsOf(size_t size) {
  bool ok = true;
  for (uint64_t i = 0; i < kDecayCheckOps / 2; ++i) {
    void* p = Allocate(size, 1, false);
    ok = ok && p != nullptr;
    Free(p);
  }
  return ok;
}

// The scenario of `call.arg()`. A and B are threads of their own, each
// running the steps it is given to their end (ScheduledThread); this
// thread only reads what is held, between steps. Records "held_before"
// (every block freed), "held_after" (after the last calls) and "failed".
void DecayWaitingForOwnerCall(alloclab::FreshCall& call) {
  OwnerScenario o;
  if (!ParseOwnerScenario(call.arg(), o)) {
    call.Fail(absl::StrCat("not a scenario: '", call.arg(), "'"));
    return;
  }
  internal::ScopedFakeClock clock;
  bool ok = true;
  std::vector<void*> blocks, checking;
  ScheduledThread a, b;
  a.Run([&] { ok = OwnerAllocates(o.sizes, blocks) && ok; });
  b.Run([&] {
    for (void* p : blocks) Free(p);
  });
  const bool b_exits = o.then == "owner_alone" || o.kind == "new_thread";
  if (b_exits) b.Exit();
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  auto b_pairs = [&] { b.Run([&] { ok = PairsOf(64) && ok; }); };
  if (o.then == "exit_early") {
    clock.Advance(kDecayNs / 2);
    a.Exit();
    clock.Advance(kDecayNs - kDecayNs / 2);
    b_pairs();
  } else if (o.then == "exit") {
    clock.Advance(kDecayNs);
    a.Exit();
    if (o.kind == "freer") {
      b_pairs();
    } else {
      std::thread([&] { ok = PairsOf(64) && ok; }).join();
    }
  } else {
    clock.Advance(kDecayNs);
    if (o.then == "after_freer") b_pairs();
    if (o.kind == "pairs") {
      a.Run([&] { ok = PairsOf(64) && ok; });
    } else if (o.kind == "large_pairs") {
      a.Run([&] { ok = PairsOf(kLargeBlockBytes) && ok; });
    } else if (o.kind == "allocations") {
      a.Run([&] { CheckingCalls(checking); });
      for (void* p : checking) ok = ok && p != nullptr;
    } else {
      ScheduledThread c;
      for (uint64_t i = 0; i < kDecayCheckOps; ++i) {
        void* p = nullptr;
        c.Run([&] { p = Allocate(16, 1, false); });
        ok = ok && p != nullptr;
        a.Run([&] { Free(p); });
      }
    }
  }
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  call.Record("failed", ok ? 0 : 1);
  if (!checking.empty()) a.Run([&] { FreeAll(checking); });
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_waiting_for_owner",
                    DecayWaitingForOwnerCall);

// ExpectOwnerScenarioGivesBack()
//
// Runs the scenario `arg` in a fresh process and expects at most promise
// 2's bound held after its last calls: IdleBound() of the threads still
// running that made them (A and B after "after_freer", else one) and of
// A's largest block.
void ExpectOwnerScenarioGivesBack(absl::string_view arg) {
  SCOPED_TRACE(arg);
  OwnerScenario o;
  ASSERT_TRUE(ParseOwnerScenario(arg, o));
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_decay_waiting_for_owner", arg);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->values["failed"], 0) << "Allocate() failed";
  const uint64_t bound =
      IdleBound(o.then == "after_freer" ? 2 : 1,
                o.kind == "large_pairs" ? kLargeBlockBytes : 64);
  EXPECT_LE(r->values["held_after"], bound)
      << kRuleDecayOwner << ": " << Describe(o) << " ("
      << static_cast<int64_t>(r->values["held_before"])
      << " bytes held once every block was freed), and "
      << static_cast<int64_t>(r->values["held_after"])
      << " bytes were held, by the largest of the suite's three counts, "
      << "where " << bound << " are allowed (kIdleHeldBytes"
      << (o.then == "after_freer" ? " + kIdleThreadBytes: two threads that "
                                    "run on made their calls"
                                  : "")
      << (o.kind == "large_pairs" ? ", and the calls' block beside" : "")
      << ")";
}

TEST(DesignDecay, ARunningOwnersBlocksGoBackAtItsCallsAfterTheFreeingThreads) {
  for (const char* arg :
       {"small,after_freer:pairs", "mixed,after_freer:pairs"}) {
    ExpectOwnerScenarioGivesBack(arg);
  }
}

TEST(DesignDecay, ARunningOwnersBlocksGoBackAtItsCallsAlone) {
  for (const char* arg :
       {"small,owner_alone:pairs", "mixed,owner_alone:pairs"}) {
    ExpectOwnerScenarioGivesBack(arg);
  }
}

TEST(DesignDecay, ARunningOwnersCallsOfAnyKindGiveItsBlocksBack) {
  for (const char* arg :
       {"small,owner_alone:allocations", "mixed,owner_alone:allocations",
        "small,owner_alone:frees", "mixed,after_freer:frees",
        "mixed,owner_alone:large_pairs", "small,after_freer:allocations"}) {
    ExpectOwnerScenarioGivesBack(arg);
  }
}

TEST(DesignDecay, AnOwnersBlocksGoBackOnceItExits) {
  for (const char* arg : {"small,exit:freer", "mixed,exit:freer",
                          "small,exit:new_thread", "mixed,exit_early:freer"}) {
    ExpectOwnerScenarioGivesBack(arg);
  }
}

// A thread that only freed, whose checking calls fill its cache: a thread
// allocates 64 pieces of 64 KiB of blocks of each of 2, 4 and 8 KiB and
// exits (arg "exited"; with "own", X allocates them itself, and keeps
// running); thread X frees them all, the highest block of each 64 KiB last
// (so that whatever X keeps of its most recent frees holds a block of each
// of many pieces, and those pieces in use). The clock moves by kDecayNs.
// X's kDecayCheckOps calls: it allocates kScavengeBigBlocks blocks of
// 256 KiB (the largest size promise 1 keeps private) and frees them, then
// allocates and frees 64 bytes until kDecayCheckOps calls. Every block
// was freed kDecayNs before those calls began, and whatever X did with
// what it kept, idle time counts from the free.
constexpr size_t kScavengePiece = 64 * kKiB;
constexpr size_t kScavengePieces = 64;
constexpr size_t kScavengeSizes[] = {2 * kKiB, 4 * kKiB, 8 * kKiB};
constexpr int kScavengeBigBlocks = 8;
constexpr size_t kScavengeBigBytes = 256 * kKiB;

void DecayAfterTheCacheFilledCall(alloclab::FreshCall& call) {
  internal::ScopedFakeClock clock;
  std::vector<void*> blocks;
  bool ok = true;
  auto allocate = [&] {
    for (size_t size : kScavengeSizes) {
      for (size_t i = 0; i < kScavengePieces * kScavengePiece / size; ++i) {
        void* p = Allocate(size, 1, false);
        ok = ok && p != nullptr;
        if (p != nullptr) blocks.push_back(p);
      }
    }
  };
  ScheduledThread x;
  if (call.arg() == "own") {
    x.Run(allocate);
  } else {
    std::thread(allocate).join();
  }
  x.Run([&] {
    suite::FreeHighestOfEachPieceLast(blocks, kScavengePiece);
    // With "own", X has made 7,168 calls, a whole number of 1,024: one
    // pair more, so that its checking calls do not begin at a look at the
    // clock, which a design that looks every 1,024 calls would make there
    // (its cache's blocks then go back before the calls push them out).
    Free(Allocate(64, 1, false));
  });
  call.Record("held_before", static_cast<double>(ReadHeldNow().judged));
  clock.Advance(kDecayNs);
  x.Run([&] {
    void* big[kScavengeBigBlocks];
    for (void*& p : big) {
      p = Allocate(kScavengeBigBytes, 1, false);
      ok = ok && p != nullptr;
    }
    for (void* p : big) Free(p);
    for (uint64_t i = 2 * kScavengeBigBlocks; i < kDecayCheckOps; i += 2) {
      Free(Allocate(64, 1, false));
    }
  });
  call.Record("held_after", static_cast<double>(ReadHeldNow().judged));
  call.Record("failed", ok ? 0 : 1);
}
ALLOCLAB_FRESH_CALL("allocator_design_decay_after_the_cache_filled",
                    DecayAfterTheCacheFilledCall);

TEST(DesignDecay, IdleTimeCountsFromTheFreeWhenTheCheckingCallsFillTheCache) {
  // The blocks of a thread that exited ("exited"), which a design may send
  // back where they came from at once, and the freeing thread's own
  // ("own"), which it may keep for itself until its calls push them out.
  for (const char* whose : {"exited", "own"}) {
    SCOPED_TRACE(whose);
    const bool own = absl::string_view(whose) == "own";
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_decay_after_the_cache_filled", whose);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->values["failed"], 0) << "Allocate() failed";
    EXPECT_LE(r->values["held_after"], kIdleHeldBytes)
        << kRuleDecayEdge << ", whether the thread that freed the blocks "
        << "only freed, and however often it looked at the clock: idle time "
        << "counts from the free. "
        << (own ? "A thread allocated 4 MiB of blocks of each of 2, 4 and "
                  "8 KiB, and freed them all"
                : "A thread allocated 4 MiB of blocks of each of 2, 4 and "
                  "8 KiB and exited; another freed them all")
        << ", the highest of each 64 KiB last ("
        << static_cast<int64_t>(r->values["held_before"])
        << " bytes held then); kDecayNs later that thread made "
        << kDecayCheckOps << " calls (" << kScavengeBigBlocks
        << " allocations of " << kScavengeBigBytes
        << " bytes and their frees, then Allocate(64) and Free() pairs), and "
        << static_cast<int64_t>(r->values["held_after"])
        << " bytes were held, by the largest of the suite's three counts "
        << "(kIdleHeldBytes = " << kIdleHeldBytes << ")";
  }
}

}  // namespace
}  // namespace allocator_design
