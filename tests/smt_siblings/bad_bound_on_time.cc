// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: the sharing bound applied to the whole time ratio, "a
// thread that shares a core runs at most 2x slower". The clock is divided
// out to find "clock", but not before the bound: a row 3x slower on a clock
// that halved (1.5x beyond the clock) is called contention; task.h's
// property 3 is that beyond the noise only r = t / c counts, and property
// 6 that r <= kSharingBound is never contention.
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
  if (!right.ok() || *right == Slowdown::kNone || *right == Slowdown::kClock) {
    return right;
  }
  // The mistake: t, not r, against the bound.
  return time_ratio <= kSharingBound * (1 + kRatioTolerance)
             ? Slowdown::kSharedCore
             : Slowdown::kContention;
}

}  // namespace smt_siblings
