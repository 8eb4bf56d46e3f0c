// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/adoption/matrix.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/adoption/runs.h"
#include "common/adoption/verdict.h"
#include "common/adoption/workloads.h"
#include "common/harness/child_run.h"
#include "common/harness/interleave.h"
#include "common/harness/samples.h"
#include "common/harness/variant_error.h"
#include "common/instruments/syscalls.h"
#include "common/machine/allocator_probe.h"
#include "common/stats/rank_interval.h"

namespace alloclab::adoption {
namespace {

// jemalloc settings: the trade lg_dirty_mult made in the thread, today's
// names (variant suffix, MALLOC_CONF).
const std::vector<std::pair<std::string, std::string>> kTunings = {
    {"dirty_decay_0", "dirty_decay_ms:0"},
    {"background_thread", "background_thread:true"},
    {"narenas_1", "narenas:1"},
};

// The counted run of a row: its system calls over the operations it
// reported, and whether its malloc, too, was the allocator asked for.
// Unavailable when the kernel refuses ptrace.
struct CountedRun {
  double per_op = 0;
  double memory_per_op = 0;
};

absl::StatusOr<CountedRun> CountRowSyscalls(AllocatorRun& s) {
  std::vector<std::string> env;
  for (const auto& [name, value] : s.command.env) {
    env.push_back(absl::StrCat(name, "=", value));
  }
  std::fprintf(stderr, "  %-36s under ptrace, counting system calls\n",
               s.variant.c_str());
  std::string out;
  absl::StatusOr<alloclab::ProcessSyscalls> traced =
      alloclab::CountSyscallsOfCommand(s.command.argv, env, &out);
  if (!traced.ok()) return traced.status();
  if (traced->exit_code != 0) {
    return alloclab::VariantError(
        s.variant,
        absl::InternalError(absl::StrCat(
            "the workload under ptrace ended with exit ", traced->exit_code,
            ", signal ", traced->term_signal, ": '", out, "'")));
  }
  absl::StatusOr<alloclab::MallocProvider> provider =
      alloclab::ParseProviderLine(out);
  if (!provider.ok())
    return alloclab::VariantError(s.variant, provider.status());
  s.verified &= provider->allocator == s.allocator;
  uint64_t iterations = 0;
  int threads = 0;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::ConsumePrefix(&line, "iterations: "))
      (void)absl::SimpleAtoi(line, &iterations);
    if (absl::ConsumePrefix(&line, "threads: "))
      (void)absl::SimpleAtoi(line, &threads);
  }
  const uint64_t ops = Operations(s.workload, threads, iterations);
  if (ops == 0) {
    return alloclab::VariantError(
        s.variant, absl::InternalError(
                       absl::StrCat("the workload printed no 'threads: N' and "
                                    "'iterations: N' lines: '",
                                    out, "'")));
  }
  const alloclab::SyscallCounts& c = traced->counts;
  return CountedRun{
      static_cast<double>(c.total) / static_cast<double>(ops),
      static_cast<double>(c.mmap + c.munmap + c.brk + c.madvise + c.mremap) /
          static_cast<double>(ops)};
}

}  // namespace

absl::Status CheckMatrixFlags(
    const alloclab::LabOptions& options, const MatrixFlags& flags,
    const std::function<absl::Status(absl::string_view)>& check_allocator) {
  if (options.repetitions != 0 && options.repetitions < kMinRepetitions) {
    return absl::InvalidArgumentError(
        absl::StrCat("--repetitions=", options.repetitions,
                     ": the comparison needs at least ", kMinRepetitions));
  }
  absl::StatusOr<std::vector<std::string>> allocators =
      ParseNames("allocators", flags.allocators, check_allocator);
  if (!allocators.ok()) return allocators.status();
  absl::StatusOr<std::vector<std::string>> workloads =
      ParseNames("workloads", flags.workloads, CheckWorkloadName);
  if (!workloads.ok()) return workloads.status();
  if (absl::Status s =
          CheckRowChoice(*allocators, *workloads, flags.tuning_workload);
      !s.ok()) {
    return s;
  }
  // A NaN scale would pass a `<= 0` test and a huge one overflow the counts.
  if (flags.threads < 0 || flags.threads > kMaxThreads ||
      !(flags.iterations_scale > 0 &&
        flags.iterations_scale <= kMaxIterationsScale) ||
      flags.rss_interval_ms <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--threads must be 0 to %d, --iterations_scale above 0 and at most %g, "
        "--rss_interval_ms above 0",
        kMaxThreads, kMaxIterationsScale));
  }
  return absl::OkStatus();
}

