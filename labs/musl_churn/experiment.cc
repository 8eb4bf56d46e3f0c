// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab musl_churn, the experiment: one churn (common/workloads/churn.h), built
// against glibc and statically against musl, run as child processes: scale
// 1024 (the thread's sizes) and 256 (Rich Felker's), with the recycler of
// task.h, and glibc with its mmap threshold fixed at 128 KiB (glibc acting
// like musl).
// Times, faults and peak RSS come from untraced runs (wait4); system calls
// from separate runs under ptrace, steady-state (runs.h). What musl's
// free() does with a freed slot's pages is its version's: the musl rows say
// which musl ran and whether its free() uses madvise(MADV_FREE)
// (common/machine/versions.h).

#include "common/harness/experiment.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/harness/child_run.h"
#include "common/harness/interleave.h"
#include "common/harness/variant_error.h"
#include "common/instruments/syscalls.h"
#include "common/machine/versions.h"
#include "common/workloads/churn.h"
#include "labs/musl_churn/runs.h"
#include "labs/musl_churn/task.h"

ABSL_FLAG(int64_t, iterations, 0,
          "iterations of each timed run (0: 200,000, or 65,536 with --quick; "
          "the musl thread ran 100,000,000)");
ABSL_FLAG(int64_t, trace_iterations, 0,
          "steady-state iterations counted under ptrace (0: 65,536, or 4,096 "
          "with --quick)");
ABSL_FLAG(uint64_t, seed, 1, "seed of the churn's xorshift64");
ABSL_FLAG(int64_t, recycle_bound_mib,
          static_cast<int64_t>(RECYCLER_LAB_BOUND_BYTES >> 20),
          "the recycler's bound in the _recycled rows, MiB");

