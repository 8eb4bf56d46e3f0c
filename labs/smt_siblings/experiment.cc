// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab smt_siblings, the experiment: when threads slow each other down, is it
// waiting, a slower clock, or a shared core?
//
// One loop that allocates nothing (a record formatted into a reused string)
// on a thread team (common/instruments/thread_team.h), placed by your task.h:
// one_thread (the baseline), distinct_cores (two physical cores),
// smt_siblings (two hardware threads of one core; absent without SMT) and
// same_cpu (two threads time-sharing one CPU: 2x, the most sharing costs).
// Each row: wall and CPU ns per call, the effective clock, both ratios to
// one_thread, and your diagnosis (ClassifySlowdown). Teams run in turns.

#include "common/harness/experiment.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/harness/cpus_flag.h"
#include "common/harness/interleave.h"
#include "common/harness/variant_error.h"
#include "common/instruments/thread_team.h"
#include "common/machine/topology.h"
#include "common/stats/stats.h"
#include "common/workloads/record_line.h"
#include "labs/smt_siblings/rows.h"
#include "labs/smt_siblings/task.h"

namespace smt_siblings {
namespace {

// The reference run (the allocator article): eight threads on the two
// hardware threads of four cores ran the reused-buffer loop 1.8x slower
// than four threads on four cores, both at 3.8 GHz.
constexpr double kReferenceSiblingSlowdown = 1.8;
constexpr double kReferenceSiblingGhz = 3.8;

// The first id every thread formats: ten digits, like a real record's.
constexpr uint64_t kFirstId = 1'000'000'000;

// One thread's string, alone in its cache lines (or distinct_cores waits).
struct alignas(128) Line {
  std::string text;
  uint64_t sink = 0;
};

// One row's placement and what its teams measured.
struct Placement {
  std::string name = {};
  std::vector<int> cpus = {};
  std::vector<double> ns = {};      // a team median per repetition
  std::vector<double> cpu_ns = {};  // likewise, CPU time
  std::vector<double> ghz = {};     // likewise, when measured
  std::string clock_note = {};
  bool oversubscribed = false;
  std::string misplaced = {};  // the cpus column's mark, when /sys disagrees
};

double Median(const std::vector<double>& v) {
  return alloclab::Summarize(v).median;
}

// The rows this machine can show (rows.h), and a note for each it cannot.
absl::StatusOr<std::vector<Placement>> Place(alloclab::Results& results) {
  absl::StatusOr<alloclab::Topology> topo = alloclab::ReadTopology();
  if (!topo.ok()) return topo.status();
  absl::StatusOr<std::vector<int>> usable = alloclab::UsableCpus(*topo);
  if (!usable.ok()) return usable.status();
  absl::StatusOr<RowPlan> plan = PlanRows(*topo, *usable);
  if (!plan.ok()) return plan.status();
  std::vector<Placement> rows;
  for (const PlannedRow& row : plan->rows) {
    Placement p;
    p.name = row.name;
    p.cpus = row.cpus;
    if (!row.mark.empty()) p.misplaced = absl::StrCat(" (", row.mark, ")");
    rows.push_back(std::move(p));
  }
  for (const std::string& note : plan->notes) {
    if (!plan->has_siblings_row &&
        absl::StartsWith(note, "no smt_siblings row: ")) {
      results.AddNote(absl::StrFormat(
          "%s. The reference run (the allocator article) saw two hardware "
          "threads of one core run the same loop %.1fx slower than one thread "
          "per core, on the same %.1f GHz clock: between the 1x of distinct "
          "cores and the %.0fx of one CPU",
          note, kReferenceSiblingSlowdown, kReferenceSiblingGhz,
          kSharingBound));
    } else {
      results.AddNote(note);
    }
  }
  return rows;
}

// MeasureRows()
//
// `repetitions` rounds, each running a team on every row's CPUs in turn;
// each team's medians go to its row. Each thread's string gets its own
// 256-byte buffer up front: the loop then never allocates, and two buffers
// never share a cache line.
absl::Status MeasureRows(const alloclab::TeamOptions& options, int repetitions,
                         std::vector<Placement>& rows) {
  std::vector<Line> lines(2);
  for (Line& line : lines) line.text.reserve(256);
  alloclab::TeamOptions team = options;
  const auto loop = [&](int thread, int64_t calls) {
    Line& line = lines[static_cast<size_t>(thread)];
    for (int64_t i = 0; i < calls; ++i) {
      line.text.clear();
      alloclab::AppendRecord(kFirstId + static_cast<uint64_t>(i), line.text);
      line.sink += line.text.size();
    }
  };
  return alloclab::Interleave(
      repetitions, static_cast<int>(rows.size()),
      [&](const alloclab::InterleavedRun& run) -> absl::Status {
        Placement& row = rows[static_cast<size_t>(run.variant)];
        team.cpus = row.cpus;
        absl::StatusOr<alloclab::TeamResult> r = alloclab::RunTeam(team, loop);
        if (!r.ok()) return alloclab::VariantError(row.name, r.status());
        row.ns.push_back(r->ns_per_iteration.median);
        row.cpu_ns.push_back(r->cpu_ns_per_iteration.median);
        if (r->median_effective_ghz) {
          row.ghz.push_back(*r->median_effective_ghz);
        }
        row.clock_note = r->clock_note;
        row.oversubscribed = r->oversubscribed;
        return absl::OkStatus();
      });
}

// AddRows()
//
// A row per placement: its times, its ratios to the first row's, and the
// learner's ClassifySlowdown() verdict where a clock was measured.
absl::Status AddRows(const std::vector<Placement>& rows,
                     alloclab::Results& results) {
  const Placement& base = rows.front();
  for (const Placement& row : rows) {
    const alloclab::Summary ns = alloclab::Summarize(row.ns);
    const double time_ratio = ns.median / Median(base.ns);
    std::optional<double> ghz, clock_ratio;
    if (!row.ghz.empty() && !base.ghz.empty()) {
      ghz = Median(row.ghz);
      clock_ratio = Median(base.ghz) / *ghz;
    }
    std::string verdict = "n/a";
    if (clock_ratio) {
      absl::StatusOr<Slowdown> s = ClassifySlowdown(time_ratio, *clock_ratio);
      if (!s.ok()) return alloclab::VariantError(row.name, s.status());
      verdict = std::string(SlowdownName(*s));
    }
    results.AddRow(row.name, static_cast<int>(row.cpus.size()))
        .Set("ns_per_call", ns.median)
        .Set("ns_mad", ns.mad)
        .Set("cpu_ns_per_call", Median(row.cpu_ns))
        .Set("effective_ghz", ghz)
        .Set("time_ratio", time_ratio)
        .Set("clock_ratio", clock_ratio)
        .SetText("cpus", alloclab::FormatCpuList(row.cpus) +
                             (row.oversubscribed ? " (oversubscribed)" : "") +
                             row.misplaced)
        .SetText("slowdown", verdict);
  }
  return absl::OkStatus();
}

// SameCpuNote()
//
// What two threads on one CPU paid: waiting for it (wall time), and
// whether they also ran slower (CPU time), against the sharing bound.
std::string SameCpuNote(const Placement& base, const Placement& same) {
  const double same_ratio = Median(same.ns) / Median(base.ns);
  const double same_cpu_ratio = Median(same.cpu_ns) / Median(base.cpu_ns);
  const bool ran_slower = same_cpu_ratio > 1 + kRatioTolerance;
  return absl::StrFormat(
      "same_cpu: two threads on CPU %d ran %.2fx one_thread's time per call "
      "(time-sharing one CPU costs each at most %.0fx), %s %.2fx its CPU "
      "time per call: they waited for the CPU, %s%s",
      same.cpus[0], same_ratio, kSharingBound, ran_slower ? "and" : "but",
      same_cpu_ratio, ran_slower ? "and ran slower" : "they did not run slower",
      same_ratio > kSharingBound * (1 + kRatioTolerance)
          ? "; beyond that bound, other programs took turns on the CPU too"
          : "");
}

// AddRunNotes()
//
// What this run could not show: a busy machine's share of the wall time,
// and, in quick mode, the slowdowns that need the full run's rounds.
void AddRunNotes(const Placement& base, bool quick, int repetitions,
                 int full_rounds, int64_t iterations,
                 alloclab::Results& results) {
  // Wall time is what a user waits for, and what other programs inflate.
  const double busy = Median(base.ns) / Median(base.cpu_ns);
  if (busy > 1 + kRatioTolerance) {
    results.AddNote(absl::StrFormat(
        "this machine was busy: one_thread had its CPU only %.0f%% of its "
        "wall time, so every wall-time ratio includes other programs' share; "
        "the CPU ns column does not",
        100 / busy));
  }
  if (quick) {
    const double row_ms =
        Median(base.ns) * static_cast<double>(iterations) / 1e6;
    results.AddNote(absl::StrFormat(
        "quick mode cannot show the slowdown of two threads on distinct "
        "cores or on SMT siblings: what such threads share besides their "
        "own loop (a VM host's core or caches, other programs' turns) comes "
        "and goes over seconds, and a quick run's %d rounds of about %.0f ms "
        "a row sample too little of it to give the full run's verdict (its "
        "%d rounds do)",
        repetitions, row_ms, full_rounds));
  }
}

// SetHeadlineAndPlots()
//
// The tour's figure, like for like with the reference run's 1.8x where
// there are siblings; else same_cpu, whose reference is the 2x bound. And
// the lab's pictures: bars, one per row.
void SetHeadlineAndPlots(const std::vector<Placement>& rows,
                         alloclab::Results& results) {
  const Placement& same = rows.back();
  const Placement* a = &same;
  const Placement* b = &rows.front();
  for (const Placement& row : rows) {
    if (row.name == "smt_siblings" && row.misplaced.empty()) a = &row;
    if (row.name == "distinct_cores" && a != &same) b = &row;
  }
  const double ratio = Median(a->ns) / Median(b->ns);
  results.SetHeadline(
      {.label = absl::StrCat(a->name, " / ", b->name, ", ns per call"),
       .value = ratio,
       .text = absl::StrFormat("%.2fx", ratio),
       .reference = a == &same ? absl::StrFormat("at most %.0fx", kSharingBound)
                               : absl::StrFormat("%.1fx (siblings / cores)",
                                                 kReferenceSiblingSlowdown)});
  alloclab::Plot plot;
  plot.y = "time_ratio";
  plot.title = "wall time per call / one_thread's";
  results.AddPlot(plot);
  plot.y = "cpu_ns_per_call";
  plot.title = "CPU ns per call";
  results.AddPlot(plot);
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  return {.lab = "smt_siblings",
          .usage =
              "Lab smt_siblings: when threads slow each other down, is it "
              "waiting, a slower clock, or a shared core? Distinct cores, "
              "SMT siblings and one shared CPU, side by side.",
          .usage_flags = "[--cpus=0-3]",
          .columns = {{"cpus", 0},
                      {"ns_per_call", 1},
                      {"ns_mad", 1},
                      {"cpu_ns_per_call", 1},
                      {"effective_ghz", 2},
                      {"time_ratio", 2},
                      {"clock_ratio", 2},
                      {"slowdown", 0}},
          .check_flags = alloclab::CheckCpusFlag};
}

absl::Status Experiment(alloclab::Lab& lab) {
  alloclab::Results& results = lab.results();
  constexpr int kFullRounds = 9;
  const int repetitions = lab.options().Repetitions(3, kFullRounds);
  absl::StatusOr<std::vector<Placement>> rows = Place(results);
  if (!rows.ok()) return rows.status();

  alloclab::TeamOptions team;
  // A quick row is still many scheduler time slices long (about 30 ms at
  // 30 ns a call): at 100,000 calls (3 ms, one slice) the two threads of
  // same_cpu could each run its whole row in its own slice, and its
  // time-sharing read anywhere from 0.5x to 4x.
  team.iterations = lab.options().quick ? 1'000'000 : 2'000'000;
  team.warmup_iterations = team.iterations / 10;
  if (absl::Status s = MeasureRows(team, repetitions, *rows); !s.ok()) {
    return s;
  }
  if (absl::Status s = AddRows(*rows, results); !s.ok()) return s;

  const Placement& base = rows->front();
  if (base.ghz.empty()) {
    results.AddNote(absl::StrCat("slowdown n/a: no diagnosis without a clock (",
                                 base.clock_note, ")"));
  }
  results.AddNote(SameCpuNote(base, rows->back()));
  AddRunNotes(base, lab.options().quick, repetitions, kFullRounds,
              team.iterations, results);
  results.AddNote(absl::StrFormat(
      "ns: median of each team's threads, then of %d rounds of every row, "
      "%d calls per thread; CPU ns: the thread's own CPU time; GHz: its "
      "dependent-add clock with the whole team busy; time ratio = ns / "
      "one_thread's, clock ratio = one_thread's GHz / GHz; slowdown: your "
      "ClassifySlowdown(), ratios equal within %.0f%% (kRatioTolerance), "
      "sharing at most %.0fx (kSharingBound)",
      repetitions, team.iterations, kRatioTolerance * 100, kSharingBound));
  SetHeadlineAndPlots(*rows, results);
  return absl::OkStatus();
}

}  // namespace
}  // namespace smt_siblings

ALLOCLAB_EXPERIMENT_MAIN(smt_siblings::Spec, smt_siblings::Experiment)
