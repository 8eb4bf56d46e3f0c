// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: interleave.h
// -----------------------------------------------------------------------------
//
// The course's one loop for repeated runs of several variants. A machine
// drifts while an experiment runs: its clock steps down when it warms up,
// another program starts, the page cache fills. Runs taken variant by
// variant (A A A B B B C C C) put all of one variant's runs in the same few
// minutes, so the drift shows up as a difference between the variants.
// Runs taken in turn (A B C A B C A B C) spread every variant over the whole
// experiment, so the drift hits them all alike.
//
// `Interleave()` makes that order and calls the caller's run function once
// for each (repetition, variant) pair; what one run does (a timed batch, a
// fresh process, a child program) stays with the caller. It stops at the
// first run that fails and returns that run's status: a caller that wants to
// keep the other variants going records the failure itself and returns OK.
//
// `InterleaveOrder::kRotated` also moves each repetition's first variant one
// further (A B C, B C A, C A B, ...), so that no variant always runs first,
// or always right after the same neighbour.
//
// Example:
//
//   std::vector<std::vector<double>> seconds(programs.size());
//   absl::Status status = alloclab::Interleave(
//       /*repetitions=*/5, static_cast<int>(programs.size()),
//       [&](const alloclab::InterleavedRun& run) -> absl::Status {
//         absl::StatusOr<double> s = RunProgram(programs[run.variant]);
//         if (!s.ok()) return s.status();
//         seconds[run.variant].push_back(*s);
//         return absl::OkStatus();
//       });
//   if (!status.ok()) return status;  // the first run that failed
//   // seconds[i] holds program i's 5 times, taken in turn with the others'.

#ifndef ALLOCLAB_COMMON_HARNESS_INTERLEAVE_H_
#define ALLOCLAB_COMMON_HARNESS_INTERLEAVE_H_

#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace alloclab {

// InterleaveOrder
//
// Which variant each repetition starts with.
enum class InterleaveOrder {
  // Every repetition runs variant 0, 1, ..., n - 1.
  kSame,
  // Repetition r runs variant r % n first, then the next ones, wrapping
  // around: r % n, (r + 1) % n, ..., (r + n - 1) % n.
  kRotated,
};

// InterleavedRun
//
// One call of the run function: which repetition, which variant, and the
// variant's place among that repetition's runs (0 for its first run, which
// is where a caller prints "repetition 2 of 5").
struct InterleavedRun {
  int repetition = 0;  // 0 .. repetitions - 1
  int variant = 0;     // 0 .. variants - 1: the variant to run
  int position = 0;    // 0 .. variants - 1: its place in this repetition
};

// Interleave()
//
// Calls `run` for `repetitions` repetitions of `variants` variants, one
// repetition after the other, each repetition running every variant once
// in `order`. Returns OK when every run returned OK, or no run at all is
// made (`repetitions` or `variants` 0 or less). Otherwise stops at the first
// run that returns an error, makes no further run, and returns that error
// unchanged.
absl::Status Interleave(
    int repetitions, int variants,
    absl::FunctionRef<absl::Status(const InterleavedRun&)> run,
    InterleaveOrder order = InterleaveOrder::kSame);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_INTERLEAVE_H_
