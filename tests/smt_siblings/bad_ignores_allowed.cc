// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: picks from every online CPU, "the affinity mask is all of
// them anyway". Under a cpuset or taskset it is not: the picks land on CPUs
// the process may not run on, where task.h promises only allowed ones.
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
  return known_bad::CorrectDistinctCores(topology, EveryOnlineCpu(topology), n);
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  (void)allowed;
  return known_bad::CorrectSiblingPairs(topology, EveryOnlineCpu(topology), n);
}

}  // namespace smt_siblings
