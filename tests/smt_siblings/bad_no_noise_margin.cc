// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: "a ratio above 1 is a slowdown". Any time ratio above 1 is
// diagnosed, so a row 5% slower than one thread alone, well inside the
// noise of a shared machine, gets "clock" or "shared core"; task.h's
// property 2 is "none" exactly when t <= 1 + kRatioTolerance.
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
  if (!right.ok()) return right;
  // The mistake: no noise margin on the time.
  if (time_ratio <= 1) return Slowdown::kNone;
  return BeyondTheNoise(time_ratio / clock_ratio);
}

}  // namespace smt_siblings
