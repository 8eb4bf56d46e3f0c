// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: known_bad_common.h
// -----------------------------------------------------------------------------
//
// The correct parts of task.h, for the known-bad solutions: each bad_*.cc
// keeps only its own mistake and takes the rest from here, so that the
// suite's verdict on it is about that mistake alone. Written independently
// of the reference (one pass over the CPUs by id), which is a second check
// that the suite's expectations do not depend on one way of writing it.
//
// It also defines task.h's three functions, correctly and weakly: a
// known-bad defines only the one it gets wrong, and its definition replaces
// the weak one.
//
// Example:
//
//   // bad_no_contention.cc: ClassifySlowdown() alone.
//   absl::StatusOr<Slowdown> ClassifySlowdown(double t, double c) {
//     absl::StatusOr<Slowdown> right = known_bad::CorrectClassify(t, c);
//     ...
//   }

#ifndef ALLOCLAB_TESTS_SMT_SIBLINGS_KNOWN_BAD_COMMON_H_
#define ALLOCLAB_TESTS_SMT_SIBLINGS_KNOWN_BAD_COMMON_H_

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/topology.h"
#include "labs/smt_siblings/task.h"

namespace smt_siblings::known_bad {

// As PickDistinctCores() must.
absl::StatusOr<std::vector<int>> CorrectDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed, int n);

// As PickSiblingPairs() must.
absl::StatusOr<std::vector<std::pair<int, int>>> CorrectSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed, int n);

// As ClassifySlowdown() must.
absl::StatusOr<Slowdown> CorrectClassify(double time_ratio, double clock_ratio);

}  // namespace smt_siblings::known_bad

#endif  // ALLOCLAB_TESTS_SMT_SIBLINGS_KNOWN_BAD_COMMON_H_
