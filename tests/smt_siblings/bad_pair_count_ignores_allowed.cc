// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: the pairs are right, but the refusal counts the machine's
// cores with two online threads, not those with two allowed CPUs. Without a
// cpuset the two counts agree, and that is the one refusal a learner reads
// on a desktop; under a cpuset that splits cores, "only 4 cores have two
// threads" when the process may use two threads of 1, where task.h
// promises that the message says how many cores have two allowed CPUs.
// The rest is the reference's. The suite must reject it.

#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
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
  if (right.ok() || n < 1 || !topology.smt()) return right;
  // The mistake: the count of the machine, not of the affinity mask.
  std::set<std::pair<int, int>> paired;
  for (const alloclab::Cpu& cpu : topology.cpus) {
    if (cpu.siblings.size() >= 2) paired.insert({cpu.package_id, cpu.core_id});
  }
  return absl::InvalidArgumentError(
      absl::StrCat("asked for ", n, " sibling pairs, but only ", paired.size(),
                   " cores have two threads"));
}

}  // namespace smt_siblings
