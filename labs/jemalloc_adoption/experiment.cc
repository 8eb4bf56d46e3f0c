// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab jemalloc_adoption: the experiment. Every workload runs as a child
// process under every allocator (LD_PRELOAD, as mimalloc-bench does), the
// allocators interleaved within each repetition, and each run is measured
// from outside: wall, user and system time, peak RSS, RSS over time. The
// child reports which library really served malloc; a row counts as
// verified only when that is the allocator asked for. Then your task.cc
// compares each allocator with glibc and writes the decision memo.

#include "common/experiment.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/allocator_probe.h"
#include "common/child_run.h"
#include "common/rank_interval.h"
#include "labs/jemalloc_adoption/runs.h"
#include "labs/jemalloc_adoption/task.h"
#include "labs/jemalloc_adoption/workloads.h"

ABSL_FLAG(std::string, workloads,
          "treemap,scalability_8,scalability_1024,msgsend,churn",
          "comma-separated workloads to run");
ABSL_FLAG(std::string, allocators, "glibc,jemalloc,tcmalloc,mimalloc",
          "comma-separated allocators (glibc, the baseline, is required)");
ABSL_FLAG(int, threads, 0, "threads per workload (0: the CPUs available)");
ABSL_FLAG(double, iterations_scale, 1.0,
          "multiplies every workload's iterations (the tests use 0.01)");
ABSL_FLAG(std::string, tuning_workload, "churn",
          "workload of jemalloc's MALLOC_CONF rows (empty: none)");
ABSL_FLAG(int, rss_interval_ms, 20, "milliseconds between two RSS samples");

