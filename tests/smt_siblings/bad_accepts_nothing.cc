// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: n < 1 is "nothing to pick", an empty list and OK.
// task.h promises InvalidArgument: a request for no threads is the
// caller's mistake, and an empty placement would run the experiment on
// nothing.
// The rest comes from known_bad_common.h. The suite must reject it.

#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/topology.h"
#include "labs/smt_siblings/task.h"
#include "tests/smt_siblings/known_bad_common.h"

namespace smt_siblings {

absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  if (n < 1) return std::vector<int>{};
  return known_bad::CorrectDistinctCores(topology, allowed, n);
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  if (n < 1) return std::vector<std::pair<int, int>>{};
  return known_bad::CorrectSiblingPairs(topology, allowed, n);
}

}  // namespace smt_siblings
