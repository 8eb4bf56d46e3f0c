// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: teams.h
// -----------------------------------------------------------------------------
//
// Where the experiment's thread teams run: 1, 2, 4 ... threads up to the
// usable CPUs and one more (oversubscribed), each team spread across cores
// first (Topology::SpreadAcrossCores), so that its threads share a core
// only when there are more of them than cores. A team whose threads share a
// core is marked: SMT siblings share L1 and L2, so a shared counter's cache
// line does not travel between them, and such a row shows little of the
// contention this lab is about. On the usual 2-vCPU cloud VM (one core, two
// threads) every team of two is such a team.
//
// Example:
//
//   std::vector<counter_contention::Team> teams =
//       counter_contention::PlanTeams(*topology, *usable);
//   // vm_1c2t: {1, {0}, ""}, {2, {0, 1}, "SMT siblings"},
//   //          {3, {0, 1, 0}, "oversubscribed"}

#ifndef ALLOCLAB_LABS_COUNTER_CONTENTION_TEAMS_H_
#define ALLOCLAB_LABS_COUNTER_CONTENTION_TEAMS_H_

#include <string>
#include <vector>

#include "common/machine/topology.h"

namespace counter_contention {

// Team
//
// One thread count's placement: `cpus` has one CPU per thread; `mark` is
// "" (every thread on its own core), "SMT siblings" (some threads share a
// core) or "oversubscribed" (more threads than usable CPUs).
struct Team {
  int threads = 0;
  std::vector<int> cpus;
  std::string mark;
};

// PlanTeams()
//
// The teams for the CPUs `usable` (an affinity mask) of `topology`.
std::vector<Team> PlanTeams(const alloclab::Topology& topology,
                            const std::vector<int>& usable);

// CpusColumn()
//
// The table's cpus cell of `team`: "0-1", or "0-1 (SMT siblings)".
std::string CpusColumn(const Team& team);

}  // namespace counter_contention

#endif  // ALLOCLAB_LABS_COUNTER_CONTENTION_TEAMS_H_
