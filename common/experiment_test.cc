// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/experiment.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/counting_pass.h"
#include "common/faults.h"
#include "common/fresh_process.h"
#include "common/fresh_rows.h"
#include "common/lab_main.h"
#include "common/measure_interleaved.h"
#include "common/noise.h"
#include "common/report.h"
#include "common/samples.h"
#include "common/stats.h"
#include "common/variant_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Three variants that write what happens to them into `log`.
std::vector<Variant> LoggingVariants(std::vector<std::string>& log) {
  std::vector<Variant> variants;
  for (const char* name : {"a", "b", "c"}) {
    variants.push_back(
        {name, 4,
         [&log, name](int64_t calls) {
           log.push_back(absl::StrCat(name, calls));
         },
         [&log, name] { log.push_back(absl::StrCat("prepare ", name)); }});
  }
  return variants;
}

TEST(MeasureInterleavedTest, WarmsUpThenTakesBatchesRoundRobinThenCounts) {
  std::vector<std::string> log;
  const auto count = [&log](absl::FunctionRef<void()> fn) -> uint64_t {
    log.push_back("count on");
    fn();
    log.push_back("count off");
    return 6;
  };
  absl::StatusOr<std::vector<VariantSummary>> rows = MeasureInterleaved(
      LoggingVariants(log), {.repetitions = 2, .count_allocations = count});
  ASSERT_TRUE(rows.ok()) << rows.status();

  const std::vector<std::string> round = {"prepare a", "a4",        "prepare b",
                                          "b4",        "prepare c", "c4"};
  std::vector<std::string> want;
  for (int i = 0; i < 3; ++i) {  // the warm-up, then two timed rounds
    want.insert(want.end(), round.begin(), round.end());
  }
  for (const char* name : {"a", "b", "c"}) {
    want.insert(want.end(), {absl::StrCat("prepare ", name), "count on",
                             absl::StrCat(name, 4), "count off"});
  }
  EXPECT_THAT(log, ElementsAreArray(want));

  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[1].name, "b");
  EXPECT_EQ((*rows)[1].ns.n, 2u);
  EXPECT_EQ((*rows)[1].timed_calls, 8);
  EXPECT_EQ((*rows)[1].allocs_per_call, 1.5);  // 6 allocations, 4 calls
  EXPECT_FALSE((*rows)[1].page_faults_per_call.has_value());
}

TEST(MeasureInterleavedTest, CountsFaultsOfTimedBatchesOnly) {
  absl::StatusOr<FaultCounter> faults =
      FaultCounter::Create(FaultScope::kThread, FaultSource::kGetrusage);
  ASSERT_TRUE(faults.ok()) << faults.status();
  std::vector<std::string> log;
  absl::StatusOr<std::vector<VariantSummary>> rows = MeasureInterleaved(
      LoggingVariants(log), {.repetitions = 3, .faults = &*faults});
  ASSERT_TRUE(rows.ok()) << rows.status();
  for (const VariantSummary& row : *rows) {
    EXPECT_TRUE(row.page_faults_per_call.has_value()) << row.name;
    EXPECT_FALSE(row.allocs_per_call.has_value()) << row.name;
  }
}

TEST(MeasureInterleavedTest, ACounterThatCannotBeReadNamesTheVariant) {
  // A getrusage(RUSAGE_THREAD) counter answers only on its own thread.
  absl::StatusOr<FaultCounter> faults = absl::UnknownError("not created");
  std::thread([&] {
    faults = FaultCounter::Create(FaultScope::kThread, FaultSource::kGetrusage);
  }).join();
  ASSERT_TRUE(faults.ok()) << faults.status();
  std::vector<std::string> log;
  absl::StatusOr<std::vector<VariantSummary>> rows = MeasureInterleaved(
      LoggingVariants(log), {.repetitions = 1, .faults = &*faults});
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), HasSubstr("variant 'a'"));
}

