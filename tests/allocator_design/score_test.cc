// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The capstone's score (labs/allocator_design/score.h): its arithmetic on
// fixed inputs, a throughput that could not be measured said so with its
// reason, and the utilization part exact and the same from run to run on
// the reference (traces.h's ReplayTrace(), on a clock that stands still).
// No wall-clock time is asserted: the throughput part is the experiment's
// to measure, never this test's.

#include "labs/allocator_design/score.h"

#include <malloc.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/sink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/traces.h"
#include "tests/allocator_design/run_fresh.h"

namespace allocator_design {
namespace {

using ::testing::HasSubstr;

// The score's arithmetic, in the rule's own words.
constexpr char kRuleScore[] =
    "score.h: P = kUtilizationWeight * U + (1 - kUtilizationWeight) * "
    "min(kThroughputCap, T / T_glibc), the total the plain mean over the "
    "traces";

TEST(Score, WeightsAreMalloclabs) {
  EXPECT_EQ(kUtilizationWeight, 0.6) << kRuleScore;
  EXPECT_EQ(kThroughputCap, 1.0) << kRuleScore;
}

TEST(Score, OneTraceBelowGlibcsSpeed) {
  const TraceScore s = ScoreTrace("t", 0.75, ThroughputRatio(2e6, 4e6));
  ASSERT_TRUE(s.throughput_ratio.ok()) << s.throughput_ratio.status();
  EXPECT_DOUBLE_EQ(*s.throughput_ratio, 0.5) << kRuleScore;
  EXPECT_DOUBLE_EQ(s.utilization_points, 0.45) << kRuleScore;
  ASSERT_TRUE(s.throughput_points.has_value()) << kRuleScore;
  EXPECT_DOUBLE_EQ(*s.throughput_points, 0.2) << kRuleScore;
  ASSERT_TRUE(s.score.has_value()) << kRuleScore;
  EXPECT_DOUBLE_EQ(*s.score, 0.65) << kRuleScore;
}

TEST(Score, SpeedPastGlibcsStopsPaying) {
  const TraceScore at = ScoreTrace("t", 0.5, ThroughputRatio(4e6, 4e6));
  const TraceScore past = ScoreTrace("t", 0.5, ThroughputRatio(12e6, 4e6));
  ASSERT_TRUE(past.throughput_ratio.ok());
  EXPECT_DOUBLE_EQ(*past.throughput_ratio, 3.0)
      << "the ratio is shown uncapped";
  ASSERT_TRUE(at.score.has_value() && past.score.has_value());
  EXPECT_DOUBLE_EQ(*at.score, 0.7) << kRuleScore;
  EXPECT_EQ(*past.score, *at.score) << kRuleScore;
  EXPECT_EQ(*past.throughput_points, 1 - kUtilizationWeight) << kRuleScore;
}

TEST(Score, PerfectIsOneAndNothingIsZero) {
  EXPECT_DOUBLE_EQ(*ScoreTrace("t", 1.0, 1.0).score, 1.0) << kRuleScore;
  EXPECT_EQ(*ScoreTrace("t", 0.0, 0.0).score, 0.0) << kRuleScore;
}

TEST(Score, TotalIsThePlainMeanOfTheTraces) {
  // Each trace counts alike, and each is capped on its own: the fast
  // trace's 4x does not make up for the slow one's 0.25x.
  const Score total =
      TotalScore({ScoreTrace("fast", 1.0, 4.0), ScoreTrace("slow", 0.5, 0.25)});
  EXPECT_TRUE(total.unavailable.empty()) << total.unavailable;
  EXPECT_DOUBLE_EQ(total.utilization_points, 0.45) << kRuleScore;
  ASSERT_TRUE(total.throughput_points.has_value());
  EXPECT_DOUBLE_EQ(*total.throughput_points, 0.25) << kRuleScore;
  ASSERT_TRUE(total.score.has_value());
  EXPECT_DOUBLE_EQ(*total.score, 0.7) << kRuleScore;
}

TEST(Score, ThroughputNotMeasuredIsUnavailableWithItsReason) {
  const absl::StatusOr<double> neither =
      ThroughputRatio(std::nullopt, std::nullopt);
  ASSERT_FALSE(neither.ok());
  EXPECT_EQ(neither.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(neither.status().message(), HasSubstr("yours not measured"));
  EXPECT_THAT(neither.status().message(), HasSubstr("glibc's not measured"));

  for (const double bad :
       {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    const absl::StatusOr<double> r = ThroughputRatio(1e6, bad);
    ASSERT_FALSE(r.ok()) << "glibc's ops/s " << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("glibc's measured as"));
  }
}

TEST(Score, TotalWithoutAThroughputKeepsItsUtilizationPart) {
  const TraceScore missing =
      ScoreTrace("large", 0.5, ThroughputRatio(std::nullopt, 1e6));
  EXPECT_FALSE(missing.throughput_points.has_value());
  EXPECT_FALSE(missing.score.has_value());
  EXPECT_DOUBLE_EQ(missing.utilization_points, 0.3) << kRuleScore;

  const Score total = TotalScore({ScoreTrace("mixed", 1.0, 1.0), missing});
  EXPECT_FALSE(total.score.has_value());
  EXPECT_FALSE(total.throughput_points.has_value());
  EXPECT_DOUBLE_EQ(total.utilization_points, 0.45) << kRuleScore;
  EXPECT_THAT(total.unavailable, HasSubstr("large"));
  EXPECT_THAT(total.unavailable, HasSubstr("yours not measured"));
}

// ---------------------------------------------------------------------------
// The traces: well formed, and the recorded one built in whole.

constexpr char kRuleTrace[] =
    "traces.h: a trace is operations on numbered blocks, each allocated "
    "when not live and freed when live, every block freed by the end";

TEST(TraceOps, EveryTraceAllocatesBeforeFreeingAndFreesEverything) {
  for (const Trace& trace : Traces()) {
    ASSERT_FALSE(trace.ops.empty()) << trace.name;
    std::vector<bool> live;
    size_t live_count = 0;
    for (size_t i = 0; i < trace.ops.size(); ++i) {
      const TraceOp& op = trace.ops[i];
      if (op.id >= live.size()) live.resize(op.id + 1, false);
      const bool allocate = op.kind == TraceOp::Kind::kAllocate;
      ASSERT_NE(live[op.id], allocate) << kRuleTrace << "; trace " << trace.name
                                       << ", op " << i << ", block " << op.id;
      live[op.id] = allocate;
      live_count += allocate ? 1 : -1;
    }
    EXPECT_EQ(live_count, 0u) << kRuleTrace << "; trace " << trace.name;
  }
}

// The header of recorded_python.trace counts its ops ("# ops: N (...");
// the trace built into :traces has them all.
TEST(TraceOps, TheRecordedTraceIsBuiltInWhole) {
  std::ifstream file("labs/allocator_design/recorded_python.trace");
  ASSERT_TRUE(file) << "recorded_python.trace is in this test's data";
  std::string line;
  size_t header_ops = 0, op_lines = 0;
  while (std::getline(file, line)) {
    if (line.rfind("# ops: ", 0) == 0) {
      header_ops = std::stoul(line.substr(7));
    } else if (!line.empty() && line[0] != '#') {
      ++op_lines;
    }
  }
  ASSERT_GT(header_ops, 0u) << "the file's header says how many ops";
  EXPECT_EQ(op_lines, header_ops);
  const Trace* python = nullptr;
  for (const Trace& trace : Traces()) {
    if (trace.name == "python") python = &trace;
  }
  ASSERT_NE(python, nullptr)
      << "traces.h: Traces() has the trace recorded from python3";
  EXPECT_EQ(python->ops.size(), header_ops);
  EXPECT_THAT(python->what, HasSubstr("recorded"));
}

// ---------------------------------------------------------------------------
// The utilization part: exact, and the same on every run.

void ScoreTraceCall(alloclab::FreshCall& call) {
  for (const Trace& trace : Traces()) {
    if (trace.name != call.arg()) continue;
    absl::StatusOr<TraceResult> r = ReplayTrace(trace);
    if (!r.ok()) return call.Fail(r.status().ToString());
    call.Record("peak_live", static_cast<double>(r->peak_live_bytes));
    call.Record("peak_held", static_cast<double>(r->peak_held_bytes));
    call.Record("utilization", r->utilization);
    return;
  }
  call.Fail(absl::StrCat("no trace named '", call.arg(), "'"));
}
ALLOCLAB_FRESH_CALL("allocator_design_score_trace", ScoreTraceCall);

TEST(ScoreUtilization, TheSameOnEveryRunOfTheReference) {
  // As the experiment replays them: at the same addresses every time (the
  // reference's page map adds a node for each range its spans reach, so a
  // randomized run may hold one node more).
  const ScopedFixedAddresses fixed;
  if (!fixed.ok()) {
    GTEST_SKIP() << "the kernel refused personality(ADDR_NO_RANDOMIZE): "
                    "the replays cannot run at fixed addresses here";
  }
  for (const Trace& trace : Traces()) {
    absl::StatusOr<alloclab::FreshCallResult> runs[2];
    for (auto& run : runs) {
      run = suite::RunFresh("allocator_design_score_trace", trace.name);
      ASSERT_TRUE(run.ok()) << trace.name << ": " << run.status();
    }
    const double live = runs[0]->values["peak_live"];
    const double held = runs[0]->values["peak_held"];
    ASSERT_GT(held, 0) << trace.name;
    EXPECT_EQ(runs[0]->values["utilization"], live / held)
        << trace.name << ": utilization is peak live / peak held, exactly";
    for (const char* key : {"peak_live", "peak_held", "utilization"}) {
      EXPECT_EQ(runs[0]->values[key], runs[1]->values[key])
          << "score.h: utilization is the same on every run (the replay's "
             "clock stands still); trace "
          << trace.name << ", " << key;
    }
  }
}

// ---------------------------------------------------------------------------
// The throughput part's history: each trace timed in a process whose malloc
// has served nothing before it, glibc's thresholds where it started them.

constexpr char kRuleTimedHistory[] =
    "the throughput part times each allocator in a process that has served "
    "nothing but the replay's own untimed pass: traces.h's BuildTrace() "
    "frees no block of glibc's of kGlibcMmapThresholdAtStart or more, so "
    "glibc's mmap threshold is still kGlibcMmapThresholdAtStart after it";

// Room the heap's top chunk keeps when the probe takes it: a request of
// keepcost - kTopSlack bytes leaves the smallest chunk there is.
constexpr size_t kTopSlack = 40;

// Fresh call "allocator_design_threshold_after", arg a trace's name (its
// BuildTrace(), kept alive), "traces" (all of Traces()) or "mapped_free" (a
// 1 MiB block mapped and freed): then whether malloc of
// kGlibcMmapThresholdAtStart bytes maps ("maps" 1) or grows the heap (0),
// the heap's free memory at its top taken first, as lab mmap_threshold's
// probe does. A free chunk that serves it is taken too, and the probe
// tries again.
void ThresholdAfterCall(alloclab::FreshCall& call) {
  std::optional<Trace> built;
  if (call.arg() == "mapped_free") {
    void* block = malloc(size_t{1} << 20);
    alloclab::Escape(block);
    free(block);
  } else if (call.arg() == "traces") {
    alloclab::Escape(&Traces());
  } else {
    built = BuildTrace(call.arg());
    if (!built.has_value()) {
      return call.Fail(absl::StrCat("no trace named '", call.arg(), "'"));
    }
  }
  for (int attempt = 0; attempt < 64; ++attempt) {
    const size_t top = mallinfo2().keepcost;
    if (top > kTopSlack) alloclab::Escape(malloc(top - kTopSlack));
    const struct mallinfo2 before = mallinfo2();
    alloclab::Escape(malloc(kGlibcMmapThresholdAtStart));
    const struct mallinfo2 after = mallinfo2();
    if (after.hblks > before.hblks) return call.Record("maps", 1);
    if (after.arena > before.arena) return call.Record("maps", 0);
  }
  call.Fail("free chunks kept serving the probe's requests");
}
ALLOCLAB_FRESH_CALL("allocator_design_threshold_after", ThresholdAfterCall);

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kMallocIsGlibcs = false;  // the sanitizer's own
#else
constexpr bool kMallocIsGlibcs = true;
#endif

// The maps value of the probe after `arg`, or the test's failure.
double MapsAfter(absl::string_view arg) {
  absl::StatusOr<alloclab::FreshCallResult> run =
      suite::RunFresh("allocator_design_threshold_after", arg);
  EXPECT_TRUE(run.ok()) << arg << ": " << run.status();
  return run.ok() ? run->values["maps"] : -1;
}

TEST(TimedHistory, BuildTraceIsTracesOpForOp) {
  for (const Trace& trace : Traces()) {
    const std::optional<Trace> built = BuildTrace(trace.name);
    ASSERT_TRUE(built.has_value()) << trace.name;
    EXPECT_EQ(built->what, trace.what) << trace.name;
    ASSERT_EQ(built->ops.size(), trace.ops.size()) << trace.name;
    for (size_t i = 0; i < trace.ops.size(); ++i) {
      const TraceOp& a = built->ops[i];
      const TraceOp& b = trace.ops[i];
      ASSERT_TRUE(a.kind == b.kind && a.id == b.id && a.size == b.size)
          << "traces.h: BuildTrace() is a copy of Traces()'s trace; "
          << trace.name << " differs at op " << i;
    }
  }
  EXPECT_FALSE(BuildTrace("no_such_trace").has_value());
}

TEST(TimedHistory, BuildingATraceLeavesGlibcsThresholdWhereItStarted) {
  if (!kMallocIsGlibcs) GTEST_SKIP() << "malloc is the sanitizer's";
  for (const Trace& trace : Traces()) {
    EXPECT_EQ(MapsAfter(trace.name), 1)
        << kRuleTimedHistory << "; trace " << trace.name;
  }
  EXPECT_EQ(MapsAfter("traces"), 1)
      << "traces.h: building all of Traces() frees no block of glibc's of "
         "kGlibcMmapThresholdAtStart or more either (each trace moved into "
         "the list, never copied)";
}

TEST(TimedHistory, TheProbeSeesARaisedThreshold) {
  if (!kMallocIsGlibcs) GTEST_SKIP() << "malloc is the sanitizer's";
  EXPECT_EQ(MapsAfter("mapped_free"), 0)
      << "glibc raises its mmap threshold at the free of a mapped block "
         "larger than it: the probe must see that";
}

}  // namespace
}  // namespace allocator_design