namespace musl_churn {
namespace {

// The musl thread (100 million iterations, scale 1024, built at -O0), user
// + sys; wall was 37.5 s and 390.5 s.
constexpr double kReferenceGlibcCpuS = 36.677 + 0.771;
constexpr double kReferenceMuslCpuS = 96.67 + 293.31;

struct ChurnVariant {
  const char* name;
  const char* program;  // beside this binary (BUILD: experiment_data)
  uint64_t scale;
  bool recycled, fixed_threshold;
};

constexpr ChurnVariant kVariants[] = {
    {"glibc_1024", "churn_glibc", 1024, false, false},
    {"musl_1024", "churn_musl", 1024, false, false},
    {"glibc_256", "churn_glibc", 256, false, false},
    {"musl_256", "churn_musl", 256, false, false},
    {"musl_1024_recycled", "churn_musl", 1024, true, false},
    {"glibc_1024_recycled", "churn_glibc", 1024, true, false},
    {"glibc_1024_fixed_threshold", "churn_glibc", 1024, false, true},
};
constexpr int kCount = sizeof(kVariants) / sizeof(kVariants[0]);
enum { kGlibc1024, kMusl1024, kGlibc256, kMusl256, kMuslRecycled };

// `verbose`: say what runs, and show each run's progress.
ChurnRunSpec Spec(const ChurnVariant& v, bool verbose) {
  const uint64_t bound = uint64_t(absl::GetFlag(FLAGS_recycle_bound_mib)) << 20;
  return {v.scale, absl::GetFlag(FLAGS_seed), v.recycled ? bound : 0,
          v.fixed_threshold, verbose ? v.name : ""};
}

// RunUntracedRows()
//
// Every row's program untraced, in turn so that drift hits every row alike;
// the first round is each row's fill run, then `repetitions` runs of `n`
// iterations.
absl::Status RunUntracedRows(const std::string (&programs)[kCount],
                             bool verbose, int repetitions, int64_t n,
                             UntracedRuns (&untraced)[kCount]) {
  return alloclab::Interleave(
      1 + repetitions, kCount, [&](const alloclab::InterleavedRun& turn) {
        const int i = turn.variant;
        return alloclab::VariantError(
            kVariants[i].name,
            RunUntraced(programs[i], Spec(kVariants[i], verbose),
                        turn.repetition == 0 ? kFillRun : n, untraced[i]));
      });
}

// AddRow()
//
// Row `v`: the medians of its untraced runs, its steady-state system calls
// per call over `k` traced iterations (n/a when `traced` is nullopt: ptrace
// refused), and for musl's rows, musl's version and whether its free()
// calls madvise(MADV_FREE).
absl::Status AddRow(const ChurnVariant& v, const UntracedRuns& untraced,
                    const std::optional<SteadyCounts>& traced, int64_t k,
                    const absl::StatusOr<std::string>& musl,
                    alloclab::Results& results) {
  auto per_call = [&](int64_t alloclab::SyscallCounts::*count) {
    return traced.has_value() ? std::optional<double>(
                                    double(traced->counts.*count) / double(k))
                              : std::nullopt;
  };
  alloclab::Row& row = results.AddRow(v.name);
  for (const char* key :
       {"wall_s", "user_s", "sys_s", "peak_rss_kib", "page_faults_per_call",
        "checksum_ok", "launcher_rss_kib"}) {
    absl::StatusOr<alloclab::Summary> s = untraced.samples.Summarize(key);
    if (!s.ok()) return alloclab::VariantError(v.name, s.status());
    row.Set(key, s->median);
  }
  row.Set("mmap_per_call", per_call(&alloclab::SyscallCounts::mmap))
      .Set("munmap_per_call", per_call(&alloclab::SyscallCounts::munmap))
      .Set("madvise_per_call", per_call(&alloclab::SyscallCounts::madvise))
      .Set("brk_per_call", per_call(&alloclab::SyscallCounts::brk))
      .Set("share_at_or_above_threshold",
           churn_classes_at_or_above(v.scale, CHURN_MUSL_MMAP_THRESHOLD) /
               double(CHURN_SIZE_CLASSES))
      .SetText("checksum", absl::StrFormat("%016x", untraced.checksum));
  if (absl::string_view(v.program) == "churn_musl") {
    row.SetText("musl_version", musl.ok() ? *musl : "unknown");
    row.Set("musl_madv_free",
            musl.ok() ? std::optional<double>(
                            alloclab::MuslFreeUsesMadvFree(*musl) ? 1 : 0)
                      : std::nullopt);
  }
  return absl::OkStatus();
}

// Rows
//
// A row's value by its place in kVariants, 0 when not measured.
class Rows {
 public:
  explicit Rows(const alloclab::Results& results) : results_(results) {}
  double Get(int i, const char* key) const {
    return results_.rows()[i].Get(key).value_or(0);
  }

