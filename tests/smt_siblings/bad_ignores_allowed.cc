// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: picks from every online CPU, "the affinity mask is all of
// them anyway". Under a cpuset or taskset it is not: the picks land on CPUs
// the process may not run on, where task.h promises only allowed ones.
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

namespace {

// The mistake: every online CPU, whatever `allowed` says.
std::vector<int> EveryOnlineCpu(const alloclab::Topology& topology) {
  std::vector<int> ids;
  for (const alloclab::Cpu& cpu : topology.cpus) ids.push_back(cpu.id);
  return ids;
}

}  // namespace

absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  (void)allowed;
  return ReferencePickDistinctCores(topology, EveryOnlineCpu(topology), n);
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  (void)allowed;
  return ReferencePickSiblingPairs(topology, EveryOnlineCpu(topology), n);
}

}  // namespace smt_siblings
