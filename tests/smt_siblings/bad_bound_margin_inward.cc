// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: the noise margin taken inward at the bound, "contention as
// soon as r is within the noise of kSharingBound": r > B / (1 + tol), 1.74x.
// The allocator article's SMT siblings (1.76x on an unchanged clock) are
// then contention; task.h's property 5 is "shared core" whenever
// 1 + tol < r <= B, and property 6 never contention for r <= B.
// The rest is the reference's. The suite must reject it.

#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/topology.h"
#include "labs/smt_siblings/task.h"

// The reference, with its ClassifySlowdown() renamed out of the way.
#define ClassifySlowdown ReferenceClassifySlowdown
#include "solutions/smt_siblings/task.cc"
#undef ClassifySlowdown

namespace smt_siblings {

absl::StatusOr<Slowdown> ClassifySlowdown(double time_ratio,
                                          double clock_ratio) {
  absl::StatusOr<Slowdown> right =
      ReferenceClassifySlowdown(time_ratio, clock_ratio);
  if (!right.ok() || *right != Slowdown::kSharedCore) return right;
  // The mistake: the margin divides the bound instead of widening it.
  return time_ratio / clock_ratio > kSharingBound / (1 + kRatioTolerance)
             ? Slowdown::kContention
             : Slowdown::kSharedCore;
}

}  // namespace smt_siblings
