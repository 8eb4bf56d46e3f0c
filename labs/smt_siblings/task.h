// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: task.h
// -----------------------------------------------------------------------------
//
// Lab smt_siblings, your task: when threads slow each other down, is it
// waiting, a slower clock, or a shared core? Two parts.
//
// 1. Placement. To see what two threads do to each other you must know
//    where they run. "CPUs 0 and 1" are two different cores on one desktop
//    and the two hardware threads of one core on another: the kernel's
//    numbering says nothing, /sys does (common/machine/topology.h). Choose n
//    CPUs on distinct physical cores, and n pairs of SMT siblings, from the
//    CPUs this process may use.
//
// 2. Diagnosis. Given how much slower a row ran than one thread alone (the
//    time ratio) and how much slower its clock was (the clock ratio), name
//    the cause, within the tolerance `kRatioTolerance`. You design the
//    rule; ClassifySlowdown() lists the properties the suite checks.
//
// `bazel test //tests/smt_siblings:starter_test` checks your task.cc.
//
// Example:
//
//   absl::StatusOr<alloclab::Topology> topo = alloclab::ReadTopology();
//   absl::StatusOr<std::vector<int>> allowed = alloclab::AllowedCpus();
//   absl::StatusOr<std::vector<int>> cores =
//       smt_siblings::PickDistinctCores(*topo, *allowed, 2);
//   // The allocator article: 4 threads ran 47 ns a call against 38 ns for
//   // one, on a 3.8 GHz clock against 4.6 GHz.
//   absl::StatusOr<smt_siblings::Slowdown> why =
//       smt_siblings::ClassifySlowdown(47.0 / 38.0, 4.6 / 3.8);
//   // *why == smt_siblings::Slowdown::kClock

#ifndef ALLOCLAB_LABS_SMT_SIBLINGS_TASK_H_
#define ALLOCLAB_LABS_SMT_SIBLINGS_TASK_H_

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/machine/topology.h"

namespace smt_siblings {

// kRatioTolerance
//
// How far apart two ratios may be and still count as equal, relative: 15%.
// Wide enough for the noise of a shared machine and for the reference run's
// clock case (times 1.24x, clocks 1.21x), narrow enough that a 1.8x
// slowdown on an unchanged clock is not "the clock". The tests, the
// experiment and the chapter use this one constant.
inline constexpr double kRatioTolerance = 0.15;

// kSharingBound
//
// The model's assumption of how much sharing one core between two threads
// can slow each of them: 2x, each getting half the core. That is a fact for
// two threads time-sharing one logical CPU (each runs half the time, at full
// speed). For SMT siblings it is an assumption, not a law: they share the
// core's execution units, and usually land between 1x and 2x, but siblings
// that thrash the L1D, L2 or TLB they also share can each run more than 2x
// slower. The classification takes the assumption; a slowdown beyond it is
// read as waiting, which on such a pair it may not be.
inline constexpr double kSharingBound = 2.0;

// PickDistinctCores()
//
// Returns `n` CPUs, each on a different physical core (a core is a
// (physical_package_id, core_id) pair, and no two of the CPUs are in each
// other's thread_siblings_list), all online in `topology` and in `allowed`
// (an affinity mask, as alloclab::AllowedCpus() returns it), in increasing
// order, lowest ids first. InvalidArgument when `n` < 1, or when fewer than
// `n` cores have an allowed CPU (the message says how many do, in digits or
// in words; the sentence around it is yours).
absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed, int n);

// PickSiblingPairs()
//
// Returns `n` pairs of SMT siblings: the two CPUs of a pair are different,
// online, allowed, and in each other's thread_siblings_list; the pairs are
// on `n` different cores. Pairs in order of their first CPU, each pair in
// increasing order, lowest ids first. InvalidArgument when `n` < 1, or when
// fewer than `n` cores have two allowed CPUs (the message says how many do,
// in digits or in words, and says "no SMT", in any letter case, exactly when
// no core has two threads at all).
absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed, int n);

// Slowdown
//
// What ClassifySlowdown() names.
enum class Slowdown {
  kNone,        // no slowdown beyond the tolerance
  kClock,       // the clock explains it: the same cycles, fewer per second
  kSharedCore,  // the cycles were shared: between 1x and kSharingBound
  kContention,  // more than sharing a core explains: the threads waited
};

// SlowdownName()
//
// "none", "clock", "shared core", "contention": the words of the table.
// Given, not part of the task.
inline absl::string_view SlowdownName(Slowdown slowdown) {
  switch (slowdown) {
    case Slowdown::kNone:
      return "none";
    case Slowdown::kClock:
      return "clock";
    case Slowdown::kSharedCore:
      return "shared core";
    case Slowdown::kContention:
      return "contention";
  }
  return "?";
}

// ClassifySlowdown()
//
// `time_ratio`: ns per call of the row over ns per call of one thread
// alone (2.0: twice as slow). `clock_ratio`: the effective clock of one
// thread alone over that of the row (1.2: the row's clock 1.2x slower).
//
// The goal: name what a learner should blame, from these two measured
// ratios and the model's one assumption (kSharingBound), never claiming more
// than the noise of a shared machine (kRatioTolerance) lets the numbers say.
// The rule is yours to design; the suite checks these properties, with
// t = time_ratio, c = clock_ratio, tol = kRatioTolerance, B = kSharingBound
// and what the clock does not explain, r = t / c:
//
//   1. Refusal: InvalidArgument when a ratio is not a positive finite
//      number.
//   2. The noise margin on the time: kNone exactly when t <= 1 + tol.
//   3. The clock is divided out: once t > 1 + tol, the verdict depends on r
//      alone (two rows with the same r get the same verdict).
//   4. The clock: always kClock when the clock explains all of it (r <= 1,
//      t > 1 + tol); never when it leaves more than the noise (r > 1 + tol).
//   5. A shared core: always kSharedCore when what is left is beyond the
//      noise and within the model's bound (1 + tol < r <= B); never when
//      the clock explains it (r <= 1) or when it is beyond the bound by more
//      than the noise (r > B * (1 + tol)).
//   6. Contention: always kContention beyond the bound by more than the
//      noise (r > B * (1 + tol)); never within the bound (r <= B).
//   7. Monotonic: with the clock ratio fixed, a larger time ratio never
//      gives a milder verdict (none < clock < shared core < contention);
//      with the time ratio fixed beyond the noise, a slower clock (a larger
//      c) never gives a harsher one.
//
// Between those, in the two noise bands 1 < r <= 1 + tol (clock or shared
// core) and B < r <= B * (1 + tol) (shared core or contention), the choice
// is your design's; docs/labs/smt_siblings.md discusses the reference's and
// others.
absl::StatusOr<Slowdown> ClassifySlowdown(double time_ratio,
                                          double clock_ratio);

}  // namespace smt_siblings

#endif  // ALLOCLAB_LABS_SMT_SIBLINGS_TASK_H_