std::vector<alloclab::Column> MatrixColumns(bool syscalls) {
  std::vector<alloclab::Column> columns = {
      {"wall_s", 3},
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
      {"allocator_verified", "verified", 0}};
  if (syscalls) {
    columns.push_back({"syscalls_per_op", "syscalls/op", 4});
    columns.push_back({"memory_syscalls_per_op", "mem syscalls/op", 4});
  }
  return columns;
}

const MatrixRow* MatrixResult::Find(absl::string_view variant) const {
  for (const MatrixRow& row : rows) {
    if (row.variant == variant) return &row;
  }
  return nullptr;
}

namespace {

// The rows of `spec` in table order, not yet run: every workload under every
// allocator, then jemalloc's MALLOC_CONF rows on the tuning workload.
// `workload` is the workload program; `quick` scales its iterations down.
std::vector<AllocatorRun> MatrixRuns(const MatrixSpec& spec,
                                     const std::string& workload, bool quick) {
  std::vector<AllocatorRun> setups;
  auto add = [&](const std::string& w, const std::string& a,
                 const std::string& library, const std::string& suffix,
                 const std::string& conf) {
    AllocatorRun s{absl::StrCat(w, "_", a, suffix), w, a, conf,
                   suffix.empty() ? std::string(kBaseline) : a};
    const auto iterations =
        static_cast<uint64_t>(spec.iterations_scale *
                              static_cast<double>(DefaultIterations(w, quick)));
    s.command.argv = {
        workload, "--workload=" + w, absl::StrCat("--threads=", spec.threads),
        absl::StrCat("--iterations=", std::max<uint64_t>(1, iterations))};
    if (!library.empty()) s.command.env.push_back({"LD_PRELOAD", library});
    if (!conf.empty()) s.command.env.push_back({"MALLOC_CONF", conf});
    s.command.rss_sample_interval = absl::Milliseconds(spec.rss_interval_ms);
    setups.push_back(std::move(s));
  };
  for (const std::string& w : spec.workloads) {
    for (const MatrixAllocator& a : spec.allocators)
      add(w, a.name, a.library, "", "");
  }
  for (const MatrixAllocator& a : spec.allocators) {
    if (a.name != "jemalloc" || spec.tuning_workload.empty()) continue;
    for (const auto& [suffix, conf] : kTunings)
      add(spec.tuning_workload, a.name, a.library, "_" + suffix, conf);
  }
  return setups;
}

// The timed runs: every row `reps` times, in turn, starting one further each
// repetition, so that no allocator always runs first, or always after the
// same neighbour. Stops at the first run that fails.
absl::Status RunTimed(std::vector<AllocatorRun>& setups, int reps) {
  return alloclab::Interleave(
      reps, static_cast<int>(setups.size()),
      [&](const alloclab::InterleavedRun& turn) {
        if (turn.position == 0) {
          std::fprintf(stderr, "repetition %d of %d (%zu runs)\n",
                       turn.repetition + 1, reps, setups.size());
        }
        return RunOnce(setups[turn.variant]);
      },
      alloclab::InterleaveOrder::kRotated);
}

// One more run of each row under ptrace, after the timed ones: its counts
// are exact, its time is not (syscalls.h), so nothing of it is timed. The
// counts by variant; when the kernel refuses ptrace, the rows counted before
// the refusal, and the refusal in `refused`.
absl::StatusOr<std::map<std::string, CountedRun>> CountRowsSyscalls(
    std::vector<AllocatorRun>& setups, std::optional<absl::Status>& refused) {
  std::fprintf(stderr, "system calls: one run of each row under ptrace\n");
  std::map<std::string, CountedRun> counted;
  for (AllocatorRun& s : setups) {
    absl::StatusOr<std::optional<CountedRun>> c =
        alloclab::UnlessRefused(CountRowSyscalls(s), refused);
    if (!c.ok()) return c.status();
    if (!c->has_value()) break;  // refused: n/a from this row on
    counted[s.variant] = **c;
  }
  return counted;
}

// What the comparisons with the baseline rows found, for the notes.
struct Comparisons {
  double hl_coverage = 0;  // of the rows' exact intervals (same n and m)
  int compared = 0;        // rows with a verdict against their baseline
  // allocator -> its rows whose interval excludes 1 ("churn faster").
  std::map<std::string, std::vector<std::string>> clear_verdicts;
};

// Adds run `s`'s row to the table (times, memory, verification, RSS over
// time, and its system calls when `count_syscalls`), its MatrixRow to
// `result.rows` and, for a default row (no MALLOC_CONF), its Measurement to
// `result.table`. Returns the table's row.
alloclab::Row& AddMeasuredRow(const AllocatorRun& s, bool count_syscalls,
                              const std::map<std::string, CountedRun>& counted,
                              alloclab::Results& results,
                              MatrixResult& result) {
  alloclab::Row& row = results.AddRow(s.variant, s.threads);
  const std::vector<double>& wall = s.samples.Values("wall_s");
  const alloclab::Summary w = alloclab::Summarize(wall);
  const double peak = alloclab::Summarize(s.samples.Values("peak_rss_kib")).max;
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
  MatrixRow& out = result.rows.emplace_back();
  out.variant = s.variant;
  out.workload = s.workload;
  out.allocator = s.allocator;
  out.malloc_conf = s.malloc_conf;
  out.verified = s.verified;
  out.peak_rss_kib = peak;
  if (count_syscalls) {
    auto it = counted.find(s.variant);
    if (it != counted.end()) {
      out.syscalls_per_op = it->second.per_op;
      out.memory_syscalls_per_op = it->second.memory_per_op;
    }
    row.Set("syscalls_per_op", out.syscalls_per_op)
        .Set("memory_syscalls_per_op", out.memory_syscalls_per_op);
  }
  if (s.malloc_conf.empty()) {
    result.table.push_back({s.workload, s.allocator, wall, peak, s.verified});
  }
  return row;
}

// Compares run `s` with `base`, the row of its workload under `s.vs`: the
// verdict of `spec.compare` and the course's exact interval for the time
// ratio, and the peak RSS ratio, into the table's `row`, into `out` and into
// `comparisons`. Errors name the row the comparison refused.
absl::Status AddComparison(const AllocatorRun& s, const AllocatorRun& base,
                           const MatrixSpec& spec, alloclab::Row& row,
                           MatrixRow& out, Comparisons& comparisons) {
  const std::vector<double>& wall = s.samples.Values("wall_s");
  absl::StatusOr<Comparison> c =
      spec.compare(wall, base.samples.Values("wall_s"), 1);
  if (!c.ok()) return alloclab::VariantError(s.variant, c.status());
  const double base_peak =
      alloclab::Summarize(base.samples.Values("peak_rss_kib")).max;
  // The course's comparison for the learner's interval: exact, no seed.
  absl::StatusOr<alloclab::RatioInterval> hl =
      alloclab::HodgesLehmannRatio(wall, base.samples.Values("wall_s"));
  if (hl.ok()) {
    row.Set("hl_ratio", hl->estimate)
        .Set("hl_low", hl->low)
        .Set("hl_high", hl->high);
    comparisons.hl_coverage = hl->coverage;
    ++comparisons.compared;
  }
  if (s.malloc_conf.empty() && c->verdict != Verdict::kNoClearDifference) {
    comparisons.clear_verdicts[s.allocator].push_back(
        absl::StrCat(s.workload, " ", VerdictName(c->verdict)));
  }
  row.SetText("vs", s.vs)
      .Set("time_ratio", c->ratio)
      .Set("ci_low", c->ci_low)
      .Set("ci_high", c->ci_high)
      .SetText("verdict", VerdictName(c->verdict))
      .Set("rss_ratio", out.peak_rss_kib / base_peak);
  out.vs = s.vs;
  out.vs_baseline = *c;
  out.rss_ratio = out.peak_rss_kib / base_peak;
  return absl::OkStatus();
}

// The recommendation of `spec.recommend` over `result.table`, into
// `result`: the line above the table, and the memo's first notes (the
// choice and its reasons).
absl::Status AddRecommendation(alloclab::Lab& lab, const MatrixSpec& spec,
                               MatrixResult& result) {
  absl::StatusOr<Recommendation> rec =
      spec.recommend(result.table, kMemoryBudgetRatio, 1);
  if (!rec.ok()) return rec.status();
  result.recommendation = *rec;
  lab.PrintAboveTable(absl::StrFormat(
      "recommendation: %s (budget: peak RSS at most %.2fx %s's on every "
      "workload)",
      rec->allocator.value_or("none fits"), kMemoryBudgetRatio, kBaseline));
  lab.results().AddNote(
      absl::StrCat("memo: recommended: ",
                   rec->allocator.value_or("nothing fits the budget")));
  for (const std::string& reason : rec->reasons) {
    lab.results().AddNote(absl::StrCat("memo: ", reason));
  }
  return absl::OkStatus();
}

// The budget each allocator of `table` would need: its worst peak RSS
// ratio to the baseline row of the same workload (in `by_variant`).
std::map<std::string, double> BudgetNeeds(
    const std::vector<Measurement>& table,
    std::map<std::string, const AllocatorRun*>& by_variant) {
  std::map<std::string, double> needs;
  for (const Measurement& m : table) {
    const AllocatorRun* base =
        by_variant[absl::StrCat(m.workload, "_", kBaseline)];
    const double ratio =
        m.peak_rss_kib / base->samples.Summarize("peak_rss_kib")->max;
    needs[m.allocator] = std::max(needs[m.allocator], ratio);
  }
  return needs;
}

// The memo's last notes: what would change the recommendation, and how
// stable it is. Peak RSS, and so who fits the budget, repeats from run to
// run; the choice among those that fit rests on the timing verdicts, which
// a repeated run need not make again.
void AddMemoOutlook(alloclab::Lab& lab,
                    const std::map<std::string, double>& needs,
                    const Comparisons& comparisons, int threads) {
  std::vector<std::string> budgets;
  for (const auto& [a, ratio] : needs) {
    if (ratio > kMemoryBudgetRatio)
      budgets.push_back(absl::StrFormat("%s %.2fx", a, ratio));
  }
  lab.results().AddNote(absl::StrFormat(
      "memo: what would change it: a larger budget (%s), more threads (here "
      "%d), or your own program's workload in place of these.",
      budgets.empty() ? "none is over it" : absl::StrJoin(budgets, ", "),
      threads));
  std::vector<std::string> within, verdicts;
  for (const auto& [a, ratio] : needs) {
    if (ratio > kMemoryBudgetRatio) continue;
    within.push_back(a);
    auto clear = comparisons.clear_verdicts.find(a);
    if (clear == comparisons.clear_verdicts.end()) continue;
    for (const std::string& v : clear->second) {
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
}

// The notes on how the columns were measured: peak RSS, the HL interval
// (when a row was compared) and the system calls (when counted, or why
// not), with `reps` runs per row.
void AddMethodNotes(alloclab::Lab& lab, const MatrixSpec& spec, int reps,
                    const Comparisons& comparisons,
                    const std::optional<absl::Status>& ptrace_refused) {
  lab.results().AddNote(
      "peak_rss_kib is the child's own VmHWM; ru_maxrss_kib is wait4's, which "
      "also counts the launcher's pages at the fork (child_run.h)");
  if (comparisons.compared > 0) {
    lab.results().AddNote(absl::StrFormat(
        "HL low/high: the course's exact interval for the same ratio "
        "(Hodges-Lehmann on the log-ratios of every pair of runs, "
        "rank_interval.h), coverage %.1f%% with %d runs each; %d verdicts "
        "at that level: where no allocator differs at all, about %.1f of "
        "them would still exclude 1 by chance",
        100 * comparisons.hl_coverage, reps, comparisons.compared,
        comparisons.compared * (1 - comparisons.hl_coverage)));
  }
  if (spec.count_syscalls) {
    lab.results().AddNote(
        ptrace_refused.has_value()
            ? alloclab::RefusedNote("syscalls/op", *ptrace_refused)
            : "syscalls/op: every system call of one more run of the row, "
              "under ptrace and never timed (syscalls.h), over its operations "
              "(its iterations over all its threads, workloads.h); mem "
              "syscalls/op: mmap, munmap, brk, madvise and mremap alone. "
              "Start-up's calls are in them, which only a small run notices");
  }
}

// The pictures: wall time against peak RSS, one point per row; RSS over
// time, one line per row.
void AddPlots(alloclab::Lab& lab) {
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
}

}  // namespace

absl::StatusOr<MatrixResult> RunMatrix(alloclab::Lab& lab,
                                       const MatrixSpec& spec) {
  if (spec.compare == nullptr || spec.recommend == nullptr) {
    return absl::InvalidArgumentError(
        "RunMatrix: the spec has no CompareTimings() or Recommend() to call");
  }
  const bool quick = lab.options().quick;
  const int reps = lab.options().Repetitions(kMinRepetitions, 5);
  absl::StatusOr<std::string> workload = WorkloadBinary();
  if (!workload.ok()) return workload.status();
  std::vector<AllocatorRun> setups = MatrixRuns(spec, *workload, quick);
  if (absl::Status s = RunTimed(setups, reps); !s.ok()) return s;
  std::map<std::string, CountedRun> counted;
  std::optional<absl::Status> ptrace_refused;
  if (spec.count_syscalls) {
    absl::StatusOr<std::map<std::string, CountedRun>> c =
        CountRowsSyscalls(setups, ptrace_refused);
    if (!c.ok()) return c.status();
    counted = *std::move(c);
  }

  MatrixResult result;
  result.threads = setups.empty() ? 0 : setups.front().threads;
  std::map<std::string, const AllocatorRun*> by_variant;
  for (const AllocatorRun& s : setups) by_variant[s.variant] = &s;
  Comparisons comparisons;
  for (const AllocatorRun& s : setups) {
    alloclab::Row& row =
        AddMeasuredRow(s, spec.count_syscalls, counted, lab.results(), result);
    const AllocatorRun* base = by_variant[absl::StrCat(s.workload, "_", s.vs)];
    if (base == nullptr || base == &s) continue;
    if (absl::Status c =
            AddComparison(s, *base, spec, row, result.rows.back(), comparisons);
        !c.ok()) {
      return c;
    }
  }

  if (absl::Status s = AddRecommendation(lab, spec, result); !s.ok()) return s;
  AddMemoOutlook(lab, BudgetNeeds(result.table, by_variant), comparisons,
                 result.threads);
  AddMethodNotes(lab, spec, reps, comparisons, ptrace_refused);
  AddPlots(lab);
  return result;
}

}  // namespace alloclab::adoption
