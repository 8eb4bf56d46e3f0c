// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: diagnoses from the time alone. Any slowdown up to 2x is "a
// shared core", so the reference run's four threads on four cores, slower
// only because their clock was, are blamed on sharing.

#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/topology.h"
#include "labs/smt_siblings/task.h"

// The reference, with its ClassifySlowdown() renamed out of the way.
#define ClassifySlowdown ReferenceClassifySlowdown
#include "solutions/smt_siblings/task.cc"
#undef ClassifySlowdown

namespace smt_siblings {

absl::StatusOr<Slowdown> ClassifySlowdown(double time_ratio,
                                          double clock_ratio) {
  if (!std::isfinite(time_ratio) || !std::isfinite(clock_ratio) ||
      time_ratio <= 0 || clock_ratio <= 0) {
    return absl::InvalidArgumentError("not a ratio");
  }
  const double same = 1 + kRatioTolerance;
  if (time_ratio <= same) return Slowdown::kNone;
  return time_ratio <= kSharingBound * same ? Slowdown::kSharedCore
                                            : Slowdown::kContention;
}

}  // namespace smt_siblings
