// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: the time ratio is checked for NaN and infinity, the clock
// ratio only with !(c > 0), which refuses NaN, 0 and negatives. An infinite
// clock ratio passes: r = t / inf = 0, "the clock explains it". It looks
// right because the clock ratio is "only a divisor", and because NaN, the
// usual non-number, is refused; task.h's property 1 is InvalidArgument when
// either ratio is not a positive finite number.
// The rest is the reference's. The suite must reject it.

#include <cmath>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "labs/smt_siblings/task.h"

// The reference, with its ClassifySlowdown() renamed out of the way.
#define ClassifySlowdown ReferenceClassifySlowdown
#include "solutions/smt_siblings/task.cc"
#undef ClassifySlowdown

namespace smt_siblings {

absl::StatusOr<Slowdown> ClassifySlowdown(double time_ratio,
                                          double clock_ratio) {
  // The mistake: infinity is not checked on the clock ratio.
  if (!std::isfinite(time_ratio) || time_ratio <= 0 || !(clock_ratio > 0)) {
    return absl::InvalidArgumentError("not a ratio");
  }
  // From here on, the reference's diagnosis of two checked ratios.
  return Diagnose(time_ratio, clock_ratio);
}

}  // namespace smt_siblings
