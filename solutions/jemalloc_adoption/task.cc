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

namespace {

// The table by allocator, then workload; and the allocators in the order
// the table lists them.
struct Indexed {
  std::map<std::string, std::map<std::string, const Measurement*>> rows;
  std::vector<std::string> order;
};

// IndexTable()
//
// Indexes `table`, refusing two rows for one (allocator, workload), a table
// without the baseline, and a baseline row whose timings no comparison
// could divide by. glibc's own rows are checked first: a bad one is
// glibc's to name, whichever allocator the table lists first.
absl::StatusOr<Indexed> IndexTable(absl::Span<const Measurement> table) {
  Indexed index;
  for (const Measurement& m : table) {
    if (!index.rows.count(m.allocator)) index.order.push_back(m.allocator);
    if (!index.rows[m.allocator].emplace(m.workload, &m).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("two rows for ", m.workload, " under ", m.allocator));
    }
  }
  const std::string baseline(kBaseline);
  if (!index.rows.count(baseline)) {
    return absl::InvalidArgumentError(
        absl::StrCat("no ", baseline, " rows: nothing to compare with"));
  }
  for (const auto& [workload, b] : index.rows[baseline]) {
    if (absl::Status s = CheckTimings(b->wall_s, "timings"); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(workload, " under ", baseline, ": ", s.message()));
    }
  }
  return index;
}

// One allocator against the baseline, over every workload.
struct Candidate {
  std::string allocator;
  double geomean = 1;
  int faster = 0;
  std::vector<std::string> slower_on;
  double worst_memory = 0;  // largest peak RSS ratio to the baseline
  // Why it is no candidate (empty: it is one): the first gap in the
  // evidence (a row missing or unverified), else the workload where it is
  // furthest over budget.
  std::string excluded;
};

// Evaluate()
//
// `allocator`'s rows `mine` against the baseline's `base`. Every row is
// compared, a non-candidate's too: a row CompareTimings() refuses makes the
// table an error.
absl::StatusOr<Candidate> Evaluate(
    const std::string& allocator,
    const std::map<std::string, const Measurement*>& mine,
    const std::map<std::string, const Measurement*>& base, double budget_ratio,
    uint64_t seed) {
  Candidate cand;
  cand.allocator = allocator;
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
                          memory, kBaseline, workload, budget_ratio);
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
      cand.slower_on.push_back(absl::StrFormat("%s (%.2fx, interval %.2f-%.2f)",
                                               workload, c->ratio, c->ci_low,
                                               c->ci_high));
    }
  }
  cand.excluded = no_evidence.empty() ? over_budget : no_evidence;
  cand.geomean = std::exp(log_sum / static_cast<double>(base.size()));
  return cand;
}

bool ClearWin(const Candidate& c) {
  return c.faster > 0 && c.slower_on.empty();
}

// The candidates the choice is among: the baseline and the clear wins;
// every candidate only when the baseline is over the budget and nothing
// clearly wins.
class Eligible {
 public:
  explicit Eligible(const std::vector<Candidate>& candidates)
      : baseline_fits_(std::any_of(
            candidates.begin(), candidates.end(),
            [](const Candidate& c) { return c.allocator == kBaseline; })),
        any_clear_win_(
            std::any_of(candidates.begin(), candidates.end(), ClearWin)) {}
  bool operator()(const Candidate& c) const {
    return c.allocator == kBaseline || ClearWin(c) ||
           (!baseline_fits_ && !any_clear_win_);
  }

 private:
  bool baseline_fits_;
  bool any_clear_win_;
};

// Choose()
//
// The eligible candidate of least time. Equal times (repeated timings give
// exactly equal ones) go to the first name, so that the order of the rows
// cannot decide. `candidates` is not empty.
const Candidate& Choose(const std::vector<Candidate>& candidates,
                        const Eligible& eligible) {
  const Candidate* chosen = nullptr;
  for (const Candidate& c : candidates) {
    if (eligible(c) &&
        (chosen == nullptr || c.geomean < chosen->geomean ||
         (c.geomean == chosen->geomean && c.allocator < chosen->allocator))) {
      chosen = &c;
    }
  }
  // Only non-wins, and the baseline over budget.
  return chosen != nullptr ? *chosen : candidates.front();
}

// Reasons()
//
// The memo's lines on the candidates: why `chosen`, then why not each
// other one.
std::vector<std::string> Reasons(const std::vector<Candidate>& candidates,
                                 const Candidate& chosen,
                                 const Eligible& eligible, size_t workloads,
                                 double budget_ratio) {
  std::vector<std::string> why;
  why.push_back(absl::StrFormat(
      "%s: recommended; time %.2fx %s's (geometric mean of the ratios of "
      "medians over %d workloads), clearly faster on %d and slower on %d, "
      "peak RSS at most %.2fx %s's (budget %.2fx).",
      chosen.allocator, chosen.geomean, kBaseline, workloads, chosen.faster,
      chosen.slower_on.size(), chosen.worst_memory, kBaseline, budget_ratio));
  for (const Candidate& c : candidates) {
    if (&c == &chosen) continue;
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
        c.allocator, c.worst_memory, c.geomean, kBaseline, because));
  }
  return why;
}

}  // namespace

absl::StatusOr<Recommendation> Recommend(absl::Span<const Measurement> table,
                                         double budget_ratio, uint64_t seed) {
  absl::StatusOr<Indexed> index = IndexTable(table);
  if (!index.ok()) return index.status();
  const auto& base = index->rows[std::string(kBaseline)];
  std::vector<Candidate> candidates;
  Recommendation rec;
  for (const std::string& allocator : index->order) {
    absl::StatusOr<Candidate> cand =
        Evaluate(allocator, index->rows[allocator], base, budget_ratio, seed);
    if (!cand.ok()) return cand.status();
    if (!cand->excluded.empty()) {
      rec.reasons.push_back(
          absl::StrCat(allocator, ": not a candidate, ", cand->excluded, "."));
      continue;
    }
    candidates.push_back(*std::move(cand));
  }
  if (candidates.empty()) {
    rec.reasons.insert(
        rec.reasons.begin(),
        absl::StrFormat("Nothing fits: no allocator stays within %.2fx of "
                        "%s's peak RSS on every workload with verified rows.",
                        budget_ratio, kBaseline));
    return rec;
  }
  const Eligible eligible(candidates);
  const Candidate& chosen = Choose(candidates, eligible);
  rec.allocator = chosen.allocator;
  const std::vector<std::string> why =
      Reasons(candidates, chosen, eligible, base.size(), budget_ratio);
  rec.reasons.insert(rec.reasons.begin(), why.begin(), why.end());
  return rec;
}

}  // namespace jemalloc_adoption
