// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: "the clock explains it when the two ratios agree", within
// the tolerance either way: |t / c - 1| <= kRatioTolerance. A row whose
// clock slowed more than its time (t 1.3, c 2.0) is then no longer "the
// clock" and falls through to "shared core", and a slower clock makes the
// verdict harsher; task.h's property 4 is "clock" whenever r <= 1, and
// property 7 that a slower clock never gives a harsher verdict.
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
  if (!right.ok() || *right != Slowdown::kClock) return right;
  // The mistake: the tolerance taken both ways round 1.
  const double beyond_clock = time_ratio / clock_ratio;
  if (std::abs(beyond_clock - 1) <= kRatioTolerance) return Slowdown::kClock;
  return Slowdown::kSharedCore;
}

}  // namespace smt_siblings