TEST(MeasureInterleavedTest, RefusesAVariantWithoutCalls) {
  std::vector<Variant> variants = {{"empty", 0, [](int64_t) {}}};
  absl::StatusOr<std::vector<VariantSummary>> rows =
      MeasureInterleaved(variants, {.repetitions = 1});
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), HasSubstr("variant 'empty'"));
}

TEST(CountingPassTest, CountsTheAllocationsOfTheBatch) {
  const uint64_t counted = CountAllocations([] {
    for (int i = 0; i < 3; ++i) {
      std::string* s = new std::string(100, 'x');
      delete s;
    }
  });
  // Each pass makes the string object and its 100-byte buffer.
  EXPECT_EQ(counted, 6u);
}

TEST(CheckRangeTest, NamesTheFlagAndTheBounds) {
  EXPECT_TRUE(CheckRange("calls", 1, 1).ok());
  EXPECT_EQ(CheckRange("calls", 0, 1).message(),
            "--calls must be at least 1, got 0");
  EXPECT_EQ(CheckRange("live", 9, 2, 8).message(),
            "--live must be between 2 and 8, got 9");
}

TEST(DifferenceNoteTest, StatesADifferenceBeyondBothSpreads) {
  const Estimate a{20.0, 1.0};
  const Estimate b{7.0, 2.0};
  EXPECT_TRUE(DifferenceExceedsNoise(a, b));
  EXPECT_EQ(DifferenceNote("one malloc+free", "new", a, "reuse", b, "ns"),
            "one malloc+free ≈ 13.0 ns here (new - reuse)");
}

TEST(DifferenceNoteTest, SaysWithinNoiseWhenTheRangesOverlap) {
  // 3 ns apart, but 2 + 1.5 ns of spread: the ranges overlap.
  const Estimate a{10.0, 2.0};
  const Estimate b{7.0, 1.5};
  EXPECT_FALSE(DifferenceExceedsNoise(a, b));
  EXPECT_FALSE(DifferenceExceedsNoise(b, a));
  const std::string note =
      DifferenceNote("one malloc+free", "new", a, "reuse", b, "ns");
  EXPECT_THAT(note, HasSubstr("within noise"));
  EXPECT_THAT(note, HasSubstr("± 2.0 ns and ± 1.5 ns"));
  EXPECT_THAT(note, Not(HasSubstr("≈")));
}

TEST(DifferenceNoteTest, EqualToTheSpreadIsStillNoise) {
  EXPECT_FALSE(DifferenceExceedsNoise({10.0, 1.0}, {8.0, 1.0}));
  EXPECT_TRUE(DifferenceExceedsNoise({10.0, 1.0}, {7.9, 1.0}));
}

// One batch has a MAD of 0, which is no evidence of a quiet machine: a
// difference of one measurement against anything is not stated.
TEST(DifferenceNoteTest, ASingleMeasurementCannotTell) {
  const Estimate one{20.0, 0.0, 1};
  const Estimate many{7.0, 0.5, 5};
  EXPECT_FALSE(DifferenceExceedsNoise(one, many));
  EXPECT_FALSE(DifferenceExceedsNoise(many, one));
  const std::string note =
      DifferenceNote("one malloc+free", "new", one, "reuse", many, "ns");
  EXPECT_THAT(note,
              HasSubstr("new - reuse = 13.0 ns from a single measurement"));
  EXPECT_THAT(note, HasSubstr("cannot tell"));
  EXPECT_THAT(note, Not(HasSubstr("≈")));
  EXPECT_TRUE(DifferenceExceedsNoise({20.0, 0.5, 2}, many));
  const std::vector<double> single = {3.0};
  EXPECT_EQ(EstimateOf(Summarize(single)).samples, 1u);
}

