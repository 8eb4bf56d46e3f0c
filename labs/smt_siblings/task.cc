// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab smt_siblings, the starter: it builds and the experiment runs, but it
// trusts the numbering and blames every slowdown on waiting. The first n
// allowed CPUs are n distinct cores on some machines and n/2 cores on
// others (read the
// topology instead, common/machine/topology.h), and a slowdown may be only the
// clock, or a shared core. See task.h for what each function must do.

#include "labs/smt_siblings/task.h"

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/machine/topology.h"

namespace smt_siblings {

absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& /*topology*/, const std::vector<int>& allowed,
    int n) {
  // TODO(you): one CPU per (package, core), from the allowed online CPUs. For
  // now: the first n allowed CPUs, whatever cores they are on.
  std::vector<int> cpus;
  for (int cpu : allowed) {
    if (static_cast<int>(cpus.size()) >= n) break;
    cpus.push_back(cpu);
  }
  return cpus;
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& /*topology*/, const std::vector<int>& allowed,
    int n) {
  // TODO(you): pairs that /sys lists as each other's thread siblings. For now:
  // the allowed CPUs two by two, as if neighbours were siblings.
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i + 1 < allowed.size(); i += 2) {
    if (static_cast<int>(pairs.size()) >= n) break;
    pairs.emplace_back(allowed[i], allowed[i + 1]);
  }
  return pairs;
}

absl::StatusOr<Slowdown> ClassifySlowdown(double time_ratio,
                                          double /*clock_ratio*/) {
  // TODO(you): divide the clock out, and tell sharing from waiting.
  return time_ratio > 1 + kRatioTolerance ? Slowdown::kContention
                                          : Slowdown::kNone;
}

}  // namespace smt_siblings
