// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab smt_siblings, the reference: placement from /sys's sibling lists and
// package/core ids, never from the numbering; a diagnosis that divides the
// clock out of the time before it calls anything "sharing".

#include "labs/smt_siblings/task.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/machine/topology.h"

namespace smt_siblings {
namespace {

// The allowed online CPUs of each core, by core, each core's CPUs in
// increasing order. A core is (package, core id): core ids repeat across
// the packages of a server.
std::map<std::pair<int, int>, std::vector<const alloclab::Cpu*>> CoresOf(
    const alloclab::Topology& topology, const std::vector<int>& allowed) {
  std::vector<int> sorted = allowed;
  std::sort(sorted.begin(), sorted.end());
  std::map<std::pair<int, int>, std::vector<const alloclab::Cpu*>> cores;
  for (const alloclab::Cpu& cpu : topology.cpus) {
    if (std::binary_search(sorted.begin(), sorted.end(), cpu.id)) {
      cores[{cpu.package_id, cpu.core_id}].push_back(&cpu);
    }
  }
  for (auto& [core, cpus] : cores) {
    std::sort(cpus.begin(), cpus.end(),
              [](const alloclab::Cpu* a, const alloclab::Cpu* b) {
                return a->id < b->id;
              });
  }
  return cores;
}

// "1 core", "3 cores".
std::string Cores(size_t n) {
  return absl::StrCat(n, n == 1 ? " core" : " cores");
}

bool Lists(const alloclab::Cpu& cpu, int other) {
  return std::find(cpu.siblings.begin(), cpu.siblings.end(), other) !=
         cpu.siblings.end();
}

// The diagnosis of a row slowed beyond the noise, from what the clock leaves
// unexplained: r = t / c.
Slowdown BeyondTheNoise(double unexplained) {
  const double tolerance = 1 + kRatioTolerance;
  if (unexplained <= tolerance) return Slowdown::kClock;
  if (unexplained <= kSharingBound * tolerance) return Slowdown::kSharedCore;
  return Slowdown::kContention;
}

// The diagnosis of two ratios already known to be positive finite numbers.
// ClassifySlowdown() checks, then diagnoses here; a known-bad whose mistake
// is in the checks or in the noise margin diagnoses here too
// (tests/smt_siblings).
Slowdown Diagnose(double time_ratio, double clock_ratio) {
  if (time_ratio <= 1 + kRatioTolerance) return Slowdown::kNone;
  return BeyondTheNoise(time_ratio / clock_ratio);
}

}  // namespace

absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  if (n < 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "asked for %d CPUs on distinct cores; want 1 or more", n));
  }
  std::vector<int> firsts;
  for (const auto& [core, cpus] : CoresOf(topology, allowed)) {
    firsts.push_back(cpus.front()->id);
  }
  if (static_cast<int>(firsts.size()) < n) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "asked for %d CPUs on distinct cores, but the CPUs this process may "
        "use (%s) are on %s",
        n, alloclab::FormatCpuList(allowed), Cores(firsts.size())));
  }
  // Lowest ids first: sort by the id, not by the core.
  std::sort(firsts.begin(), firsts.end());
  firsts.resize(static_cast<size_t>(n));
  return firsts;
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  if (n < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("asked for %d SMT sibling pairs; want 1 or more", n));
  }
  std::vector<std::pair<int, int>> pairs;
  for (const auto& [core, cpus] : CoresOf(topology, allowed)) {
    // The first CPU and its lowest sibling that /sys agrees on both ways.
    const alloclab::Cpu& first = *cpus.front();
    for (size_t i = 1; i < cpus.size(); ++i) {
      if (Lists(first, cpus[i]->id) && Lists(*cpus[i], first.id)) {
        pairs.emplace_back(first.id, cpus[i]->id);
        break;
      }
    }
  }
  if (static_cast<int>(pairs.size()) < n) {
    if (!topology.smt()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "asked for %d SMT sibling pair%s, but this machine has no SMT: "
          "each of its %s runs one thread",
          n, n == 1 ? "" : "s", Cores(topology.physical_cores())));
    }
    return absl::InvalidArgumentError(absl::StrFormat(
        "asked for %d SMT sibling pair%s, but of the CPUs this process may "
        "use (%s), only %s have two threads each",
        n, n == 1 ? "" : "s", alloclab::FormatCpuList(allowed),
        Cores(pairs.size())));
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.resize(static_cast<size_t>(n));
  return pairs;
}

absl::StatusOr<Slowdown> ClassifySlowdown(double time_ratio,
                                          double clock_ratio) {
  for (double ratio : {time_ratio, clock_ratio}) {
    if (!std::isfinite(ratio) || ratio <= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "ratios must be positive finite numbers; got time ratio %g, clock "
          "ratio %g",
          time_ratio, clock_ratio));
    }
  }
  return Diagnose(time_ratio, clock_ratio);
}

}  // namespace smt_siblings
