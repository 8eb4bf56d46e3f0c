// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: too few sibling pairs is refused with "not enough cores", and
// nothing more. task.h promises that the message says how many cores have
// two allowed CPUs, so that a learner on a machine with one CPU offline (or
// a cpuset that splits a core) sees why the row is missing. The rest is the
// reference's. The suite must reject it.

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/topology.h"
#include "labs/smt_siblings/task.h"

// The reference, with its PickSiblingPairs() renamed out of the way.
#define PickSiblingPairs ReferencePickSiblingPairs
#include "solutions/smt_siblings/task.cc"
#undef PickSiblingPairs

namespace smt_siblings {

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  absl::StatusOr<std::vector<std::pair<int, int>>> pairs =
      ReferencePickSiblingPairs(topology, allowed, n);
  if (!pairs.ok() && topology.smt()) {
    return absl::InvalidArgumentError("not enough cores");
  }
  return pairs;
}

}  // namespace smt_siblings
