// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/smt_siblings/rows.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/machine/topology.h"
#include "labs/smt_siblings/placement_check.h"
#include "labs/smt_siblings/task.h"

namespace smt_siblings {

absl::StatusOr<RowPlan> PlanRows(const alloclab::Topology& topology,
                                 const std::vector<int>& usable) {
  absl::StatusOr<std::vector<int>> one = PickDistinctCores(topology, usable, 1);
  if (!one.ok() || one->empty()) {
    return absl::Status(
        one.ok() ? absl::StatusCode::kInternal : one.status().code(),
        absl::StrCat("one_thread: ",
                     one.ok() ? "PickDistinctCores(1) returned no CPU"
                              : one.status().message()));
  }
  RowPlan plan;
  plan.rows.push_back({"one_thread", {one->at(0)}, ""});
  absl::StatusOr<std::vector<int>> two = PickDistinctCores(topology, usable, 2);
  if (two.ok()) {
    plan.rows.push_back({"distinct_cores", *two, ""});
  } else {
    plan.notes.push_back(
        absl::StrCat("no distinct_cores row: ", two.status().message()));
  }
  absl::StatusOr<std::vector<std::pair<int, int>>> pair =
      PickSiblingPairs(topology, usable, 1);
  if (pair.ok() && !pair->empty()) {
    plan.rows.push_back(
        {"smt_siblings", {pair->at(0).first, pair->at(0).second}, ""});
    plan.has_siblings_row = true;
  } else {
    plan.notes.push_back(absl::StrCat(
        "no smt_siblings row: ", pair.ok()
                                     ? "PickSiblingPairs(1) returned no pair"
                                     : pair.status().message()));
  }
  plan.rows.push_back({"same_cpu", {one->at(0), one->at(0)}, ""});
  for (PlannedRow& row : plan.rows) {  // task.cc's picks, checked against /sys
    std::optional<Misplacement> bad =
        CheckPlacement(topology, usable, row.name, row.cpus);
    if (!bad) continue;
    row.mark = bad->mark;
    plan.notes.push_back(bad->note);
  }
  return plan;
}

}  // namespace smt_siblings
