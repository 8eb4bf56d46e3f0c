// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: any slowdown beyond the clock is "a shared core". The
// rules stop at kSharingBound: a core's two threads cost at most that much
// each, and more than that (a shared counter's cache line) is contention,
// which this never says.
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
  // The mistake: no bound on what sharing a core explains.
  if (right.ok() && *right == Slowdown::kContention) {
    return Slowdown::kSharedCore;
  }
  return right;
}

}  // namespace smt_siblings
