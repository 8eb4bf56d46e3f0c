// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: refuses a ratio only when it is 0 or negative. NaN
// compares false with everything and infinity is greater than 0, so both
// get a diagnosis, where task.h promises InvalidArgument for any ratio
// that is not a positive finite number.
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
  // The mistake: NaN and infinity pass this check.
  if (time_ratio <= 0 || clock_ratio <= 0) {
    return absl::InvalidArgumentError("not a ratio");
  }
  // From here on, the reference's diagnosis of two checked ratios.
  return Diagnose(time_ratio, clock_ratio);
}

}  // namespace smt_siblings
