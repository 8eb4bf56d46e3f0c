// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: a core is its core_id. True on one socket; on two, core ids
// repeat (both packages have a core 0), so the second socket's cores look
// taken and its CPUs look like siblings of the first's.

#include <map>
#include <set>
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

bool IsAllowed(const std::vector<int>& allowed, int id) {
  for (int a : allowed) {
    if (a == id) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  std::set<int> cores;
  std::vector<int> picked;
  for (const alloclab::Cpu& cpu : topology.cpus) {
    if (static_cast<int>(picked.size()) < n && IsAllowed(allowed, cpu.id) &&
        cores.insert(cpu.core_id).second) {
      picked.push_back(cpu.id);
    }
  }
  if (n < 1 || static_cast<int>(picked.size()) < n) {
    return absl::InvalidArgumentError("not enough cores");
  }
  return picked;
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  std::map<int, std::vector<int>> by_core;
  for (const alloclab::Cpu& cpu : topology.cpus) {
    if (IsAllowed(allowed, cpu.id)) by_core[cpu.core_id].push_back(cpu.id);
  }
  std::vector<std::pair<int, int>> pairs;
  for (const auto& [core, cpus] : by_core) {
    if (cpus.size() >= 2 && static_cast<int>(pairs.size()) < n) {
      pairs.emplace_back(cpus[0], cpus[1]);
    }
  }
  if (n < 1 || static_cast<int>(pairs.size()) < n) {
    return absl::InvalidArgumentError(topology.smt() ? "not enough pairs"
                                                     : "no SMT");
  }
  return pairs;
}

}  // namespace smt_siblings