 private:
  const alloclab::Results& results_;
};

// AddTracedNotes()
//
// What the traced runs showed: that a traced run is no timing, how many
// munmaps musl's mmap threshold costs per call, and what this musl's free()
// does with madvise.
void AddTracedNotes(const Rows& rows, double musl_traced_s, int64_t k,
                    int64_t n, const absl::StatusOr<std::string>& musl,
                    alloclab::Results& results) {
  results.AddNote(absl::StrFormat(
      "system calls were counted in separate runs under ptrace: musl_1024 "
      "took %.1f s for %d iterations traced, %.1f us per iteration against "
      "%.1f us untraced; never time a traced run",
      musl_traced_s, kFillRun + k, 1e6 * musl_traced_s / double(kFillRun + k),
      1e6 * rows.Get(kMusl1024, "wall_s") / double(n)));
  results.AddNote(absl::StrFormat(
      "scale 1024: %d of %d size classes reach musl's mmap threshold of %d "
      "bytes; scale 256: %d. musl_1024 made %.2f munmap per call, glibc_1024 "
      "%.4f",
      churn_classes_at_or_above(1024, CHURN_MUSL_MMAP_THRESHOLD),
      CHURN_SIZE_CLASSES, CHURN_MUSL_MMAP_THRESHOLD,
      churn_classes_at_or_above(256, CHURN_MUSL_MMAP_THRESHOLD),
      rows.Get(kMusl1024, "munmap_per_call"),
      rows.Get(kGlibc1024, "munmap_per_call")));
  if (!musl.ok()) return;
  results.AddNote(
      alloclab::MuslFreeUsesMadvFree(*musl)
          ? absl::StrFormat(
                "musl %s (before %s) frees the whole pages inside each "
                "freed slot of a multi-slot group with madvise(MADV_FREE): "
                "musl_256 made %.2f madvise per call",
                *musl, alloclab::kMuslFirstWithoutMadvFree,
                rows.Get(kMusl256, "madvise_per_call"))
          : absl::StrFormat(
                "musl %s (%s or later) no longer calls madvise(MADV_FREE) "
                "in free(): musl_256 made %.2f madvise per call, where "
                "musl 1.2.3 makes about one",
                *musl, alloclab::kMuslFirstWithoutMadvFree,
                rows.Get(kMusl256, "madvise_per_call")));
}

// TradeNote()
//
// The trade: kernel time against resident memory, glibc's and musl's, and
// where the recycler took musl.
std::string TradeNote(const Rows& rows, bool counted) {
  return absl::StrFormat(
      "the trade: glibc_1024 took %.2f s in the kernel and peaked at %.0f MiB "
      "resident, musl_1024 %.2f s and %.0f MiB; the recycler (bound %d MiB) "
      "took musl to %s%.2f s and %.0f MiB (each peak "
      "counts the %.0f MiB this launcher had resident at the fork)",
      rows.Get(kGlibc1024, "sys_s"),
      rows.Get(kGlibc1024, "peak_rss_kib") / 1024, rows.Get(kMusl1024, "sys_s"),
      rows.Get(kMusl1024, "peak_rss_kib") / 1024,
      absl::GetFlag(FLAGS_recycle_bound_mib),
      counted ? absl::StrFormat("%.3f munmap per call, ",
                                rows.Get(kMuslRecycled, "munmap_per_call"))
              : "",
      rows.Get(kMuslRecycled, "sys_s"),
      rows.Get(kMuslRecycled, "peak_rss_kib") / 1024,
      rows.Get(kGlibc1024, "launcher_rss_kib") / 1024);
}

// SetHeadlineAndPlots()
//
// musl's CPU time over glibc's (CPU time, not wall: wall also counts
// waiting for a CPU on a busy machine), and the trade side by side: kernel
// time against resident memory.
void SetHeadlineAndPlots(const Rows& rows, alloclab::Results& results) {
  const double ratio =
      (rows.Get(kMusl1024, "user_s") + rows.Get(kMusl1024, "sys_s")) /
      (rows.Get(kGlibc1024, "user_s") + rows.Get(kGlibc1024, "sys_s"));
  results.SetHeadline(
      {.label = "musl / glibc CPU time (user + sys), scale 1024",
       .value = ratio,
       .text = absl::StrFormat("%.1fx", ratio),
       .reference =
           absl::StrFormat("%.1fx", kReferenceMuslCpuS / kReferenceGlibcCpuS)});
  for (const char* y : {"sys_s", "peak_rss_kib"}) {
    alloclab::Plot plot;  // bars by default
    plot.y = y;
    results.AddPlot(plot);
  }
}

absl::Status Experiment(alloclab::Lab& lab) {
  const bool quick = lab.options().quick;
  alloclab::Results& results = lab.results();
  int64_t n = absl::GetFlag(FLAGS_iterations);
  // glibc's peak RSS grows with the iterations and musl's levels off near
  // 50 MiB: at 65,536 glibc's is about twice musl's, the full run's trade
  // (277 against 56 MiB) in small; at 24,576 both were near 50 MiB and the
  // trade was not to be seen (tools/quick_full_test.py checks the order).
  if (n == 0) n = quick ? 65'536 : 200'000;
  int64_t k = absl::GetFlag(FLAGS_trace_iterations);
  if (k == 0) k = quick ? 4'096 : 65'536;
  const int repetitions = lab.options().Repetitions(1, 3);
  // The musl that musl-gcc linked in: Debian's musl-dev and musl (whose
  // loader says its version) come from one source at one version.
  const absl::StatusOr<std::string> musl = alloclab::MuslVersion();
  std::string programs[kCount];
  for (int i = 0; i < kCount; ++i) {
    absl::StatusOr<std::string> p =
        alloclab::ProgramBesideSelf(kVariants[i].program);
    if (!p.ok()) return alloclab::VariantError(kVariants[i].name, p.status());
    programs[i] = *p;
  }
  UntracedRuns untraced[kCount];
  if (absl::Status s =
          RunUntracedRows(programs, !quick, repetitions, n, untraced);
      !s.ok()) {
    return s;
  }

  // Traced, separately.
  double traced_s[kCount];
  std::optional<absl::Status> refused;  // ptrace refused: counts n/a
  for (int i = 0; i < kCount; ++i) {
    const ChurnVariant& v = kVariants[i];
    absl::StatusOr<std::optional<SteadyCounts>> t = alloclab::UnlessRefused(
        CountSteadySyscalls(programs[i], Spec(v, !quick), k), refused);
    if (!t.ok()) return alloclab::VariantError(v.name, t.status());
    traced_s[i] = t->has_value() ? (*t)->traced_wall_s : 0;
    if (absl::Status s = AddRow(v, untraced[i], *t, k, musl, results);
        !s.ok()) {
      return s;
    }
  }
  if (refused.has_value()) {
    results.AddNote(alloclab::RefusedNote("system calls per call", *refused));
  }
  if (!musl.ok()) {
    results.AddNote(absl::StrCat("musl's version: unknown (",
                                 musl.status().message(), ")"));
  }

  const Rows rows(results);
  results.AddNote(absl::StrFormat(
      "times, page faults and peak RSS: median of %d untraced run(s) of %d "
      "iterations (wait4); faults and system calls per call are steady-state: "
      "(run of %d + K iterations - run of %d) / K, K = %d for system calls; "
      "the musl thread, 100 million iterations at -O0: user + sys glibc "
      "%.1f s, musl %.1f s",
      repetitions, n, kFillRun, kFillRun, k, kReferenceGlibcCpuS,
      kReferenceMuslCpuS));
  if (!refused.has_value()) {
    AddTracedNotes(rows, traced_s[kMusl1024], k, n, musl, results);
  }
  results.AddNote(TradeNote(rows, !refused.has_value()));
  SetHeadlineAndPlots(rows, results);
  return absl::OkStatus();
}

absl::Status CheckFlags(const alloclab::LabOptions&) {
  const int64_t n = absl::GetFlag(FLAGS_iterations);
  const int64_t k = absl::GetFlag(FLAGS_trace_iterations);
  std::string problem;
  if (n != 0 && (n <= kFillRun || n > 1'000'000'000'000)) {
    problem = absl::StrCat("--iterations must be 0 or ", kFillRun + 1,
                           " (after the fill run) to 10^12");
  } else if (k != 0 && (k < 1024 || k > 1'000'000'000)) {
    problem = "--trace_iterations must be 0 or 1024 to 10^9";
  } else if (const int64_t mib = absl::GetFlag(FLAGS_recycle_bound_mib);
             mib < 1 || mib > (int64_t{1} << 20)) {  // 2^44 MiB: bytes wrap
    problem = "--recycle_bound_mib must be 1 to 1048576 (1 TiB)";
  }
  return problem.empty() ? absl::OkStatus()
                         : absl::InvalidArgumentError(problem);
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  return {.lab = "musl_churn",
          .usage =
              "Lab musl_churn: one churn under glibc and musl, where the "
              "time goes and the memory it buys.",
          .columns = {{"wall_s", 2},
                      {"user_s", 2},
                      {"sys_s", 2},
                      {"page_faults_per_call", "faults/call", 2},
                      {"mmap_per_call", "mmap/call", 3},
                      {"munmap_per_call", "munmap/call", 3},
                      {"madvise_per_call", "madvise/call", 3},
                      {"brk_per_call", "brk/call", 4},
                      {"peak_rss_kib", 0},
                      {"share_at_or_above_threshold", "share >= thr", 3},
                      {"checksum", 0},
                      {"musl_version", "musl", 0}},
          .check_flags = CheckFlags,
          .faults_from = "wait4's ru_minflt of each churn process"};
}

}  // namespace
}  // namespace musl_churn

ALLOCLAB_EXPERIMENT_MAIN(musl_churn::Spec, musl_churn::Experiment)
