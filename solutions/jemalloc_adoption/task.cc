// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab jemalloc_adoption: the reference. CompareTimings() takes the ratio of
// medians and a percentile bootstrap interval (resample each set with
// replacement, recompute the ratio of medians, keep the middle kConfidence of
// those ratios). Recommend() applies the memory budget first, then speed.

#include "labs/jemalloc_adoption/task.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "common/pseudo_random.h"
#include "common/stats.h"

namespace jemalloc_adoption {
namespace {

absl::Status CheckTimings(absl::Span<const double> timings,
                          absl::string_view what) {
  if (timings.size() < static_cast<size_t>(kMinRepetitions)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", timings.size(), " timings; at least ",
                     kMinRepetitions, " are needed to see their spread"));
  }
  for (double t : timings) {
    if (!std::isfinite(t) || t <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": timing ", t, " is not a positive number"));
    }
  }
  return absl::OkStatus();
}

double Median(absl::Span<const double> values) {
  return alloclab::Summarize(values).median;
}

// The median of a resample, which it reorders: the same number as Median()
// (common/stats.h's type-7 p50), without its copy, its full sort and the
// rest of its summary. The bootstrap takes 2 * kBootstrapResamples of them a
// comparison, and the property suite many comparisons.
double MedianOfScratch(std::vector<double>& v) {
  const double rank = 0.5 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  std::nth_element(v.begin(), v.begin() + lo, v.end());
  const double low = v[lo];
  if (lo + 1 == v.size()) return low;
  const double high = *std::min_element(v.begin() + lo + 1, v.end());
  return low + (rank - static_cast<double>(lo)) * (high - low);
}

// One bootstrap resample of `values`: as many draws, with replacement.
void Resample(absl::Span<const double> values, alloclab::XorShift64& rng,
              std::vector<double>& out) {
  out.resize(values.size());
  for (double& v : out) v = values[rng.Next() % values.size()];
}

// The comparison of two sets CheckTimings() accepted: the ratio of medians,
// its percentile bootstrap interval and the interval's verdict.
// CompareTimings() checks, then compares here; a known-bad whose mistake is
// in the checks compares here too (tests/jemalloc_adoption).
Comparison CompareChecked(absl::Span<const double> candidate,
                          absl::Span<const double> baseline, uint64_t seed) {
  Comparison c;
  c.ratio = Median(candidate) / Median(baseline);

  alloclab::XorShift64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(kBootstrapResamples);
  std::vector<double> a, b;
  for (int i = 0; i < kBootstrapResamples; ++i) {
    Resample(candidate, rng, a);
    Resample(baseline, rng, b);
    ratios.push_back(MedianOfScratch(a) / MedianOfScratch(b));
  }
  const double tail = (1 - kConfidence) / 2 * 100;
  // A percentile interval can miss the point estimate by a hair on tiny
  // samples; the interval always contains the ratio it is about.
  c.ci_low = std::min(c.ratio, alloclab::Percentile(ratios, tail));
  c.ci_high = std::max(c.ratio, alloclab::Percentile(ratios, 100 - tail));
  if (c.ci_high < 1) {
    c.verdict = Verdict::kFaster;
  } else if (c.ci_low > 1) {
    c.verdict = Verdict::kSlower;
  } else {
    c.verdict = Verdict::kNoClearDifference;
  }
  return c;
}

}  // namespace

