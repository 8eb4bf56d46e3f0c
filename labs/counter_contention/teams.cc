// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/counter_contention/teams.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/machine/topology.h"

namespace counter_contention {

std::vector<Team> PlanTeams(const alloclab::Topology& topology,
                            const std::vector<int>& usable) {
  std::vector<int> order = topology.SpreadAcrossCores(usable);
  if (order.empty()) order = usable;  // CPUs /sys does not list: as given
  const int n = static_cast<int>(order.size());
  std::vector<int> counts;  // 1, 2, 4 ... n, and n + 1 (oversubscribed)
  for (int t = 1; t < n; t *= 2) counts.push_back(t);
  counts.insert(counts.end(), {n, n + 1});
  std::vector<Team> teams;
  for (int threads : counts) {
    Team team{threads, {}, ""};
    for (int t = 0; t < threads; ++t) {
      team.cpus.push_back(order[static_cast<size_t>(t % n)]);
    }
    if (threads > n) {
      team.mark = "oversubscribed";
    } else if (topology.CoresOf(team.cpus) < threads) {
      team.mark = "SMT siblings";
    }
    teams.push_back(std::move(team));
  }
  return teams;
}

std::string CpusColumn(const Team& team) {
  std::string cell = alloclab::FormatCpuList(team.cpus);
  if (!team.mark.empty()) absl::StrAppend(&cell, " (", team.mark, ")");
  return cell;
}

}  // namespace counter_contention
