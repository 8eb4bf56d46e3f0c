// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: trusts the numbering. The first n allowed CPUs as "distinct
// cores" and neighbours as "siblings": right on some machines (Intel's
// numbering for the cores), wrong on others (adjacent numbering for the
// cores, Intel's for the pairs). This is what the starter does.

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
    const alloclab::Topology& /*topology*/, const std::vector<int>& allowed,
    int n) {
  if (n < 1 || static_cast<size_t>(n) > allowed.size()) {
    return absl::InvalidArgumentError("cannot pick that many");
  }
  return std::vector<int>(allowed.begin(), allowed.begin() + n);
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& /*topology*/, const std::vector<int>& allowed,
    int n) {
  if (n < 1 || static_cast<size_t>(2 * n) > allowed.size()) {
    return absl::InvalidArgumentError("cannot pick that many");
  }
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    pairs.emplace_back(allowed[2 * i], allowed[2 * i + 1]);
  }
  return pairs;
}

}  // namespace smt_siblings
