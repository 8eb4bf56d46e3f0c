// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/noise.h"

#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace alloclab {

bool DifferenceExceedsNoise(Estimate a, Estimate b) {
  if (a.samples == 1 || b.samples == 1) return false;  // no spread measured
  return std::fabs(a.value - b.value) > a.spread + b.spread;
}

std::string DifferenceNote(absl::string_view what, absl::string_view a_name,
                           Estimate a, absl::string_view b_name, Estimate b,
                           absl::string_view unit, int precision) {
  const double difference = a.value - b.value;
  if (a.samples == 1 || b.samples == 1) {
    return absl::StrFormat(
        "%s: %s - %s = %.*f %s from a single measurement, whose noise is "
        "unknown, so this run cannot tell it (repeat the rows: "
        "--repetitions=3 or more)",
        what, a_name, b_name, precision, difference, unit);
  }
  if (DifferenceExceedsNoise(a, b)) {
    return absl::StrFormat("%s ≈ %.*f %s here (%s - %s)", what, precision,
                           difference, unit, a_name, b_name);
  }
  return absl::StrFormat(
      "%s: %s - %s = %.*f %s is within noise (± %.*f %s and ± %.*f %s), so "
      "this run cannot tell it",
      what, a_name, b_name, precision, difference, unit, precision, a.spread,
      unit, precision, b.spread, unit);
}

}  // namespace alloclab
