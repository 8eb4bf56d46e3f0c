// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/effective_clock.h"

#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/instruments/clock.h"

namespace alloclab {
namespace {

// Each add feeds the next: the chain's length in cycles is its length in
// adds, whatever the core's width. 16 per loop turn keeps the loop's own
// decrement and branch, which run on other ports in parallel, off the
// critical path.
constexpr uint64_t kAddsPerTurn = 16;

// An odd constant, so that the result tells every add apart.
constexpr uint64_t kStep = 0x9E3779B97F4A7C15ull;

#if defined(__x86_64__) || defined(__aarch64__)
constexpr bool kHaveChain = true;

#define ALLOCLAB_ADD16(op) op op op op op op op op op op op op op op op op

// Runs `turns` * kAddsPerTurn dependent adds of `step` onto `acc`.
uint64_t AddChain(uint64_t acc, uint64_t step, uint64_t turns) {
  if (turns == 0) return acc;
#if defined(__x86_64__)
  asm volatile(
      "1:\n\t" ALLOCLAB_ADD16("addq %[step], %[acc]\n\t")
      "decq %[turns]\n\t"
      "jnz 1b\n\t"
      : [acc] "+r"(acc), [turns] "+r"(turns)
      : [step] "r"(step)
      : "cc");
#else
  asm volatile(
      "1:\n\t" ALLOCLAB_ADD16("add %[acc], %[acc], %[step]\n\t")
      "subs %[turns], %[turns], #1\n\t"
      "b.ne 1b\n\t"
      : [acc] "+r"(acc), [turns] "+r"(turns)
      : [step] "r"(step)
      : "cc");
#endif
  return acc;
}

#undef ALLOCLAB_ADD16

#else
constexpr bool kHaveChain = false;

uint64_t AddChain(uint64_t acc, uint64_t step, uint64_t turns) {
  // Portable, so DependentAdds() keeps its result; its timing means
  // nothing (the compiler folds it), hence no GHz from it.
  return acc + step * kAddsPerTurn * turns;
}
#endif

}  // namespace

uint64_t DependentAdds(uint64_t n) {
  uint64_t acc = AddChain(n, kStep, n / kAddsPerTurn);
  // The remainder, at most 15 adds, needs no timing accuracy.
  for (uint64_t i = 0; i < n % kAddsPerTurn; ++i) acc += kStep;
  return acc;
}

absl::StatusOr<double> MeasureEffectiveGhz(int64_t budget_ns) {
  if (!kHaveChain) {
    return absl::UnimplementedError(
        "effective clock: no dependent-add chain in assembly for this "
        "architecture (x86-64 and arm64 only)");
  }
  if (budget_ns <= 0) {
    return absl::InvalidArgumentError(
        "effective clock: the time budget must be positive");
  }
  // Rounds of about a tenth of the budget, but never shorter than 100 us, so
  // that the timer's own cost and resolution stay below 0.1 %. The first
  // rounds find that size by doubling.
  const int64_t round_ns = std::max<int64_t>(budget_ns / 10, 100'000);
  constexpr int kMinRounds = 5;
  const int64_t start = NowNs();
  uint64_t turns = 1024;
  double best_ghz = 0;
  int measured_rounds = 0;
  uint64_t volatile sink = 0;
  for (;;) {
    const int64_t t0 = NowNs();
    sink = AddChain(sink, kStep, turns);
    const int64_t elapsed = NowNs() - t0;
    // The fastest round is the one least disturbed (interrupts, preemption
    // only ever add time), so it is the best estimate of the clock.
    if (elapsed >= round_ns / 2) {
      best_ghz = std::max(best_ghz, static_cast<double>(turns * kAddsPerTurn) /
                                        static_cast<double>(elapsed));
      ++measured_rounds;
    } else {
      turns *= 2;
    }
    // However small the budget, several full rounds: one round that the
    // scheduler interrupted would report a fraction of the clock.
    if (NowNs() - start >= budget_ns && measured_rounds >= kMinRounds) break;
  }
  return best_ghz;
}

}  // namespace alloclab
