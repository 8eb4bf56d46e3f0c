// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: n < 1 is "nothing to pick", an empty list and OK.
// task.h promises InvalidArgument: a request for no threads is the
// caller's mistake, and an empty placement would run the experiment on
// nothing.
// The rest is the reference's. The suite must reject it.

#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/topology.h"
#include "labs/smt_siblings/task.h"

// The reference, with its PickDistinctCores() and PickSiblingPairs() renamed
// out of the way.
#define PickDistinctCores ReferencePickDistinctCores
#define PickSiblingPairs ReferencePickSiblingPairs
#include "solutions/smt_siblings/task.cc"
#undef PickDistinctCores
#undef PickSiblingPairs

namespace smt_siblings {

absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  if (n < 1) return std::vector<int>{};
  return ReferencePickDistinctCores(topology, allowed, n);
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  if (n < 1) return std::vector<std::pair<int, int>>{};
  return ReferencePickSiblingPairs(topology, allowed, n);
}

}  // namespace smt_siblings
