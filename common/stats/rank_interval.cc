// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/stats/rank_interval.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace alloclab {
namespace {

// counts[u]: the arrangements of `n` and `m` items whose Mann-Whitney U is
// u, by the recurrence f(n, m, u) = f(n - 1, m, u - m) + f(n, m - 1, u).
std::vector<double> MannWhitneyCounts(int n, int m) {
  // table[i][j]: the counts for i and j items, each a vector over u.
  std::vector<std::vector<std::vector<double>>> table(
      static_cast<size_t>(n + 1),
      std::vector<std::vector<double>>(static_cast<size_t>(m + 1)));
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= m; ++j) {
      std::vector<double>& f =
          table[static_cast<size_t>(i)][static_cast<size_t>(j)];
      f.assign(static_cast<size_t>(i * j + 1), 0.0);
      if (i == 0 || j == 0) {
        f[0] = 1;
        continue;
      }
      const std::vector<double>& a =
          table[static_cast<size_t>(i - 1)][static_cast<size_t>(j)];
      const std::vector<double>& b =
          table[static_cast<size_t>(i)][static_cast<size_t>(j - 1)];
      for (int u = 0; u <= i * j; ++u) {
        if (u - j >= 0 && u - j < static_cast<int>(a.size())) {
          f[static_cast<size_t>(u)] += a[static_cast<size_t>(u - j)];
        }
        if (u < static_cast<int>(b.size())) {
          f[static_cast<size_t>(u)] += b[static_cast<size_t>(u)];
        }
      }
    }
  }
  return table[static_cast<size_t>(n)][static_cast<size_t>(m)];
}

}  // namespace

double MannWhitneyCdf(int n, int m, int u) {
  if (u < 0) return 0;
  const std::vector<double> counts = MannWhitneyCounts(n, m);
  double total = 0, below = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    total += counts[i];
    if (static_cast<int>(i) <= u) below += counts[i];
  }
  return below / total;
}

absl::StatusOr<RatioInterval> HodgesLehmannRatio(
    absl::Span<const double> candidate, absl::Span<const double> baseline,
    double confidence) {
  if (candidate.empty() || baseline.empty()) {
    return absl::InvalidArgumentError(
        "Hodges-Lehmann interval: both sets need at least one timing");
  }
  if (!(confidence > 0 && confidence < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Hodges-Lehmann interval: confidence ", confidence,
                     " is not between 0 and 1"));
  }
  for (absl::Span<const double> set : {candidate, baseline}) {
    for (double t : set) {
      if (!(t > 0) || !std::isfinite(t)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Hodges-Lehmann interval: timing ", t, " is not positive"));
      }
    }
  }
  std::vector<double> logs;  // every log(candidate[i] / baseline[j])
  logs.reserve(candidate.size() * baseline.size());
  for (double c : candidate) {
    for (double b : baseline) logs.push_back(std::log(c) - std::log(b));
  }
  std::sort(logs.begin(), logs.end());
  const int n = static_cast<int>(candidate.size());
  const int m = static_cast<int>(baseline.size());
  const int pairs = n * m;
  // The largest j whose interval, the j-th smallest ratio to the j-th
  // largest, still covers with at least `confidence`: its coverage is
  // 1 - 2 P(U <= j - 1). j = 1 is the widest, smallest to largest.
  int j = 1;
  while (2 * (j + 1) <= pairs + 1 &&
         1 - 2 * MannWhitneyCdf(n, m, j) >= confidence) {
    ++j;
  }
  RatioInterval r;
  const size_t mid = logs.size() / 2;
  const double median_log =
      logs.size() % 2 == 1 ? logs[mid] : (logs[mid - 1] + logs[mid]) / 2;
  r.estimate = std::exp(median_log);
  r.low = std::exp(logs[static_cast<size_t>(j - 1)]);
  r.high = std::exp(logs[static_cast<size_t>(pairs - j)]);
  r.coverage = 1 - 2 * MannWhitneyCdf(n, m, j - 1);
  r.rank = j;
  return r;
}

}  // namespace alloclab
