// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab counter_contention, the experiment: how can a counting allocator make
// one allocation look several times dearer than it is?
//
// The loops of workloads.h (`new` allocates, `reuse` does not) on thread
// teams (common/instruments/thread_team.h), under every counting mode of
// counters.h (yours among them), at 1, 2, 4 ... threads up to the CPUs
// available and one more, oversubscribed. Rounds take every row in turn.
// allocs_per_call comes from a separate counting pass, never timed; "at once"
// says how many threads really ran at once (threads that take turns never
// contend). The pingpong_ rows measure what one count of a shared counter can
// cost: one cache line bounced between two pinned threads (ping_pong.h), on
// each kind of CPU pair the machine has.

#include "common/harness/experiment.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/harness/cpus_flag.h"
#include "common/harness/interleave.h"
#include "common/harness/noise.h"
#include "common/harness/variant_error.h"
#include "common/instruments/alloc_counter.h"
#include "common/instruments/thread_team.h"
#include "common/machine/topology.h"
#include "common/stats/stats.h"
#include "labs/counter_contention/counters.h"
#include "labs/counter_contention/ping_pong.h"
#include "labs/counter_contention/task.h"
#include "labs/counter_contention/teams.h"
#include "labs/counter_contention/workloads.h"

namespace counter_contention {
namespace {

// The reference run (the allocator article), 4 threads on 4 cores: new
// minus reuse (lab 1's method) gave one malloc+free 86.8-100.0 ns with a
// shared atomic counter in the allocator, 10.0-10.8 ns without it.
constexpr char kReference[] =
    "8-10x at 4 threads (86.8-100.0 against 10.0-10.8 ns)";

constexpr int kModeCount = sizeof(kModes) / sizeof(kModes[0]);
enum { kOffMode, kSharedMode };  // their places in kModes

// One row of a thread count: a workload under a counting mode ("new_shared").
struct Variant {
  Workload workload;
  int mode;  // its place in kModes
  std::string name;
};

// Every row of one thread count: each workload under each mode, in order.
std::vector<Variant> Variants() {
  std::vector<Variant> variants;
  for (Workload w : {kNew, kReuse}) {
    for (int m = 0; m < kModeCount; ++m) {
      variants.push_back(
          {w, m, absl::StrCat(WorkloadName(w), "_", kModes[m].name)});
    }
  }
  return variants;
}

// A round ran "together" when its threads ran at once on this share of
// the CPUs they could have: rounds in turns show no contention, so a busy
// machine's rounds are left out when enough others ran together.
constexpr double kTogether = 0.9;

// The words that open the quick run's note on what it cannot show:
// tools/quick_full_test.py looks for them.
constexpr absl::string_view kQuickCannotShowContention =
    "quick mode cannot show whether sharing the counter costs";

// Every thread's value of every round, and of the rounds that ran together.
struct Split {
  std::vector<double> all, together;
  void Add(double v, bool with) {
    all.push_back(v);
    if (with) together.push_back(v);
  }
  // The rounds that ran together, or all rounds if none did.
  alloclab::Summary Summary() const {
    return alloclab::Summarize(together.empty() ? all : together);
  }
};

// What the rounds measured for one (workload, threads, mode).
struct Cell {
  Split ns, cpu_ns;                      // wall and CPU time per call
  std::vector<double> ghz, concurrency;  // every round's (thread_team.h)
  int together = 0;
  std::string cpus;
};

// kPingPongBatches
//
// Each round of a ping-pong row is this many teams of a few thousand round
// trips, not one long one: on a busy machine the scheduler takes a thread
// away now and then for a whole slice (milliseconds), and the median batch
// leaves those out where one long loop would average them in.
constexpr int kPingPongBatches = 10;

// kSameCpuShare
//
// The same_cpu row makes this many times fewer round trips than the others.
constexpr int kSameCpuShare = 20;

// PingPongRows()
//
// The cache-line ping-pong (ping_pong.h): `repetitions` rounds of each CPU
// pair kind among `usable`, one row per kind ("pingpong_<kind>", 2
// threads), the median of every round's batches. Returns each pair with its
// ns per transfer, for the note that predicts the shared counter's cost.
absl::StatusOr<std::vector<std::pair<CpuPair, double>>> PingPongRows(
    alloclab::Results& results, const alloclab::Topology& topo,
    const std::vector<int>& usable, int repetitions, int64_t round_trips) {
  std::vector<std::pair<CpuPair, double>> measured;
  for (const CpuPair& pair : PingPongPairs(topo, usable)) {
    const std::string variant =
        absl::StrCat("pingpong_", PairKindName(pair.kind));
    std::vector<double> round_trip_ns, concurrency;
    uint64_t transfers = 0;  // counted by the line, all batches
    // On one CPU every handoff is a switch by the scheduler (microseconds,
    // not nanoseconds): fewer of them tell as much.
    const int64_t trips = pair.kind == PairKind::kSameCpu
                              ? round_trips / kSameCpuShare
                              : round_trips;
    const int64_t batch = std::max<int64_t>(1, trips / kPingPongBatches);
    for (int rep = 0; rep < repetitions; ++rep) {
      for (int b = 0; b < kPingPongBatches; ++b) {
        absl::StatusOr<PingPongRun> run =
            MeasurePingPong(pair, batch, batch / 10);
        if (!run.ok()) return alloclab::VariantError(variant, run.status());
        round_trip_ns.push_back(run->ns_per_round_trip);
        concurrency.push_back(run->team.concurrency);
        transfers += run->transfers;
      }
    }
    const double ns = alloclab::Summarize(round_trip_ns).median;
    const int64_t round_trips_made = batch * kPingPongBatches * repetitions;
    results.AddRow(variant, 2)
        .SetText("mode", "ping-pong")
        .SetText("cpus",
                 alloclab::FormatCpuList({pair.first, pair.second}) +
                     (pair.first == pair.second ? " (oversubscribed)" : ""))
        .Set("ns_per_round_trip", ns)
        .Set("ns_per_transfer", ns / 2)
        .Set("transfers", static_cast<double>(transfers))
        .Set("round_trips", static_cast<double>(round_trips_made))
        .Set("transfers_per_round_trip",
             static_cast<double>(transfers) /
                 static_cast<double>(round_trips_made))
        .Set("concurrency", alloclab::Summarize(concurrency).median);
    measured.push_back({pair, ns / 2});
  }
  return measured;
}

// Grid
//
// What the rounds measured: a cell per (workload, thread count, mode), and
// each cell's summary of ns per call.
struct Grid {
  std::vector<Variant> variants;  // the rows of one thread count
  std::vector<int> counts;        // 1, 2, 4 ... n, and n + 1 (oversubscribed)
  std::vector<Cell> cells;
  std::vector<alloclab::Summary> ns;  // ns[i]: cells[i].ns.Summary()

