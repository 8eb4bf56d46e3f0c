// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The capstone's score (score.h): the formula, in one place.

#include "labs/allocator_design/score.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace allocator_design {
namespace {

// Why `ops_per_s` of `whose` is no measurement, or "" when it is one.
std::string NotMeasured(const char* whose, std::optional<double> ops_per_s) {
  if (!ops_per_s.has_value()) return absl::StrCat(whose, " not measured");
  if (!std::isfinite(*ops_per_s) || *ops_per_s <= 0) {
    return absl::StrCat(whose, " measured as ", *ops_per_s,
                        " operations per second");
  }
  return "";
}

}  // namespace

absl::StatusOr<double> ThroughputRatio(std::optional<double> yours_ops_per_s,
                                       std::optional<double> glibc_ops_per_s) {
  std::vector<std::string> why;
  for (std::string reason : {NotMeasured("yours", yours_ops_per_s),
                             NotMeasured("glibc's", glibc_ops_per_s)}) {
    if (!reason.empty()) why.push_back(std::move(reason));
  }
  if (!why.empty()) {
    return absl::UnavailableError(
        absl::StrCat("throughput unavailable: ", absl::StrJoin(why, "; ")));
  }
  return *yours_ops_per_s / *glibc_ops_per_s;
}

TraceScore ScoreTrace(std::string trace, double utilization,
                      absl::StatusOr<double> throughput_ratio) {
  TraceScore s;
  s.trace = std::move(trace);
  s.utilization = utilization;
  s.utilization_points = kUtilizationWeight * utilization;
  s.throughput_ratio = std::move(throughput_ratio);
  if (s.throughput_ratio.ok()) {
    s.throughput_points = (1 - kUtilizationWeight) *
                          std::min(kThroughputCap, *s.throughput_ratio);
    s.score = s.utilization_points + *s.throughput_points;
  }
  return s;
}

Score TotalScore(const std::vector<TraceScore>& traces) {
  Score total;
  if (traces.empty()) {
    total.unavailable = "no traces";
    return total;
  }
  double utilization_points = 0, throughput_points = 0;
  std::vector<std::string> missing;
  for (const TraceScore& t : traces) {
    utilization_points += t.utilization_points;
    if (t.throughput_points.has_value()) {
      throughput_points += *t.throughput_points;
    } else {
      missing.push_back(absl::StrCat(
          t.trace, " (", t.throughput_ratio.status().message(), ")"));
    }
  }
  const double n = static_cast<double>(traces.size());
  total.utilization_points = utilization_points / n;
  if (!missing.empty()) {
    total.unavailable = absl::StrCat("throughput unavailable on ",
                                     absl::StrJoin(missing, ", "));
    return total;
  }
  total.throughput_points = throughput_points / n;
  total.score = total.utilization_points + *total.throughput_points;
  return total;
}

}  // namespace allocator_design
