// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "tests/smt_siblings/known_bad_common.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/topology.h"
#include "labs/smt_siblings/task.h"

namespace smt_siblings::known_bad {
namespace {

bool Allowed(const std::vector<int>& allowed, int id) {
  return std::find(allowed.begin(), allowed.end(), id) != allowed.end();
}

}  // namespace

absl::StatusOr<std::vector<int>> CorrectDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  if (n < 1) return absl::InvalidArgumentError("n < 1");
  std::set<std::pair<int, int>> used;
  std::vector<int> picked;
  for (const alloclab::Cpu& cpu : topology.cpus) {  // by id
    if (static_cast<int>(picked.size()) == n) break;
    if (Allowed(allowed, cpu.id) &&
        used.insert({cpu.package_id, cpu.core_id}).second) {
      picked.push_back(cpu.id);
    }
  }
  if (static_cast<int>(picked.size()) < n) {
    return absl::InvalidArgumentError(
        absl::StrCat("asked for ", n, " cores, but only ", picked.size(),
                     " have an allowed CPU"));
  }
  return picked;
}

absl::StatusOr<std::vector<std::pair<int, int>>> CorrectSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  if (n < 1) return absl::InvalidArgumentError("n < 1");
  std::set<std::pair<int, int>> used;
  std::vector<std::pair<int, int>> pairs;
  for (const alloclab::Cpu& cpu : topology.cpus) {  // by id
    if (static_cast<int>(pairs.size()) == n) break;
    if (!Allowed(allowed, cpu.id) ||
        used.count({cpu.package_id, cpu.core_id}) > 0) {
      continue;
    }
    for (int sibling : cpu.siblings) {
      if (sibling > cpu.id && Allowed(allowed, sibling)) {
        used.insert({cpu.package_id, cpu.core_id});
        pairs.emplace_back(cpu.id, sibling);
        break;
      }
    }
  }
  if (static_cast<int>(pairs.size()) < n) {
    return absl::InvalidArgumentError(
        topology.smt()
            ? absl::StrCat("asked for ", n, " sibling pairs, but only ",
                           pairs.size(), " cores have two allowed CPUs")
            : "no SMT: no core has two threads");
  }
  return pairs;
}

absl::StatusOr<Slowdown> CorrectClassify(double time_ratio,
                                         double clock_ratio) {
  if (!(time_ratio > 0) || !(clock_ratio > 0) || std::isinf(time_ratio) ||
      std::isinf(clock_ratio)) {
    return absl::InvalidArgumentError("not a ratio");
  }
  const double same = 1 + kRatioTolerance;
  if (time_ratio <= same) return Slowdown::kNone;
  const double beyond_clock = time_ratio / clock_ratio;
  if (beyond_clock <= same) return Slowdown::kClock;
  return beyond_clock <= kSharingBound * same ? Slowdown::kSharedCore
                                              : Slowdown::kContention;
}

}  // namespace smt_siblings::known_bad

// The task itself, correct and weak: a known-bad's own definition of one of
// these replaces it, so that each bad_*.cc defines only what it gets wrong.
namespace smt_siblings {

__attribute__((weak)) absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  return known_bad::CorrectDistinctCores(topology, allowed, n);
}

__attribute__((weak)) absl::StatusOr<std::vector<std::pair<int, int>>>
PickSiblingPairs(const alloclab::Topology& topology,
                 const std::vector<int>& allowed, int n) {
  return known_bad::CorrectSiblingPairs(topology, allowed, n);
}

__attribute__((weak)) absl::StatusOr<Slowdown> ClassifySlowdown(
    double time_ratio, double clock_ratio) {
  return known_bad::CorrectClassify(time_ratio, clock_ratio);
}

}  // namespace smt_siblings
