// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: groups the allowed CPUs by core in a std::map keyed on
// (package, core id), takes the first n cores in the map's order, and
// sorts what it took. The CPUs are on distinct cores, allowed, in
// increasing order, and on every machine whose numbering follows its
// packages (one socket, or a second socket numbered after the first) they
// are the lowest ids too. Where the sockets interleave (even CPUs on one,
// odd on the other) or the lowest ids sit on the highest core ids, the
// first cores of the map are not those of the lowest CPUs; task.h's picks
// are "lowest ids first".
// The rest is the reference's. The suite must reject it.

#include <algorithm>
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
  absl::StatusOr<std::vector<int>> right =
      ReferencePickDistinctCores(topology, allowed, n);
  if (!right.ok()) return right;
  std::vector<int> picked;
  // The reference's map of each core's allowed CPUs (CoresOf()), lowest
  // first, cores in (package, core) order.
  for (const auto& [core, cpus] : CoresOf(topology, allowed)) {
    // The mistake: the first n cores of the map, not the n lowest CPUs.
    if (static_cast<int>(picked.size()) < n) picked.push_back(cpus[0]->id);
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  absl::StatusOr<std::vector<std::pair<int, int>>> right =
      ReferencePickSiblingPairs(topology, allowed, n);
  if (!right.ok()) return right;
  std::vector<std::pair<int, int>> pairs;
  for (const auto& [core, cpus] : CoresOf(topology, allowed)) {
    // The same mistake.
    if (cpus.size() >= 2 && static_cast<int>(pairs.size()) < n) {
      pairs.emplace_back(cpus[0]->id, cpus[1]->id);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace smt_siblings
