// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: the picks are right, but the refusal counts the machine's
// cores (Topology::physical_cores()), not those with an allowed CPU. The
// two agree unless a cpuset leaves some core no CPU at all, which no
// refusal the old suite read did; then "the machine has 4 cores" explains
// nothing about a refusal of 3, where task.h promises that the message says
// how many cores have an allowed CPU.
// The rest is the reference's. The suite must reject it.

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/machine/topology.h"
#include "labs/smt_siblings/task.h"

// The reference, with its PickDistinctCores() renamed out of the way.
#define PickDistinctCores ReferencePickDistinctCores
#include "solutions/smt_siblings/task.cc"
#undef PickDistinctCores

namespace smt_siblings {

absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  absl::StatusOr<std::vector<int>> right =
      ReferencePickDistinctCores(topology, allowed, n);
  if (right.ok() || n < 1) return right;
  // The mistake: the machine's cores, not the affinity mask's.
  return absl::InvalidArgumentError(
      absl::StrCat("asked for ", n, " CPUs on distinct cores, but the machine ",
                   "has ", topology.physical_cores(), " cores"));
}

}  // namespace smt_siblings