namespace {

namespace ja = jemalloc_adoption;

// The largest --iterations_scale: no iteration count overflows.
constexpr double kMaxIterationsScale = 1000;

// jemalloc settings: the trade lg_dirty_mult made in the thread, today's
// names (variant suffix, MALLOC_CONF).
const std::vector<std::pair<std::string, std::string>> kTunings = {
    {"dirty_decay_0", "dirty_decay_ms:0"},
    {"background_thread", "background_thread:true"},
    {"narenas_1", "narenas:1"},
};

std::vector<std::string> List(const std::string& flag) {
  return absl::StrSplit(flag, ',', absl::SkipEmpty());
}

absl::Status Experiment(alloclab::Lab& lab) {
  const bool quick = lab.options().quick;
  const int reps = lab.options().Repetitions(ja::kMinRepetitions, 5);
  absl::StatusOr<std::string> workload = ja::WorkloadBinary();
  if (!workload.ok()) return workload.status();
  std::vector<std::pair<std::string, std::string>> preload;  // name, library
  for (const std::string& name : List(absl::GetFlag(FLAGS_allocators))) {
    absl::StatusOr<alloclab::LocatedAllocator> a =
        alloclab::LocateAllocator(name);
    if (!a.ok()) return a.status();  // names the Debian package
    preload.push_back({name, a->path});
  }
  std::vector<ja::AllocatorRun> setups;
  auto add = [&](const std::string& w, const std::string& a,
                 const std::string& library, const std::string& suffix,
                 const std::string& conf) {
    ja::AllocatorRun s{absl::StrCat(w, "_", a, suffix), w, a, conf,
                       suffix.empty() ? std::string(ja::kBaseline) : a};
    const auto iterations = static_cast<uint64_t>(
        absl::GetFlag(FLAGS_iterations_scale) *
        static_cast<double>(ja::DefaultIterations(w, quick)));
    s.command.argv = {
        *workload, "--workload=" + w,
        absl::StrCat("--threads=", absl::GetFlag(FLAGS_threads)),
        absl::StrCat("--iterations=", std::max<uint64_t>(1, iterations))};
    if (!library.empty()) s.command.env.push_back({"LD_PRELOAD", library});
    if (!conf.empty()) s.command.env.push_back({"MALLOC_CONF", conf});
    s.command.rss_sample_interval =
        absl::Milliseconds(absl::GetFlag(FLAGS_rss_interval_ms));
    setups.push_back(std::move(s));
  };
  for (const std::string& w : List(absl::GetFlag(FLAGS_workloads))) {
    for (const auto& [a, library] : preload) add(w, a, library, "", "");
  }
  const std::string tuning = absl::GetFlag(FLAGS_tuning_workload);
  for (const auto& [a, library] : preload) {
    if (a != "jemalloc" || tuning.empty()) continue;
    for (const auto& [suffix, conf] : kTunings)
      add(tuning, a, library, "_" + suffix, conf);
  }

  // Round-robin, starting one further each repetition: no allocator always
  // runs first, or always after the same neighbour.
  for (int rep = 0; rep < reps; ++rep) {
    std::fprintf(stderr, "repetition %d of %d (%zu runs)\n", rep + 1, reps,
                 setups.size());
    for (size_t i = 0; i < setups.size(); ++i) {
      if (absl::Status s = ja::RunOnce(setups[(i + rep) % setups.size()]);
          !s.ok())
        return s;
    }
  }

  std::map<std::string, const ja::AllocatorRun*> by_variant;
  for (const ja::AllocatorRun& s : setups) by_variant[s.variant] = &s;
  std::vector<ja::Measurement> table;
  double hl_coverage = 0;  // of the rows' exact intervals (same n and m)
  int compared = 0;        // rows with a verdict against their baseline
  // allocator -> its rows whose interval excludes 1 ("churn faster").
  std::map<std::string, std::vector<std::string>> clear_verdicts;
  for (const ja::AllocatorRun& s : setups) {
    alloclab::Row& row = lab.results().AddRow(s.variant, s.threads);
    const std::vector<double>& wall = s.samples.Values("wall_s");
    const alloclab::Summary w = alloclab::Summarize(wall);
    const double peak =
        alloclab::Summarize(s.samples.Values("peak_rss_kib")).max;
    row.Set("wall_s", w.median)
        .Set("wall_min_s", w.min)
        .Set("wall_max_s", w.max)
        .Set("user_s", alloclab::Summarize(s.samples.Values("user_s")).median)
        .Set("sys_s", alloclab::Summarize(s.samples.Values("sys_s")).median)
        .Set("peak_rss_kib", peak)
        .Set("ru_maxrss_kib",
             alloclab::Summarize(s.samples.Values("ru_maxrss_kib")).max)
        .Set("allocator_verified", s.verified ? 1 : 0)
        .SetText("workload", s.workload)
        .SetText("allocator", s.allocator);
    if (!s.malloc_conf.empty()) row.SetText("malloc_conf", s.malloc_conf);
    if (!s.verified) row.SetText("served_by", s.served_by);
    std::vector<double> t_s, kib;
    for (const alloclab::RssPoint& p : s.rss) {
      t_s.push_back(p.t_ms / 1000);
      kib.push_back(static_cast<double>(p.rss_kib));
    }
    row.SetSamples("rss_t_s", t_s).SetSamples("rss_kib", kib);
    if (s.malloc_conf.empty()) {
      table.push_back({s.workload, s.allocator, wall, peak, s.verified});
    }
    const ja::AllocatorRun* base =
        by_variant[absl::StrCat(s.workload, "_", s.vs)];
    if (base == nullptr || base == &s) continue;
    absl::StatusOr<ja::Comparison> c =
        ja::CompareTimings(wall, base->samples.Values("wall_s"), 1);
    if (!c.ok()) return alloclab::VariantError(s.variant, c.status());
    const double base_peak =
        alloclab::Summarize(base->samples.Values("peak_rss_kib")).max;
    // The course's comparison for the learner's interval: exact, no seed.
    absl::StatusOr<alloclab::RatioInterval> hl =
        alloclab::HodgesLehmannRatio(wall, base->samples.Values("wall_s"));
    if (hl.ok()) {
      row.Set("hl_ratio", hl->estimate)
          .Set("hl_low", hl->low)
          .Set("hl_high", hl->high);
      hl_coverage = hl->coverage;
      ++compared;
    }
    if (s.malloc_conf.empty() &&
        c->verdict != ja::Verdict::kNoClearDifference) {
      clear_verdicts[s.allocator].push_back(
          absl::StrCat(s.workload, " ", ja::VerdictName(c->verdict)));
    }
    row.SetText("vs", s.vs)
        .Set("time_ratio", c->ratio)
        .Set("ci_low", c->ci_low)
        .Set("ci_high", c->ci_high)
        .SetText("verdict", ja::VerdictName(c->verdict))
        .Set("rss_ratio", peak / base_peak);
    if (s.variant == "msgsend_jemalloc") {
      lab.results().SetHeadline({"msgsend, jemalloc / glibc time", c->ratio,
                                 absl::StrFormat("%.2fx [%.2f, %.2f]", c->ratio,
                                                 c->ci_low, c->ci_high),
                                 "0.59x (7.80 s / 13.30 s)"});
    }
  }

  absl::StatusOr<ja::Recommendation> rec = ja::Recommend(table);
  if (!rec.ok()) return rec.status();
  lab.PrintAboveTable(absl::StrFormat(
      "recommendation: %s (budget: peak RSS at most %.2fx %s's on every "
      "workload)",
      rec->allocator.value_or("none fits"), ja::kMemoryBudgetRatio,
      ja::kBaseline));
  lab.results().AddNote(
      absl::StrCat("memo: recommended: ",
                   rec->allocator.value_or("nothing fits the budget")));
  for (const std::string& reason : rec->reasons) {
    lab.results().AddNote(absl::StrCat("memo: ", reason));
  }
  // The budget each allocator would need: its worst peak RSS ratio.
  std::map<std::string, double> needs;
  for (const ja::Measurement& m : table) {
    const ja::AllocatorRun* base =
        by_variant[absl::StrCat(m.workload, "_", ja::kBaseline)];
    const double ratio =
        m.peak_rss_kib / base->samples.Summarize("peak_rss_kib")->max;
    needs[m.allocator] = std::max(needs[m.allocator], ratio);
  }
  std::vector<std::string> budgets;
  for (const auto& [a, ratio] : needs) {
    if (ratio > ja::kMemoryBudgetRatio)
      budgets.push_back(absl::StrFormat("%s %.2fx", a, ratio));
  }
  lab.results().AddNote(absl::StrFormat(
      "memo: what would change it: a larger budget (%s), more threads (here "
      "%d), or your own program's workload in place of these.",
      budgets.empty() ? "none is over it" : absl::StrJoin(budgets, ", "),
      setups.empty() ? 0 : setups.front().threads));
  // How stable the answer is: peak RSS, and so who fits the budget, repeats
  // from run to run; the choice among those that fit rests on the timing
  // verdicts, which a repeated run need not make again.
  std::vector<std::string> within, verdicts;
  for (const auto& [a, ratio] : needs) {
    if (ratio > ja::kMemoryBudgetRatio) continue;
    within.push_back(a);
    for (const std::string& v : clear_verdicts[a]) {
      verdicts.push_back(absl::StrCat(a, " ", v));
    }
  }
  lab.results().AddNote(absl::StrFormat(
      "memo: how stable: the budget (peak RSS, which repeats from run to "
      "run) leaves %s; the choice among them rests on %s, and a repeated "
      "run may find other ones and choose otherwise",
      within.empty() ? "none" : absl::StrJoin(within, ", "),
      verdicts.empty()
          ? std::string("no clear timing verdict (no interval excludes 1)")
          : absl::StrCat(verdicts.size(), " clear timing verdict(s) (",
                         absl::StrJoin(verdicts, ", "), ")")));
  lab.results().AddNote(
      "peak_rss_kib is the child's own VmHWM; ru_maxrss_kib is wait4's, which "
      "also counts the launcher's pages at the fork (child_run.h)");
  if (compared > 0) {
    lab.results().AddNote(absl::StrFormat(
        "HL low/high: the course's exact interval for the same ratio "
        "(Hodges-Lehmann on the log-ratios of every pair of runs, "
        "rank_interval.h), coverage %.1f%% with %d runs each; %d verdicts "
        "at that level: where no allocator differs at all, about %.1f of "
        "them would still exclude 1 by chance",
        100 * hl_coverage, reps, compared, compared * (1 - hl_coverage)));
  }
  lab.results().AddPlot({.kind = alloclab::PlotKind::kScatter,
                         .y = "wall_s",
                         .x = "peak_rss_kib",
                         .series = "variant",
                         .title = ""});
  lab.results().AddPlot({.kind = alloclab::PlotKind::kSamples,
                         .y = "rss_kib",
                         .x = "rss_t_s",
                         .series = "",
                         .title = ""});
  return absl::OkStatus();
}

absl::Status CheckFlags(const alloclab::LabOptions& options) {
  if (options.repetitions != 0 && options.repetitions < ja::kMinRepetitions) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repetitions=", options.repetitions,
                     ": the comparison needs at least ", ja::kMinRepetitions));
  }
  absl::StatusOr<std::vector<std::string>> allocators = ja::ParseNames(
      "allocators", absl::GetFlag(FLAGS_allocators),
      [](absl::string_view a) { return alloclab::FindAllocator(a).status(); });
  if (!allocators.ok()) return allocators.status();
  absl::StatusOr<std::vector<std::string>> workloads = ja::ParseNames(
      "workloads", absl::GetFlag(FLAGS_workloads), ja::CheckWorkloadName);
  if (!workloads.ok()) return workloads.status();
  if (absl::Status s = ja::CheckRowChoice(*allocators, *workloads,
                                          absl::GetFlag(FLAGS_tuning_workload));
      !s.ok()) {
    return s;
  }
  // A NaN scale would pass a `<= 0` test and a huge one overflow the counts.
  const double scale = absl::GetFlag(FLAGS_iterations_scale);
  if (absl::GetFlag(FLAGS_threads) < 0 ||
      absl::GetFlag(FLAGS_threads) > ja::kMaxThreads ||
      !(scale > 0 && scale <= kMaxIterationsScale) ||
      absl::GetFlag(FLAGS_rss_interval_ms) <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--threads must be 0 to %d, --iterations_scale above 0 and at most %g, "
        "--rss_interval_ms above 0",
        ja::kMaxThreads, kMaxIterationsScale));
  }
  return absl::OkStatus();
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  return {.lab = "jemalloc_adoption",
          .usage =
              "Lab jemalloc_adoption: glibc, jemalloc, tcmalloc and "
              "mimalloc on five workloads; time, peak memory, and a "
              "decision.",
          .columns = {{"wall_s", 3},
                      {"wall_min_s", "min", 3},
                      {"wall_max_s", "max", 3},
                      {"user_s", 2},
                      {"sys_s", 2},
                      {"peak_rss_kib", 0},
                      {"vs", 0},
                      {"time_ratio", "time x", 2},
                      {"ci_low", "CI low", 2},
                      {"ci_high", "CI high", 2},
                      {"verdict", 0},
                      {"hl_low", "HL low", 2},
                      {"hl_high", "HL high", 2},
                      {"rss_ratio", "RSS x", 2},
                      {"allocator_verified", "verified", 0}},
          .check_flags = CheckFlags};
}

}  // namespace

ALLOCLAB_EXPERIMENT_MAIN(Spec, Experiment)