TEST(SamplesTest, SummarisesKeyByKeyAndNamesAMissingKey) {
  Samples samples;
  samples.AddRun({{"x_ns", 3}, {"x_minor_faults", 64}});
  samples.AddRun({{"x_ns", 1}, {"x_minor_faults", 66}});
  samples.AddRun({{"x_ns", 2}, {"x_minor_faults", 65}});
  EXPECT_EQ(samples.runs(), 3);
  EXPECT_THAT(samples.Values("x_ns"), ElementsAre(3, 1, 2));
  EXPECT_THAT(samples.Values("nothing"), IsEmpty());
  ASSERT_TRUE(samples.Summarize("x_ns").ok());
  EXPECT_EQ(samples.Summarize("x_ns")->median, 2);
  EXPECT_EQ(samples.Median("x_minor_faults", 5), 13);
  EXPECT_FALSE(samples.Median("nothing").has_value());
  EXPECT_EQ(samples.Mad("x_ns", 2), 0.5);  // |3-2|, |1-2|, |2-2|: MAD 1

  Results results("test");
  absl::StatusOr<FreshRow> row = AddFreshRow("v", "x", samples, results);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->page_faults.min, 64);
  ASSERT_EQ(results.rows().size(), 1u);
  EXPECT_EQ(results.rows()[0].Get("processes"), 3);
  EXPECT_EQ(results.rows()[0].Get("ns_max"), 3);

  absl::StatusOr<FreshRow> missing = AddFreshRow("w", "y", samples, results);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("variant 'w'"));
  EXPECT_THAT(missing.status().message(), HasSubstr("y_ns"));
}

void Touch(FreshCall& call) {
  call.Measure("touch", [] {
    std::vector<char> v(64 << 10, 1);
    static_cast<void>(v[100]);
  });
}
ALLOCLAB_FRESH_CALL("experiment_test_touch", Touch);

// Records when it ran (CLOCK_MONOTONIC is one clock for every process) and
// whether ALLOCLAB_TEST_MARK was set.
void WhenAndMark(FreshCall& call) {
  call.Record("t", static_cast<double>(NowNs()));
  call.Record("marked", getenv("ALLOCLAB_TEST_MARK") != nullptr ? 1 : 0);
}
ALLOCLAB_FRESH_CALL("experiment_test_when", WhenAndMark);

TEST(RunFreshInterleavedTest, TakesTheVariantsInTurnWithTheirOwnEnvironment) {
  std::vector<absl::StatusOr<Samples>> s =
      RunFreshInterleaved({{.name = "a", .call = "experiment_test_when"},
                           {.name = "b",
                            .call = "experiment_test_when",
                            .env = {{"ALLOCLAB_TEST_MARK", "1"}}}},
                          3);
  ASSERT_EQ(s.size(), 2u);
  ASSERT_TRUE(s[0].ok()) << s[0].status();
  ASSERT_TRUE(s[1].ok()) << s[1].status();
  const std::vector<double>& a = s[0]->Values("t");
  const std::vector<double>& b = s[1]->Values("t");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT(a[i], b[i]) << "round " << i;
    if (i + 1 < 3) {
      EXPECT_LT(b[i], a[i + 1]) << "round " << i;
    }
  }
  EXPECT_THAT(s[0]->Values("marked"), ElementsAre(0, 0, 0));
  EXPECT_THAT(s[1]->Values("marked"), ElementsAre(1, 1, 1));
  EXPECT_EQ(getenv("ALLOCLAB_TEST_MARK"), nullptr);
}

TEST(RunFreshInterleavedTest, AFailedVariantStopsAloneAndIsNamed) {
  std::vector<absl::StatusOr<Samples>> s =
      RunFreshInterleaved({{.name = "broken", .call = "no_such_fresh_call"},
                           {.name = "fine", .call = "experiment_test_when"}},
                          2);
  ASSERT_FALSE(s[0].ok());
  EXPECT_THAT(s[0].status().message(), HasSubstr("variant 'broken'"));
  ASSERT_TRUE(s[1].ok()) << s[1].status();
  EXPECT_EQ(s[1]->runs(), 2);
}

