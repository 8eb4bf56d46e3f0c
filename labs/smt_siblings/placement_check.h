// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: placement_check.h
// -----------------------------------------------------------------------------
//
// Whether a row of the smt_siblings experiment runs where its name says.
// The CPUs come from the learner's task.cc, so the experiment cannot trust
// them: the starter puts its `smt_siblings` row on CPUs 0 and 1, which are
// two separate cores on a machine without SMT (and on desktops that number
// a core's threads k and k+4). The row still runs, so the starter's table
// shows the mistake; this check marks it and says what the row measured.
//
// Example:
//
//   std::optional<smt_siblings::Misplacement> bad =
//       smt_siblings::CheckPlacement(topology, usable, "smt_siblings", {0, 1});
//   // On a 2-vCPU VM without SMT: bad->mark == "not siblings", and
//   // bad->note says that /sys lists CPU 0's thread siblings as 0.

#ifndef ALLOCLAB_LABS_SMT_SIBLINGS_PLACEMENT_CHECK_H_
#define ALLOCLAB_LABS_SMT_SIBLINGS_PLACEMENT_CHECK_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/machine/topology.h"

namespace smt_siblings {

// Misplacement
//
// What is wrong with a row's CPUs.
struct Misplacement {
  std::string mark;  // for the cpus column: "not allowed", "not siblings", ...
  std::string note;  // a sentence for the notes, naming the row and its CPUs
};

// CheckPlacement()
//
// Checks the CPUs `cpus` of the row `row` against `topology` (/sys) and the
// CPUs the experiment may use (`usable`): every CPU must be usable and
// online; an "smt_siblings" row's two CPUs must be in each other's
// thread_siblings_list, and a "distinct_cores" row's two CPUs must not
// share a core. Any other row is checked for usability only. Returns
// nullopt when the row is where its name says.
std::optional<Misplacement> CheckPlacement(const alloclab::Topology& topology,
                                           const std::vector<int>& usable,
                                           absl::string_view row,
                                           const std::vector<int>& cpus);

}  // namespace smt_siblings

#endif  // ALLOCLAB_LABS_SMT_SIBLINGS_PLACEMENT_CHECK_H_