absl::StatusOr<Comparison> CompareTimings(absl::Span<const double> candidate,
                                          absl::Span<const double> baseline,
                                          uint64_t seed) {
  if (absl::Status s = CheckTimings(candidate, "candidate"); !s.ok()) return s;
  if (absl::Status s = CheckTimings(baseline, "baseline"); !s.ok()) return s;
  return CompareChecked(candidate, baseline, seed);
}

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  // allocator -> workload -> its row.
  std::map<std::string, std::map<std::string, const Measurement*>> rows;
  std::vector<std::string> order;  // allocators as the table lists them
  for (const Measurement& m : table) {
    if (!rows.count(m.allocator)) order.push_back(m.allocator);
    if (!rows[m.allocator].emplace(m.workload, &m).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("two rows for ", m.workload, " under ", m.allocator));
    }
  }
  const std::string baseline(kBaseline);
  if (!rows.count(baseline)) {
    return absl::InvalidArgumentError(
        absl::StrCat("no ", baseline, " rows: nothing to compare with"));
  }
  const auto& base = rows[baseline];
  // glibc's own rows first: every comparison divides by them, and a bad one
  // is glibc's to name, whichever allocator the table lists first.
  for (const auto& [workload, b] : base) {
    if (absl::Status s = CheckTimings(b->wall_s, "timings"); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(workload, " under ", baseline, ": ", s.message()));
    }
  }

  struct Candidate {
    std::string allocator;
    double geomean = 1;
    int faster = 0;
    std::vector<std::string> slower_on;
    double worst_memory = 0;  // largest peak RSS ratio to the baseline
  };
  std::vector<Candidate> candidates;
  Recommendation rec;
  for (const std::string& allocator : order) {
    const auto& mine = rows[allocator];
    Candidate cand;
    cand.allocator = allocator;
    // Why it is no candidate: the first gap in the evidence (a row missing
    // or unverified), else the workload where it is furthest over budget.
    // Every row is still compared: a row CompareTimings() refuses makes the
    // table an error, a non-candidate's too.
    std::string no_evidence, over_budget;
    double log_sum = 0;
    for (const auto& [workload, b] : base) {
      auto it = mine.find(workload);
      if (it == mine.end()) {
        if (no_evidence.empty()) {
          no_evidence = absl::StrCat("no row for ", workload);
        }
        continue;
      }
      const Measurement& m = *it->second;
      if (!m.verified && no_evidence.empty()) {
        no_evidence = absl::StrCat("its ", workload,
                                   " row is not verified (malloc may have "
                                   "been glibc's)");
      }
      const double memory = m.peak_rss_kib / b->peak_rss_kib;
      if (memory > budget_ratio && memory > cand.worst_memory) {
        over_budget =
            absl::StrFormat("peak RSS %.2fx %s's on %s, over the %.2fx budget",
                            memory, baseline, workload, budget_ratio);
      }
      cand.worst_memory = std::max(cand.worst_memory, memory);
      absl::StatusOr<Comparison> c = CompareTimings(m.wall_s, b->wall_s, seed);
      if (!c.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            workload, " under ", allocator, ": ", c.status().message()));
      }
      log_sum += std::log(c->ratio);
      if (c->verdict == Verdict::kFaster) ++cand.faster;
      if (c->verdict == Verdict::kSlower) {
        cand.slower_on.push_back(
            absl::StrFormat("%s (%.2fx, interval %.2f-%.2f)", workload,
                            c->ratio, c->ci_low, c->ci_high));
      }
    }
    const std::string& excluded =
        no_evidence.empty() ? over_budget : no_evidence;
    if (!excluded.empty()) {
      rec.reasons.push_back(
          absl::StrCat(allocator, ": not a candidate, ", excluded, "."));
      continue;
    }
    cand.geomean = std::exp(log_sum / static_cast<double>(base.size()));
    candidates.push_back(std::move(cand));
  }

  if (candidates.empty()) {
    rec.reasons.insert(
        rec.reasons.begin(),
        absl::StrFormat("Nothing fits: no allocator stays within %.2fx of "
                        "%s's peak RSS on every workload with verified rows.",
                        budget_ratio, baseline));
    return rec;
  }
  auto clear_win = [](const Candidate& c) {
    return c.faster > 0 && c.slower_on.empty();
  };
  const bool baseline_fits =
      std::any_of(candidates.begin(), candidates.end(),
                  [&](const Candidate& c) { return c.allocator == baseline; });
  const bool any_clear_win =
      std::any_of(candidates.begin(), candidates.end(), clear_win);
  // The baseline and the clear wins; every candidate only when the baseline
  // is over the budget and nothing clearly wins.
  auto eligible = [&](const Candidate& c) {
    return c.allocator == baseline || clear_win(c) ||
           (!baseline_fits && !any_clear_win);
  };
  const Candidate* chosen = nullptr;
  for (const Candidate& c : candidates) {
    // Equal times (repeated timings give exactly equal ones) go to the
    // first name, so that the order of the rows cannot decide.
    if (eligible(c) &&
        (chosen == nullptr || c.geomean < chosen->geomean ||
         (c.geomean == chosen->geomean && c.allocator < chosen->allocator))) {
      chosen = &c;
    }
  }
  if (chosen == nullptr) {  // only non-wins, and the baseline over budget
    chosen = &candidates.front();
  }
  rec.allocator = chosen->allocator;
  std::vector<std::string> why;
  why.push_back(absl::StrFormat(
      "%s: recommended; time %.2fx %s's (geometric mean of the ratios of "
      "medians over %d workloads), clearly faster on %d and slower on %d, "
      "peak RSS at most %.2fx %s's (budget %.2fx).",
      chosen->allocator, chosen->geomean, baseline, base.size(), chosen->faster,
      chosen->slower_on.size(), chosen->worst_memory, baseline, budget_ratio));
  for (const Candidate& c : candidates) {
    if (&c == chosen) continue;
    std::string because;
    if (eligible(c)) {
      because = "slower overall";
    } else if (c.faster == 0) {
      because = "not clearly faster on any workload";
    } else {
      because =
          absl::StrCat("clearly slower on ", absl::StrJoin(c.slower_on, ", "));
    }
    why.push_back(absl::StrFormat(
        "%s: fits the budget (peak RSS at most %.2fx), time %.2fx %s's, but "
        "%s.",
        c.allocator, c.worst_memory, c.geomean, baseline, because));
  }
  rec.reasons.insert(rec.reasons.begin(), why.begin(), why.end());
  return rec;
}

}  // namespace jemalloc_adoption
