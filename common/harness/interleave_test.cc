// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/interleave.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Each call as "repetition:variant@position", in the order made; the run
// named `fail_at` ("r:v") returns `failure`.
struct Recorder {
  std::vector<std::string> calls;
  std::string fail_at;
  absl::Status failure = absl::InternalError("run failed");

  absl::Status operator()(const InterleavedRun& run) {
    const std::string at = absl::StrCat(run.repetition, ":", run.variant);
    calls.push_back(absl::StrCat(at, "@", run.position));
    return at == fail_at ? failure : absl::OkStatus();
  }
};

absl::Status Record(int repetitions, int variants, Recorder& recorder,
                    InterleaveOrder order = InterleaveOrder::kSame) {
  return Interleave(
      repetitions, variants,
      [&](const InterleavedRun& run) { return recorder(run); }, order);
}

TEST(InterleaveTest, TakesTheVariantsInTurnRepetitionAfterRepetition) {
  Recorder recorder;
  EXPECT_TRUE(Record(3, 3, recorder).ok());
  EXPECT_THAT(recorder.calls, ElementsAre("0:0@0", "0:1@1", "0:2@2",  //
                                          "1:0@0", "1:1@1", "1:2@2",  //
                                          "2:0@0", "2:1@1", "2:2@2"));
}

TEST(InterleaveTest, RotatedStartsEachRepetitionOneVariantFurther) {
  Recorder recorder;
  EXPECT_TRUE(Record(4, 3, recorder, InterleaveOrder::kRotated).ok());
  // The fourth repetition wraps round to the first's order.
  EXPECT_THAT(recorder.calls, ElementsAre("0:0@0", "0:1@1", "0:2@2",  //
                                          "1:1@0", "1:2@1", "1:0@2",  //
                                          "2:2@0", "2:0@1", "2:1@2",  //
                                          "3:0@0", "3:1@1", "3:2@2"));
}

TEST(InterleaveTest, NoRepetitionOrNoVariantMakesNoCall) {
  for (InterleaveOrder order :
       {InterleaveOrder::kSame, InterleaveOrder::kRotated}) {
    for (auto [repetitions, variants] :
         {std::pair{0, 3}, std::pair{-1, 3}, std::pair{3, 0}, std::pair{3, -1},
          std::pair{0, 0}}) {
      Recorder recorder;
      EXPECT_TRUE(Record(repetitions, variants, recorder, order).ok());
      EXPECT_THAT(recorder.calls, IsEmpty())
          << repetitions << " repetitions of " << variants << " variants";
    }
  }
}

TEST(InterleaveTest, OneRepetitionRunsEachVariantOnceInOrder) {
  for (InterleaveOrder order :
       {InterleaveOrder::kSame, InterleaveOrder::kRotated}) {
    Recorder recorder;
    EXPECT_TRUE(Record(1, 3, recorder, order).ok());
    EXPECT_THAT(recorder.calls, ElementsAre("0:0@0", "0:1@1", "0:2@2"));
  }
}

TEST(InterleaveTest, OneVariantRunsOncePerRepetition) {
  for (InterleaveOrder order :
       {InterleaveOrder::kSame, InterleaveOrder::kRotated}) {
    Recorder recorder;
    EXPECT_TRUE(Record(3, 1, recorder, order).ok());
    EXPECT_THAT(recorder.calls, ElementsAre("0:0@0", "1:0@0", "2:0@0"));
  }
}

TEST(InterleaveTest, AFailedRunEndsTheLoopAndIsReturnedUnchanged) {
  Recorder recorder;
  recorder.fail_at = "1:1";
  recorder.failure = absl::NotFoundError("variant 'b': no such program");
  EXPECT_EQ(Record(3, 3, recorder), recorder.failure);
  // The failed run was made; nothing after it.
  EXPECT_THAT(recorder.calls,
              ElementsAre("0:0@0", "0:1@1", "0:2@2", "1:0@0", "1:1@1"));
}

TEST(InterleaveTest, AFailedRunEndsARotatedLoopWhereverItsVariantRuns) {
  Recorder recorder;
  recorder.fail_at = "1:0";  // the last of repetition 1's rotated order
  EXPECT_EQ(Record(3, 3, recorder, InterleaveOrder::kRotated),
            recorder.failure);
  EXPECT_THAT(recorder.calls, ElementsAre("0:0@0", "0:1@1", "0:2@2", "1:1@0",
                                          "1:2@1", "1:0@2"));
}

TEST(InterleaveTest, AFailureInTheFirstRunMakesNoOtherRun) {
  Recorder recorder;
  recorder.fail_at = "0:0";
  EXPECT_EQ(Record(3, 3, recorder), recorder.failure);
  EXPECT_THAT(recorder.calls, ElementsAre("0:0@0"));
}

TEST(InterleaveTest, ACallerThatRecordsAFailureKeepsTheOtherVariantsGoing) {
  // The way RunFreshInterleaved() keeps its other rows: the run function
  // notes the failure, skips that variant from then on, and returns OK.
  std::vector<std::string> calls;
  std::vector<absl::Status> status(3);
  EXPECT_TRUE(Interleave(3, 3, [&](const InterleavedRun& run) {
                if (!status[run.variant].ok()) return absl::OkStatus();
                calls.push_back(absl::StrCat(run.repetition, ":", run.variant));
                if (run.repetition == 0 && run.variant == 1) {
                  status[1] = absl::InternalError("b failed");
                }
                return absl::OkStatus();
              }).ok());
  EXPECT_THAT(calls,
              ElementsAre("0:0", "0:1", "0:2", "1:0", "1:2", "2:0", "2:2"));
  EXPECT_FALSE(status[1].ok());
}

}  // namespace
}  // namespace alloclab
