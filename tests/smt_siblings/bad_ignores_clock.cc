// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known-bad: diagnoses from the time alone. Any slowdown up to 2x is "a
// shared core", so the reference run's four threads on four cores, slower
// only because their clock was, are blamed on sharing. The checks, the
// noise margin and the bounds are the reference's.

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
  // The mistake: the clock is never divided out, as if it had not changed.
  return Diagnose(time_ratio, /*clock_ratio=*/1);
}

}  // namespace smt_siblings
