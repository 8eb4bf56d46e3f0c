// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The check of lab jemalloc_adoption, written against task.h only, on fixed
// data sets: nothing here is measured, so every verdict is the same on any
// machine. Bounds on intervals are the ones any correct method must meet
// (a bootstrap or an exact interval alike): an interval contains its ratio
// and stays within what the data allow.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "labs/jemalloc_adoption/task.h"

namespace jemalloc_adoption {
namespace {

// Two sets whose ranges overlap: no method may call one faster.
const Timings kNoisyA = {1.00, 1.05, 0.95, 1.02, 0.98};
const Timings kNoisyB = {1.01, 0.97, 1.04, 0.99, 1.03};
// Half the time, with little spread.
const Timings kFast = {0.50, 0.52, 0.49, 0.51, 0.50};
const Timings kSlow = {1.00, 1.02, 0.99, 1.01, 1.00};

double Min(const Timings& t) { return *std::min_element(t.begin(), t.end()); }
double Max(const Timings& t) { return *std::max_element(t.begin(), t.end()); }

void ExpectSaneInterval(const Comparison& c, const Timings& a,
                        const Timings& b) {
  EXPECT_LE(c.ci_low, c.ratio);
  EXPECT_GE(c.ci_high, c.ratio);
  EXPECT_GE(c.ci_low, Min(a) / Max(b) * (1 - 1e-12));
  EXPECT_LE(c.ci_high, Max(a) / Min(b) * (1 + 1e-12));
}

TEST(CompareTimingsTest, OverlappingSamplesGiveNoClearDifference) {
  absl::StatusOr<Comparison> c = CompareTimings(kNoisyA, kNoisyB, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verdict, Verdict::kNoClearDifference)
      << VerdictName(c->verdict) << ", ratio " << c->ratio << " ["
      << c->ci_low << ", " << c->ci_high << "]";
  EXPECT_LE(c->ci_low, 1.0);
  EXPECT_GE(c->ci_high, 1.0);
  ExpectSaneInterval(*c, kNoisyA, kNoisyB);
}

TEST(CompareTimingsTest, ScatteredTimingsGiveAnIntervalNotAPoint) {
  absl::StatusOr<Comparison> c = CompareTimings(kNoisyA, kNoisyB, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_GT(c->ci_high - c->ci_low, 0.01);
}

TEST(CompareTimingsTest, SeparatedSamplesGiveAVerdictWhoseIntervalExcludesOne) {
  absl::StatusOr<Comparison> faster = CompareTimings(kFast, kSlow, 1);
  ASSERT_TRUE(faster.ok()) << faster.status();
  EXPECT_EQ(faster->verdict, Verdict::kFaster);
  EXPECT_LT(faster->ci_high, 1.0);
  ExpectSaneInterval(*faster, kFast, kSlow);

  absl::StatusOr<Comparison> slower = CompareTimings(kSlow, kFast, 1);
  ASSERT_TRUE(slower.ok()) << slower.status();
  EXPECT_EQ(slower->verdict, Verdict::kSlower);
  EXPECT_GT(slower->ci_low, 1.0);
  ExpectSaneInterval(*slower, kSlow, kFast);
}

TEST(CompareTimingsTest, RatioIsTheRatioOfMedians) {
  // Medians 3 and 4; means 5 and 4.
  absl::StatusOr<Comparison> c = CompareTimings({2, 3, 10}, {4, 4, 4}, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_DOUBLE_EQ(c->ratio, 0.75);
  // An even count: the median is the mean of the middle two.
  c = CompareTimings({1, 2, 4, 100}, {2, 2, 2, 2}, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_DOUBLE_EQ(c->ratio, 1.5);
}

// One run of nine hit by a hiccup (20x slower) must not turn "twice as
// fast" into "slower": the median ignores it, a mean does not.
TEST(CompareTimingsTest, MedianResistsOneOutlier) {
  const Timings candidate = {0.50, 0.50, 0.51, 0.49, 0.50,
                             0.50, 0.52, 0.48, 10.0};
  const Timings baseline = {1.00, 1.01, 0.99, 1.00, 1.02,
                            0.98, 1.00, 1.01, 0.99};
  absl::StatusOr<Comparison> c = CompareTimings(candidate, baseline, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->verdict, Verdict::kFaster)
      << VerdictName(c->verdict) << ", ratio " << c->ratio << " ["
      << c->ci_low << ", " << c->ci_high << "]";
  EXPECT_DOUBLE_EQ(c->ratio, 0.50);
}

TEST(CompareTimingsTest, FewerThanTheRequiredRepetitionsIsAnError) {
  const Timings few(kMinRepetitions - 1, 1.0);
  const Timings enough(kMinRepetitions, 1.0);
  EXPECT_EQ(CompareTimings(few, enough, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CompareTimings(enough, few, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(CompareTimings(enough, enough, 1).ok());
}

TEST(CompareTimingsTest, ATimingThatIsNotAPositiveNumberIsAnError) {
  for (double bad : {0.0, -1.0, std::nan(""),
                     std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(CompareTimings({1.0, 1.1, bad}, kSlow, 1).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(CompareTimingsTest, SameSeedSameInterval) {
  for (uint64_t seed : {1u, 7u, 12345u}) {
    absl::StatusOr<Comparison> first = CompareTimings(kNoisyA, kFast, seed);
    absl::StatusOr<Comparison> again = CompareTimings(kNoisyA, kFast, seed);
    ASSERT_TRUE(first.ok() && again.ok());
    EXPECT_EQ(first->ratio, again->ratio);
    EXPECT_EQ(first->ci_low, again->ci_low);
    EXPECT_EQ(first->ci_high, again->ci_high);
    EXPECT_EQ(first->verdict, again->verdict);
  }
}

// Timings around `median` seconds with a 1% spread.
Timings Around(double median) {
  return {median * 0.99, median, median * 1.01, median * 0.995,
          median * 1.005};
}

Measurement Row(const std::string& workload, const std::string& allocator,
                double median_s, double peak_rss_kib, bool verified = true) {
  return Measurement{workload, allocator, Around(median_s), peak_rss_kib,
                     verified};
}

bool ReasonsMention(const Recommendation& rec, const std::string& word) {
  for (const std::string& reason : rec.reasons) {
    if (absl::StrContains(reason, word)) return true;
  }
  return false;
}

// tcmalloc is fastest but takes twice glibc's memory; jemalloc is the
// fastest of those within the budget.
std::vector<Measurement> BudgetTable() {
  return {
      Row("treemap", "glibc", 1.0, 100000),
      Row("treemap", "jemalloc", 0.7, 110000),
      Row("treemap", "tcmalloc", 0.5, 200000),
      Row("treemap", "mimalloc", 0.8, 100000),
      Row("msgsend", "glibc", 2.0, 50000),
      Row("msgsend", "jemalloc", 1.4, 52000),
      Row("msgsend", "tcmalloc", 1.0, 60000),
      Row("msgsend", "mimalloc", 1.8, 50000),
  };
}

TEST(RecommendTest, RecommendationRespectsTheBudget) {
  absl::StatusOr<Recommendation> rec = Recommend(BudgetTable());
  ASSERT_TRUE(rec.ok()) << rec.status();
  ASSERT_TRUE(rec->allocator.has_value());
  EXPECT_EQ(*rec->allocator, "jemalloc");
}

TEST(RecommendTest, ReasonsNameEveryAllocatorNotChosen) {
  absl::StatusOr<Recommendation> rec = Recommend(BudgetTable());
  ASSERT_TRUE(rec.ok()) << rec.status();
  for (const char* other : {"tcmalloc", "mimalloc", "glibc"}) {
    EXPECT_TRUE(ReasonsMention(*rec, other)) << other;
  }
}

TEST(RecommendTest, TheBudgetBoundaryIsInclusive) {
  std::vector<Measurement> table = {
      Row("treemap", "glibc", 1.0, 100000),
      Row("treemap", "jemalloc", 0.6,
          100000 * kMemoryBudgetRatio),  // exactly at the budget
      Row("treemap", "tcmalloc", 0.5, 100000 * kMemoryBudgetRatio + 1),
  };
  absl::StatusOr<Recommendation> rec = Recommend(table);
  ASSERT_TRUE(rec.ok()) << rec.status();
  ASSERT_TRUE(rec->allocator.has_value());
  EXPECT_EQ(*rec->allocator, "jemalloc");
}

TEST(RecommendTest, SaysWhenNothingFitsTheBudget) {
  // A budget below 1: use less memory than glibc; nobody does.
  absl::StatusOr<Recommendation> rec = Recommend(BudgetTable(), 0.9);
  ASSERT_TRUE(rec.ok()) << rec.status();
  EXPECT_FALSE(rec->allocator.has_value()) << *rec->allocator;
  EXPECT_FALSE(rec->reasons.empty());
}

TEST(RecommendTest, AnUnverifiedRowDisqualifiesItsAllocator) {
  std::vector<Measurement> table = BudgetTable();
  for (Measurement& m : table) {
    if (m.allocator == "tcmalloc") m.peak_rss_kib = 50000;  // fits now
    if (m.allocator == "tcmalloc" && m.workload == "msgsend") {
      m.verified = false;  // ... but its msgsend row may be glibc's
    }
  }
  absl::StatusOr<Recommendation> rec = Recommend(table);
  ASSERT_TRUE(rec.ok()) << rec.status();
  ASSERT_TRUE(rec->allocator.has_value());
  EXPECT_EQ(*rec->allocator, "jemalloc");
  EXPECT_TRUE(ReasonsMention(*rec, "tcmalloc"));
}

TEST(RecommendTest, KeepsTheBaselineWithoutAClearWin) {
  std::vector<Measurement> table = {
      {"treemap", "glibc", kNoisyB, 100000, true},
      {"treemap", "jemalloc", kNoisyA, 100000, true},  // a shade faster
  };
  absl::StatusOr<Recommendation> rec = Recommend(table);
  ASSERT_TRUE(rec.ok()) << rec.status();
  ASSERT_TRUE(rec->allocator.has_value());
  EXPECT_EQ(*rec->allocator, "glibc");
  EXPECT_TRUE(ReasonsMention(*rec, "jemalloc"));
}

TEST(RecommendTest, SkipsAFastestThatIsClearlySlowerSomewhere) {
  std::vector<Measurement> table = {
      Row("treemap", "glibc", 1.0, 100000),
      Row("treemap", "tcmalloc", 0.3, 100000),
      Row("treemap", "mimalloc", 0.9, 100000),
      Row("churn", "glibc", 1.0, 100000),
      Row("churn", "tcmalloc", 1.3, 100000),  // geomean 0.62, but slower
      Row("churn", "mimalloc", 0.9, 100000),
  };
  absl::StatusOr<Recommendation> rec = Recommend(table);
  ASSERT_TRUE(rec.ok()) << rec.status();
  ASSERT_TRUE(rec->allocator.has_value());
  EXPECT_EQ(*rec->allocator, "mimalloc");
}

// glibc itself is over a budget below 1: the clear win is chosen over a
// candidate with a smaller geometric mean that is slower somewhere.
TEST(RecommendTest, PrefersAClearWinWhenTheBaselineIsOverTheBudget) {
  std::vector<Measurement> table = {
      Row("treemap", "glibc", 1.0, 100000),
      Row("treemap", "jemalloc", 0.8, 90000),
      Row("treemap", "tcmalloc", 0.3, 90000),
      Row("churn", "glibc", 1.0, 100000),
      Row("churn", "jemalloc", 0.8, 90000),
      Row("churn", "tcmalloc", 1.3, 90000),  // geomean 0.62, but slower
  };
  absl::StatusOr<Recommendation> rec = Recommend(table, 0.95);
  ASSERT_TRUE(rec.ok()) << rec.status();
  ASSERT_TRUE(rec->allocator.has_value());
  EXPECT_EQ(*rec->allocator, "jemalloc");
}

TEST(RecommendTest, BadTablesAreErrors) {
  std::vector<Measurement> no_baseline = {Row("treemap", "jemalloc", 1, 1)};
  EXPECT_EQ(Recommend(no_baseline).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<Measurement> twice = {Row("treemap", "glibc", 1, 1),
                                    Row("treemap", "glibc", 1, 1)};
  EXPECT_EQ(Recommend(twice).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::vector<Measurement> few = {
      Row("treemap", "glibc", 1, 1),
      {"treemap", "jemalloc", Timings(kMinRepetitions - 1, 1.0), 1, true}};
  absl::Status status = Recommend(few).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(status.message(), "jemalloc")) << status;
}

}  // namespace
}  // namespace jemalloc_adoption
