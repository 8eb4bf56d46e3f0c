// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: pairs each core's lowest allowed CPU with the last allowed CPU
// of its thread_siblings_list, "the other thread". With two threads a core,
// every machine there is, the last sibling is the only other one, and the
// pairs are right. With four (POWER, Xeon Phi) the pair of CPUs 0-3 is
// (0, 3), where task.h's pairs are the lowest ids first: (0, 1).
// The rest is the reference's. The suite must reject it.

#include <algorithm>
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
  absl::StatusOr<std::vector<std::pair<int, int>>> right =
      ReferencePickSiblingPairs(topology, allowed, n);
  if (!right.ok()) return right;
  auto is_allowed = [&allowed](int id) {
    return std::find(allowed.begin(), allowed.end(), id) != allowed.end();
  };
  std::vector<std::pair<int, int>> pairs;
  // Each core's lowest allowed CPU, from the reference's CoresOf().
  for (const auto& [core, cpus] : CoresOf(topology, allowed)) {
    const alloclab::Cpu& first = *cpus.front();
    // The mistake: the last allowed sibling, not the lowest.
    for (auto it = first.siblings.rbegin(); it != first.siblings.rend(); ++it) {
      if (*it > first.id && is_allowed(*it)) {
        pairs.emplace_back(first.id, *it);
        break;
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.resize(static_cast<size_t>(n));
  return pairs;
}

}  // namespace smt_siblings
