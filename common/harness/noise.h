// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: noise.h
// -----------------------------------------------------------------------------
//
// The course's one rule for "is this difference real?". Two rows measured on
// a busy machine always differ a little; a note that says "one malloc+free
// costs 0.4 ns" from two rows whose spreads are 1 ns each teaches noise. The
// rule: the difference of two medians counts only when it exceeds the sum of
// the two spreads (median absolute deviations), that is when the rows'
// ranges, median ± spread, do not overlap. A row made of one measurement has
// no measured spread, so nothing can be told from it.
//
// `DifferenceExceedsNoise()` is the rule; `DifferenceNote()` writes the note
// a lab adds under its table, whichever way the rule decided. Notes are
// computed from the values a lab holds (its `Estimate`s), never read back
// from the table by string.
//
// clang-format off
// Example:
//
//   const alloclab::Estimate fresh = alloclab::EstimateOf(fresh_row.ns);
//   const alloclab::Estimate reused = alloclab::EstimateOf(reused_row.ns);
//   lab.results().AddNote(alloclab::DifferenceNote(
//       "one malloc+free", "small_new", fresh, "small_reuse", reused, "ns"));
//   // "one malloc+free ≈ 13.2 ns here (small_new - small_reuse)", or
//   // "... = 0.4 ns is within noise (± 1.1 ns and ± 0.9 ns) ..."
//   if (alloclab::DifferenceExceedsNoise(fresh, reused)) { ... }
// clang-format on

#ifndef ALLOCLAB_COMMON_HARNESS_NOISE_H_
#define ALLOCLAB_COMMON_HARNESS_NOISE_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "common/stats/stats.h"

namespace alloclab {

// Estimate
//
// A measured value and its spread (median and MAD of a row), and how many
// measurements made them: one measurement has a spread of 0 that says
// nothing about the noise (0: not said).
struct Estimate {
  double value = 0;
  double spread = 0;
  size_t samples = 0;
};

// EstimateOf()
//
// The estimate of a summary: its median, its MAD and its count.
inline Estimate EstimateOf(const Summary& s) { return {s.median, s.mad, s.n}; }

// DifferenceExceedsNoise()
//
// The rule: |a - b| > a.spread + b.spread, and neither is a single
// measurement.
bool DifferenceExceedsNoise(Estimate a, Estimate b);

// DifferenceNote()
//
// A note on `a - b`, what the difference stands for named by `what`:
// "one malloc+free ≈ 13.2 ns here (small_new - small_reuse)" when the
// difference exceeds the noise (`DifferenceExceedsNoise()`), else "one
// malloc+free: small_new - small_reuse = 0.4 ns is within noise (± 1.1 ns
// and ± 0.9 ns)". Where a row is a single measurement (--repetitions=1),
// its spread is unknown, and the note says the run cannot tell. `unit`
// follows the numbers; `precision` is the digits after the point.
std::string DifferenceNote(absl::string_view what, absl::string_view a_name,
                           Estimate a, absl::string_view b_name, Estimate b,
                           absl::string_view unit, int precision = 1);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_NOISE_H_
