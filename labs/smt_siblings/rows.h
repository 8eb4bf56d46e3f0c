// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rows.h
// -----------------------------------------------------------------------------
//
// The rows of the smt_siblings experiment a machine can show, placed by
// task.h (PickDistinctCores, PickSiblingPairs) and checked against /sys
// (placement_check.h): one_thread and same_cpu everywhere, distinct_cores
// where two cores are usable, smt_siblings where a core has two usable
// threads. A row that cannot run is a note that says why; a row whose CPUs
// are not where its name says runs, marked.
//
// Which rows each kind of machine gets:
//
//   2 cores, no SMT (the course's VM)       one_thread distinct_cores same_cpu
//   1 core, 2 threads (2-vCPU cloud VM)     one_thread smt_siblings same_cpu
//   2 cores, 2 threads each (4-vCPU VM)     all four
//
// Example:
//
//   absl::StatusOr<smt_siblings::RowPlan> plan =
//       smt_siblings::PlanRows(*topology, *usable);
//   for (const smt_siblings::PlannedRow& row : plan->rows) { ... }

#ifndef ALLOCLAB_LABS_SMT_SIBLINGS_ROWS_H_
#define ALLOCLAB_LABS_SMT_SIBLINGS_ROWS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/machine/topology.h"

namespace smt_siblings {

// PlannedRow
//
// A row that runs: its name, its threads' CPUs, and the cpus column's mark
// ("" where /sys agrees with the name, e.g. "not siblings" where not).
struct PlannedRow {
  std::string name;
  std::vector<int> cpus;
  std::string mark;
};

// RowPlan
//
// The rows that run, in table order, and a note for each row that cannot
// run or is misplaced.
struct RowPlan {
  std::vector<PlannedRow> rows;
  std::vector<std::string> notes;
  bool has_siblings_row = false;  // where not, the experiment cites the
                                  // reference run's siblings row instead
};

// PlanRows()
//
// The plan for the CPUs `usable` of `topology`. An error only where no
// row can run (task.h found no CPU for one_thread), naming that row.
absl::StatusOr<RowPlan> PlanRows(const alloclab::Topology& topology,
                                 const std::vector<int>& usable);

}  // namespace smt_siblings

#endif  // ALLOCLAB_LABS_SMT_SIBLINGS_ROWS_H_