  // The place of (workload, thread count's place, mode) in `cells`.
  size_t Index(Workload w, size_t c, int m) const {
    return (static_cast<size_t>(w) * counts.size() + c) * kModeCount +
           static_cast<size_t>(m);
  }
  const alloclab::Summary& Ns(Workload w, size_t c, int m) const {
    return ns[Index(w, c, m)];
  }
};

// MeasureGrid()
//
// `repetitions` rounds, each running every team (thread count) with every
// row's workload under its mode, in turn; each thread writes its own line
// of `lines`. A round counts as "together" when its threads ran at once on
// kTogether of the CPUs they could have.
absl::StatusOr<Grid> MeasureGrid(const std::vector<Team>& teams, int n,
                                 alloclab::TeamOptions team, int repetitions,
                                 std::vector<Line>& lines) {
  Grid grid;
  grid.variants = Variants();
  for (const Team& t : teams) grid.counts.push_back(t.threads);
  grid.cells.resize(grid.variants.size() * grid.counts.size());
  // Each repetition runs every (count, variant) pair in turn, the variants
  // of one count together.
  const int per_count = static_cast<int>(grid.variants.size());
  const absl::Status status = alloclab::Interleave(
      repetitions, static_cast<int>(grid.counts.size()) * per_count,
      [&](const alloclab::InterleavedRun& run) -> absl::Status {
        const size_t c = static_cast<size_t>(run.variant / per_count);
        const Variant& v =
            grid.variants[static_cast<size_t>(run.variant % per_count)];
        team.cpus = teams[c].cpus;
        Use(kModes[v.mode]);
        absl::StatusOr<alloclab::TeamResult> r =
            alloclab::RunTeam(team, [&](int thread, int64_t calls) {
              RunWorkload(v.workload, lines[static_cast<size_t>(thread)],
                          calls);
            });
        if (!r.ok()) return alloclab::VariantError(v.name, r.status());
        Cell& cell = grid.cells[grid.Index(v.workload, c, v.mode)];
        const bool together =
            r->concurrency >= kTogether * std::min(grid.counts[c], n);
        for (const auto& t : r->threads) {
          cell.ns.Add(t.ns_per_iteration, together);
          cell.cpu_ns.Add(t.cpu_ns_per_iteration, together);
        }
        cell.together += together;
        if (r->median_effective_ghz) {
          cell.ghz.push_back(*r->median_effective_ghz);
        }
        cell.concurrency.push_back(r->concurrency);
        cell.cpus = CpusColumn(teams[c]);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  for (const Cell& cell : grid.cells) grid.ns.push_back(cell.ns.Summary());
  return grid;
}

// CountVerdict
//
// What one thread count's rows say one malloc+free costs (new - reuse,
// lab 1's method) with the shared counter and with none, and whether
// shared's new row is beyond the noise of off's.
struct CountVerdict {
  double shared = 0;
  double off = 0;
  bool real = false;
};

// AddCountRows()
//
// The rows of thread count `c` (every workload under every mode, each with
// its counting pass, run here on `lines`), and the note that compares
// shared with off there.
CountVerdict AddCountRows(const Grid& grid, size_t c, int n,
                          std::vector<Line>& lines,
                          alloclab::Results& results) {
  const int threads = grid.counts[c];
  // What each mode says one malloc+free costs (new - reuse), by mode name.
  std::map<std::string, double, std::less<>> believed;
  for (const Variant& v : grid.variants) {
    const Cell& cell = grid.cells[grid.Index(v.workload, c, v.mode)];
    const alloclab::Summary& s = grid.Ns(v.workload, c, v.mode);
    std::optional<double> ghz;  // nullopt: no round measured a clock
    if (!cell.ghz.empty()) ghz = alloclab::Summarize(cell.ghz).median;
    const Mode& mode = kModes[v.mode];
    results.AddRow(v.name, threads)
        .SetText("mode", mode.name)
        .SetText("cpus", cell.cpus)
        .Set("ns_per_call", s.median)
        .Set("ns_mad", s.mad)
        .Set("vs_off", s.median / grid.Ns(v.workload, c, kOffMode).median)
        .Set("cpu_ns_per_call", cell.cpu_ns.Summary().median)
        .Set("allocs_per_call", AllocsPerCall(mode, v.workload, lines, threads))
        .Set("concurrency", alloclab::Summarize(cell.concurrency).median)
        .Set("rounds_together", cell.together)
        .Set("effective_ghz", ghz);
    if (v.workload == kNew) {
      believed[mode.name] = s.median - grid.Ns(kReuse, c, v.mode).median;
    }
  }
  const alloclab::Summary& off = grid.Ns(kNew, c, kOffMode);
  const alloclab::Summary& shared = grid.Ns(kNew, c, kSharedMode);
  const bool real = alloclab::DifferenceExceedsNoise(
      alloclab::EstimateOf(shared), alloclab::EstimateOf(off));
  const double cpu_ratio =
      grid.cells[grid.Index(kNew, c, kSharedMode)].cpu_ns.Summary().median /
      grid.cells[grid.Index(kNew, c, kOffMode)].cpu_ns.Summary().median;
  results.AddNote(absl::StrFormat(
      "%d thread%s%s: shared makes a new call %s off (%.1f "
      "vs %.1f ns%s; %.2fx in CPU time); one malloc+free (new - reuse, lab "
      "1's method) looks %.1f ns with shared, %.1f per_thread, %.1f packed, "
      "%.1f padded, against %.1f off",
      threads, threads == 1 ? "" : "s", threads > n ? ", oversubscribed" : "",
      // A row faster than off is "faster", never "0.21x as slow".
      shared.median >= off.median
          ? absl::StrFormat("%.2fx as slow as", shared.median / off.median)
          : absl::StrFormat("%.2fx faster than", off.median / shared.median),
      shared.median, off.median, real ? "" : ", within noise", cpu_ratio,
      believed.at("shared"), believed.at("per_thread"),
      believed.at("per_thread_packed"), believed.at("per_thread_padded"),
      believed.at("off")));
  return {believed.at("shared"), believed.at("off"), real};
}

// AddPingPongNote()
//
// The line's own cost, bounced between two threads and nothing else, on
// the kind of pair the 2-thread rows ran on (`pair_cpus`), against what
// shared added to a new call there.
void AddPingPongNote(const std::vector<std::pair<CpuPair, double>>& transfers,
                     const alloclab::Topology& topo,
                     const std::vector<int>& pair_cpus, const Grid& grid,
                     alloclab::Results& results) {
  const std::optional<PairKind> team_kind =
      PairKindOf(topo, pair_cpus[0], pair_cpus[1]);
  for (const auto& [pair, ns_per_transfer] : transfers) {
    if (!team_kind || pair.kind != *team_kind) continue;
    const double shared_adds = grid.Ns(kNew, 1, kSharedMode).median -
                               grid.Ns(kNew, 1, kOffMode).median;
    results.AddNote(absl::StrFormat(
        "ping-pong: one transfer of a cache line between CPUs %d and %d (%s, "
        "as the %d-thread rows) costs %.1f ns; two threads counting in one "
        "shared atomic pay up to one transfer per count (N threads: up to "
        "N-1 each), so shared could add up to about %.1f ns per new call at "
        "%d threads: it added %.1f",
        pair.first, pair.second, PairKindName(pair.kind), grid.counts[1],
        ns_per_transfer, ns_per_transfer, grid.counts[1], shared_adds));
  }
}

// AddTogetherNote()
//
// Whether the rows' threads ran at once: a quick run says it cannot tell
// (its rounds are too short), a full run says how many rows never did.
void AddTogetherNote(const Grid& grid, bool quick, int64_t iterations,
                     alloclab::Results& results) {
  int apart = 0;  // rows none of whose rounds ran together
  for (const Cell& cell : grid.cells) apart += cell.together == 0;
  if (quick) {
    // Structural, not the machine's load: a quick round is so short that
    // the moments its threads start and end apart are a large share of it.
    const double round_ms = grid.Ns(kNew, 1, kOffMode).median *
                            static_cast<double>(iterations) / 1e6;
    results.AddNote(absl::StrFormat(
        "%s: a quick round of %d calls lasts about %.1f ms a thread, so the "
        "moments its threads start and end apart (a wake-up each, a "
        "scheduler tick) are a large share of it, and its threads may not "
        "run at once on %.0f%% of their CPUs whatever the machine's load "
        "(here %d of %d rows never ran together); threads that take turns "
        "cannot contend, so the headline's verdict is the full run's to give",
        kQuickCannotShowContention, iterations, round_ms, kTogether * 100,
        apart, static_cast<int>(grid.cells.size())));
  } else if (apart > 0) {
    results.AddNote(absl::StrFormat(
        "this machine was busy: %d of %d rows never ran together, so their "
        "times (of all rounds) include turns, and turns cannot contend",
        apart, static_cast<int>(grid.cells.size())));
  }
}

// AddSmtNote()
//
// From the first team with SMT siblings on: why those rows show less
// contention.
void AddSmtNote(const std::vector<Team>& teams, const alloclab::Topology& topo,
                const std::vector<int>& usable, alloclab::Results& results) {
  for (const Team& t : teams) {
    if (t.mark != "SMT siblings") continue;
    const int cores = topo.CoresOf(usable);
    results.AddNote(absl::StrFormat(
        "from %d threads on, some threads are SMT siblings (this machine has "
        "%d core%s for %d usable CPUs): siblings share L1 and L2, so the "
        "shared counter's cache line does not travel between them and those "
        "rows show less contention than the same count on distinct cores",
        t.threads, cores, cores == 1 ? "" : "s",
        static_cast<int>(usable.size())));
    return;
  }
}

// AddReadingNotes()
//
// The reference run, and how to read the table's columns.
void AddReadingNotes(int repetitions, int64_t iterations,
                     alloclab::Results& results) {
  results.AddNote(absl::StrCat(
      "the reference run (the allocator article): a shared atomic counter "
      "made one allocation look dearer by ",
      kReference));
  results.AddNote(absl::StrFormat(
      "ns: median over every thread of the rounds (of %d, %d calls each) "
      "that ran together, all rounds if none did (± MAD); at once: threads' "
      "CPU time / wall time, median of the rounds; together: it reached %.0f%% "
      "of the CPUs; x off: ns / off's; CPU ns: the threads' own CPU time, same "
      "rounds; allocs: the mode's own total, a separate pass; counted modes "
      "also count frees, per thread",
      repetitions, iterations, kTogether * 100));
}

// SetHeadlineAndPlots()
//
// The headline: lab 1's malloc+free with the shared counter, over the same
// without one, at `threads` threads; and the pictures of the new_ rows,
// where counting shows.
void SetHeadlineAndPlots(const CountVerdict& verdict, int threads,
                         alloclab::Results& results) {
  std::optional<double> inflation;
  if (verdict.off > 0) inflation = verdict.shared / verdict.off;
  results.SetHeadline(
      {.label =
           absl::StrCat("malloc+free, shared / off, ", threads, " threads"),
       .value = inflation,
       .text = inflation
                   ? absl::StrFormat("%.1fx (%.1f / %.1f ns%s)", *inflation,
                                     verdict.shared, verdict.off,
                                     verdict.real ? "" : ", within noise")
                   : "n/a (off's new - reuse is not above 0)",
       .reference = kReference});
  std::vector<std::string> plotted;
  for (const Mode& mode : kModes)
    plotted.push_back(absl::StrCat("new_", mode.name));
  for (const char* y : {"ns_per_call", "cpu_ns_per_call"}) {
    results.AddPlot({.kind = alloclab::PlotKind::kLines,
                     .y = y,
                     .x = "threads",
                     .series = "mode",
                     .title = absl::StrCat("new: ", y, " by counting mode"),
                     .variants = plotted});
  }
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  return {.lab = "counter_contention",
          .usage =
              "Lab counter_contention: how can a counting allocator make "
              "one allocation look several times dearer than it is?",
          .usage_flags = "[--cpus=0-3]",
          .columns = {{"cpus", 0},
                      {"ns_per_call", 1},
                      {"ns_mad", 1},
                      {"vs_off", "x off", 2},
                      {"cpu_ns_per_call", 1},
                      {"allocs_per_call", 2},
                      {"concurrency", "at once", 2},
                      {"rounds_together", 0},
                      {"effective_ghz", 2},
                      {"ns_per_transfer", 1},
                      {"transfers", 0}},
          .check_flags = alloclab::CheckCpusFlag};
}

absl::Status Experiment(alloclab::Lab& lab) {
  alloclab::Results& results = lab.results();
  absl::StatusOr<alloclab::Topology> topo = alloclab::ReadTopology();
  if (!topo.ok()) return topo.status();
  absl::StatusOr<std::vector<int>> usable = alloclab::UsableCpus(*topo);
  if (!usable.ok()) return usable.status();
  const int n = static_cast<int>(usable->size());
  const std::vector<Team> teams = PlanTeams(*topo, *usable);
  std::vector<Line> lines(static_cast<size_t>(n + 1));
  for (Line& line : lines) line.text.reserve(256);

  alloclab::TeamOptions team;
  team.iterations = lab.options().quick ? 20'000 : 200'000;
  team.warmup_iterations = team.iterations / 10;
  const int repetitions = lab.options().Repetitions(3, 9);
  absl::StatusOr<Grid> grid = MeasureGrid(teams, n, team, repetitions, lines);
  if (!grid.ok()) return grid.status();

  CountVerdict headline;  // at counts[1]
  for (size_t c = 0; c < grid->counts.size(); ++c) {
    const CountVerdict verdict = AddCountRows(*grid, c, n, lines, results);
    if (c == 1) headline = verdict;
  }
  absl::StatusOr<std::vector<std::pair<CpuPair, double>>> transfers =
      PingPongRows(results, *topo, *usable, repetitions, team.iterations);
  if (!transfers.ok()) return transfers.status();
  AddPingPongNote(*transfers, *topo, teams[1].cpus, *grid, results);
  alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
  AddTogetherNote(*grid, lab.options().quick, team.iterations, results);
  AddSmtNote(teams, *topo, *usable, results);
  AddReadingNotes(repetitions, team.iterations, results);
  SetHeadlineAndPlots(headline, grid->counts[1], results);
  return absl::OkStatus();
}

}  // namespace
}  // namespace counter_contention

ALLOCLAB_EXPERIMENT_MAIN(counter_contention::Spec,
                         counter_contention::Experiment)
