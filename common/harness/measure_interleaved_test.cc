// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/measure_interleaved.h"

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/harness/counting_pass.h"
#include "common/instruments/faults.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

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

}  // namespace
}  // namespace alloclab
