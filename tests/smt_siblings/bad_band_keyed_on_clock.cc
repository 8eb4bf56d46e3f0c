// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: in the noise band 1 < r <= 1 + tol, where task.h leaves the
// choice between "clock" and "shared core" to the design, it asks the clock
// ratio: "clock" when the clock itself slowed by more than the noise
// (c > 1 + tol), else "shared core". It looks right, since a measurably
// slower clock is the likelier culprit, and it keeps every other property;
// but two rows with the same r then get different verdicts, and task.h's
// property 3 is that beyond the noise on the time the verdict depends on r
// alone. Only clock ratios between 1 and 1 + tol tell it apart.
// The rest is the reference's. The suite must reject it.

#include "absl/status/statusor.h"
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
  const double tol = 1 + kRatioTolerance;
  const double r = time_ratio / clock_ratio;
  if (!right.ok() || time_ratio <= tol || r <= 1 || r > tol) return right;
  // The mistake: the band's verdict keyed on c, not on r.
  return clock_ratio > tol ? Slowdown::kClock : Slowdown::kSharedCore;
}

}  // namespace smt_siblings
