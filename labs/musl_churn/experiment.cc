// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab musl_churn, the experiment: one churn (churn.h), built against glibc
// and statically against musl, run as child processes of this program.
//
//   glibc_1024 / musl_1024    the thread's sizes: 1..256 KiB
//   glibc_256 / musl_256      Rich Felker's suggestion: 256 B..64 KiB
//   musl_1024_recycled        your recycler (task.h) in front of musl's
//   glibc_1024_recycled       ... and of glibc's malloc
//   glibc_1024_fixed_threshold  glibc with its mmap threshold fixed at
//                             128 KiB (GLIBC_TUNABLES): glibc acting like musl
//
// Times, faults and peak RSS come from untraced runs (wait4's rusage); the
// system calls from separate runs under ptrace, which slows a process that
// makes a system call per iteration many times over. Per-call counts are
// steady-state: the difference between a run of kFillRun + K iterations and
// one of kFillRun, divided by K, so the first 4,096 blocks and the final
// frees cancel out.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/child_run.h"
#include "common/experiment.h"
#include "common/syscalls.h"
#include "labs/musl_churn/churn.h"
#include "labs/musl_churn/task.h"

ABSL_FLAG(int64_t, iterations, 0,
          "iterations of each timed run (0: 200,000, or 24,576 with --quick; "
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

// A run this long has filled the table of live blocks and then churned as
// long again: the base of the steady-state differences.
constexpr int64_t kFillRun = 2 * CHURN_MAX_LIVE;
// Runs this long print their progress (each child, every few seconds).
constexpr int64_t kProgressIterations = 2'000'000;
// The musl thread (100 million iterations, scale 1024, built at -O0).
constexpr double kReferenceGlibcWallS = 37.529;
constexpr double kReferenceMuslWallS = 390.51;

struct ChurnVariant {
  const char* name;
  const char* program;  // beside this binary (BUILD: experiment_data)
  uint64_t scale;
  bool recycled;
  bool fixed_threshold;
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
enum { kGlibc1024, kMusl1024, kGlibc256, kMusl256, kMuslRecycled };

// The checksum a run must print: the churn run here on one scratch block
// (churn.h's checksum depends only on the sizes asked for).
uint64_t ExpectedChecksum(uint64_t iterations, uint64_t scale, uint64_t seed) {
  std::vector<unsigned char> scratch(CHURN_SIZE_CLASSES * scale);
  const churn_allocator reuse = {
      [](void* block, size_t) { return block; },
      [](void*, void*, size_t) {}, scratch.data()};
  churn_params params = {};
  params.iterations = iterations;
  params.scale = scale;
  params.seed = seed;
  params.allocator = &reuse;
  return churn_run(&params);
}

alloclab::ChildCommand Command(const std::string& program,
                               const ChurnVariant& v, int64_t iterations) {
  alloclab::ChildCommand command;
  command.argv = {program, absl::StrCat("--iterations=", iterations),
                  absl::StrCat("--scale=", v.scale),
                  absl::StrCat("--seed=", absl::GetFlag(FLAGS_seed))};
  if (v.recycled) {
    command.argv.push_back(absl::StrCat(
        "--recycle_bound=", absl::GetFlag(FLAGS_recycle_bound_mib) << 20));
  }
  if (iterations >= kProgressIterations) {
    command.argv.push_back("--progress");
    command.echo_stderr = true;
  }
  if (v.fixed_threshold) {
    command.env = {{"GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=131072"}};
  }
  return command;
}

// Steady-state system calls per iteration, and the seconds the longer
// traced run took.
struct Traced {
  alloclab::SyscallCounts per_k;  // counts over `trace_iterations`
  double long_run_s = 0;
};

absl::StatusOr<Traced> CountSteady(const std::string& program,
                                   const ChurnVariant& v, int64_t k) {
  Traced traced;
  alloclab::SyscallCounts counts[2];
  const int64_t runs[2] = {kFillRun, kFillRun + k};
  for (int i = 0; i < 2; ++i) {
    alloclab::ChildCommand c = Command(program, v, runs[i]);
    c.argv.push_back("--quiet");
    std::vector<std::string> env;
    for (const auto& [name, value] : c.env) env.push_back(name + "=" + value);
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<alloclab::ProcessSyscalls> p =
        alloclab::CountSyscallsOfCommand(c.argv, env);
    traced.long_run_s = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count();
    if (!p.ok()) return p.status();
    if (p->exit_code != 0) {
      return absl::InternalError(absl::StrCat(
          "traced run exited with ", p->exit_code, ", signal ", p->term_signal));
    }
    counts[i] = p->counts;
  }
  const alloclab::SyscallCounts& a = counts[0];
  const alloclab::SyscallCounts& b = counts[1];
  traced.per_k = {b.mmap - a.mmap, b.munmap - a.munmap, b.brk - a.brk,
                  b.madvise - a.madvise, b.mremap - a.mremap,
                  b.total - a.total};
  return traced;
}

absl::Status Experiment(alloclab::Lab& lab) {
  const bool quick = lab.options().quick;
  int64_t n = absl::GetFlag(FLAGS_iterations);
  if (n == 0) n = quick ? 24'576 : 200'000;
  int64_t k = absl::GetFlag(FLAGS_trace_iterations);
  if (k == 0) k = quick ? 4'096 : 65'536;
  const int repetitions = lab.options().Repetitions(1, 3);
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  constexpr int kCount = sizeof(kVariants) / sizeof(kVariants[0]);
  std::string programs[kCount];
  uint64_t expected[kCount], printed[kCount];
  for (int i = 0; i < kCount; ++i) {
    expected[i] = ExpectedChecksum(n, kVariants[i].scale, seed);
    absl::StatusOr<std::string> p = alloclab::ProgramBesideSelf(kVariants[i].program);
    if (!p.ok()) return alloclab::VariantError(kVariants[i].name, p.status());
    programs[i] = *p;
  }

  // Untraced: a fill-only run per variant (for the fault difference), then
  // the timed runs, round-robin so that drift hits every row alike.
  alloclab::Samples samples[kCount];
  int64_t fill_faults[kCount];
  for (int rep = -1; rep < repetitions; ++rep) {
    for (int i = 0; i < kCount; ++i) {
      const ChurnVariant& v = kVariants[i];
      const int64_t iterations = rep < 0 ? kFillRun : n;
      if (!quick) {
        std::fprintf(stderr, "musl_churn: %s, %lld iterations%s\n", v.name,
                     static_cast<long long>(iterations),
                     rep < 0 ? " (fill only)" : "");
      }
      absl::StatusOr<alloclab::ChildRun> run =
          alloclab::RunChild(Command(programs[i], v, iterations));
      if (!run.ok()) return alloclab::VariantError(v.name, run.status());
      if (rep < 0) {
        fill_faults[i] = run->minor_faults;
        continue;
      }
      uint64_t& checksum = printed[i];
      const size_t at = run->stdout_text.find("checksum=0x");
      if (at == std::string::npos ||
          !absl::SimpleHexAtoi(run->stdout_text.substr(at + 11, 16), &checksum)) {
        return alloclab::VariantError(
            v.name, absl::InternalError("no checksum in: " + run->stdout_text));
      }
      samples[i].AddRun({{"wall_s", run->wall_s},
                         {"user_s", run->user_s},
                         {"sys_s", run->sys_s},
                         {"peak_rss_kib", double(run->peak_rss_kib)},
                         {"minor_faults", double(run->minor_faults)},
                         {"checksum_ok", checksum == expected[i] ? 1.0 : 0.0},
                         {"launcher_rss_kib", double(run->launcher_rss_kib)}});
    }
  }

  // Traced, separately.
  double wall[kCount], traced_s[kCount];
  for (int i = 0; i < kCount; ++i) {
    const ChurnVariant& v = kVariants[i];
    if (!quick) {
      std::fprintf(stderr,
                   "musl_churn: %s, counting system calls under ptrace "
                   "(slower than the timed runs)\n", v.name);
    }
    absl::StatusOr<Traced> t = CountSteady(programs[i], v, k);
    if (!t.ok()) return alloclab::VariantError(v.name, t.status());
    alloclab::Row& row = lab.results().AddRow(v.name);
    for (const char* key : {"wall_s", "user_s", "sys_s", "peak_rss_kib",
                            "minor_faults", "checksum_ok", "launcher_rss_kib"}) {
      absl::StatusOr<alloclab::Summary> s = samples[i].Summarize(key);
      if (!s.ok()) return alloclab::VariantError(v.name, s.status());
      if (std::string(key) == "minor_faults") {
        row.Set("page_faults_per_call",
                (s->median - double(fill_faults[i])) / double(n - kFillRun));
      } else {
        row.Set(key, s->median);
      }
    }
    wall[i] = *row.Get("wall_s");
    traced_s[i] = t->long_run_s;
    const double per = 1.0 / double(k);
    row.Set("mmap_per_call", double(t->per_k.mmap) * per)
        .Set("munmap_per_call", double(t->per_k.munmap) * per)
        .Set("madvise_per_call", double(t->per_k.madvise) * per)
        .Set("brk_per_call", double(t->per_k.brk) * per)
        .Set("share_at_or_above_threshold",
             churn_classes_at_or_above(v.scale, CHURN_MUSL_MMAP_THRESHOLD) /
                 double(CHURN_SIZE_CLASSES))
        .SetText("checksum", absl::StrFormat("%016x", printed[i]));
  }

  const auto& rows = lab.results().rows();
  auto get = [&](int i, const char* key) { return rows[i].Get(key).value_or(0); };
  lab.results().AddNote(absl::StrFormat(
      "times, page faults and peak RSS: median of %d untraced run(s) of %d "
      "iterations (wait4); faults and system calls per call are steady-state: "
      "(run of %d + K iterations - run of %d) / K, K = %d for system calls",
      repetitions, n, kFillRun, kFillRun, k));
  lab.results().AddNote(absl::StrFormat(
      "system calls were counted in separate runs under ptrace: musl_1024 "
      "took %.1f s for %d iterations traced, %.1f us per iteration against "
      "%.1f us untraced; never time a traced run",
      traced_s[kMusl1024], kFillRun + k, 1e6 * traced_s[kMusl1024] / double(kFillRun + k),
      1e6 * wall[kMusl1024] / double(n)));
  lab.results().AddNote(absl::StrFormat(
      "scale 1024: %d of %d size classes reach musl's mmap threshold of %d "
      "bytes; scale 256: %d. musl_1024 made %.2f munmap per call, glibc_1024 "
      "%.4f; musl_256 makes its system calls as madvise (%.2f per call)",
      churn_classes_at_or_above(1024, CHURN_MUSL_MMAP_THRESHOLD), CHURN_SIZE_CLASSES,
      CHURN_MUSL_MMAP_THRESHOLD, churn_classes_at_or_above(256, CHURN_MUSL_MMAP_THRESHOLD),
      get(kMusl1024, "munmap_per_call"), get(kGlibc1024, "munmap_per_call"),
      get(kMusl256, "madvise_per_call")));
  lab.results().AddNote(absl::StrFormat(
      "the trade: glibc_1024 peaked at %.0f MiB resident, musl_1024 at %.0f "
      "MiB; your recycler (bound %d MiB) took musl to %.3f munmap per call "
      "and %.0f MiB", get(kGlibc1024, "peak_rss_kib") / 1024,
      get(kMusl1024, "peak_rss_kib") / 1024, absl::GetFlag(FLAGS_recycle_bound_mib),
      get(kMuslRecycled, "munmap_per_call"), get(kMuslRecycled, "peak_rss_kib") / 1024));
  lab.results().AddNote(absl::StrFormat(
      "peak RSS includes what this launcher had resident at the fork (%.0f "
      "MiB); the musl thread, 100 million iterations at -O0: glibc %.1f s, "
      "musl %.1f s (%.1fx)", get(kGlibc1024, "launcher_rss_kib") / 1024,
      kReferenceGlibcWallS, kReferenceMuslWallS, kReferenceMuslWallS / kReferenceGlibcWallS));
  const double ratio = wall[kMusl1024] / wall[kGlibc1024];
  lab.results().SetHeadline({.label = "musl / glibc wall time, scale 1024",
                             .value = ratio,
                             .text = absl::StrFormat("%.1fx", ratio),
                             .reference = absl::StrFormat(
                                 "%.1fx", kReferenceMuslWallS / kReferenceGlibcWallS)});
  // The trade, side by side: kernel time against resident memory.
  for (const char* y : {"sys_s", "peak_rss_kib"}) {
    alloclab::Plot plot;
    plot.kind = alloclab::PlotKind::kBars;
    plot.y = y;
    lab.results().AddPlot(plot);
  }
  return absl::OkStatus();
}

absl::Status CheckFlags(const alloclab::LabOptions&) {
  const int64_t n = absl::GetFlag(FLAGS_iterations);
  if (n != 0 && (n <= kFillRun || n > 1'000'000'000'000)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--iterations must be above ", kFillRun, " (the fill run) and at most 10^12"));
  }
  const int64_t k = absl::GetFlag(FLAGS_trace_iterations);
  if (k < 0 || (k > 0 && k < 1024)) {
    return absl::InvalidArgumentError("--trace_iterations must be at least 1024");
  }
  if (absl::GetFlag(FLAGS_recycle_bound_mib) < 1) {
    return absl::InvalidArgumentError("--recycle_bound_mib must be at least 1");
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace musl_churn

int main(int argc, char** argv) {
  return alloclab::RunLab(
      argc, argv,
      {.lab = "musl_churn",
       .usage = "Lab musl_churn: one churn under glibc and musl, where the "
                "time goes and the memory it buys.",
       .columns = {{"wall_s", "wall s", 2},
                   {"user_s", "user s", 2},
                   {"sys_s", "sys s", 2},
                   {"page_faults_per_call", "faults/call", 2},
                   {"mmap_per_call", "mmap/call", 3},
                   {"munmap_per_call", "munmap/call", 3},
                   {"madvise_per_call", "madvise/call", 3},
                   {"brk_per_call", "brk/call", 4},
                   {"peak_rss_kib", "peak RSS KiB", 0},
                   {"share_at_or_above_threshold", "share >= thr", 3},
                   {"checksum", "checksum", 0}},
       .check_flags = musl_churn::CheckFlags},
      musl_churn::Experiment);
}