TEST(RunFreshCallsTest, GathersEveryProcess) {
  absl::StatusOr<Samples> samples =
      RunFreshCalls("touch_row", "experiment_test_touch", 2);
  ASSERT_TRUE(samples.ok()) << samples.status();
  EXPECT_EQ(samples->runs(), 2);
  EXPECT_EQ(samples->Values("touch_ns").size(), 2u);
}

TEST(RunFreshCallsTest, AnErrorNamesTheVariant) {
  absl::StatusOr<Samples> samples =
      RunFreshCalls("cold_row", "no_such_fresh_call", 1);
  ASSERT_FALSE(samples.ok());
  EXPECT_THAT(samples.status().message(), HasSubstr("variant 'cold_row'"));
}

TEST(SamplesOrNoteTest, TurnsTheErrorIntoANote) {
  Results results("test");
  Samples samples = SamplesOrNote(
      RunFreshCalls("cold_row", "no_such_fresh_call", 1), results);
  EXPECT_EQ(samples.runs(), 0);
  ASSERT_EQ(results.notes().size(), 1u);
  EXPECT_THAT(results.notes()[0], HasSubstr("variant 'cold_row'"));
}

LabOptions QuickOptions() {
  LabOptions options;
  options.quick = true;
  return options;
}

TEST(RunLabTest, ABodyErrorNamesTheVariantAndPrintsNoTable) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = internal::RunLabWithOptions(
      QuickOptions(), {.lab = "demo", .columns = {{"ns_per_call", "ns", 1}}},
      [](Lab& lab) {
        lab.results().AddRow("fine").Set("ns_per_call", 1.0);
        return VariantError("broken", absl::InternalError("mmap failed"));
      });
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 1);
  EXPECT_THAT(err, HasSubstr("demo: variant 'broken': mmap failed"));
  EXPECT_THAT(out, Not(HasSubstr("fine")));
}

TEST(RunLabTest, AFlagCheckFailsBeforeAnyWork) {
  bool ran = false;
  testing::internal::CaptureStderr();
  const int code = internal::RunLabWithOptions(
      QuickOptions(),
      {.lab = "demo",
       .check_flags =
           [](const LabOptions&) {
             return absl::InvalidArgumentError("--size must be positive");
           }},
      [&](Lab&) {
        ran = true;
        return absl::OkStatus();
      });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 1);
  EXPECT_FALSE(ran);
  EXPECT_THAT(err, HasSubstr("--size must be positive"));
}

TEST(RunLabTest, InsteadEndsTheProgramWithItsCode) {
  bool ran = false;
  const int code = internal::RunLabWithOptions(
      QuickOptions(),
      {.lab = "demo",
       .instead = [](const LabOptions&) -> std::optional<int> { return 3; }},
      [&](Lab&) {
        ran = true;
        return absl::OkStatus();
      });
  EXPECT_EQ(code, 3);
  EXPECT_FALSE(ran);
}

TEST(RunLabTest, SetsUpTheMachineOnceWithTheFaultSource) {
  std::string source_seen;
  testing::internal::CaptureStdout();
  const int code = internal::RunLabWithOptions(
      QuickOptions(),
      {.lab = "demo",
       .columns = {{"ns_per_call", "ns", 1}},
       .fault_source = FaultSource::kGetrusage,
       .faults_from = "getrusage in the child"},
      [&](Lab& lab) {
        source_seen = lab.results().machine().faults_source;
        lab.PrintAboveTable("headline first");
        lab.results().AddRow("row").Set("ns_per_call", 2.0);
        // The counter is usable on this thread.
        return lab.faults().Read().status();
      });
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(source_seen, "getrusage in the child");
  EXPECT_THAT(out, HasSubstr("headline first\nvariant"));
  EXPECT_THAT(out, HasSubstr("faults from getrusage in the child"));
}

}  // namespace
}  // namespace alloclab
