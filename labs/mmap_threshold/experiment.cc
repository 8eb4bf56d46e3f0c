// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab mmap_threshold, the experiment: why do 1,000 allocations of 256 KiB,
// twice glibc's documented mmap threshold, make almost no system call?
//
// Every variant runs in a fresh process of its own, because glibc's
// threshold remembers each big free of a process: nothing this program did
// before may move it.
//
//   dynamic                 the 256 KiB loop (workload.h) under
//                           SetMallocPolicy(Dynamic()), glibc's default
//   fixed                   the same loop under Fixed(128 KiB)
//   tunables                the same loop with no policy call, in a process
//                           started with GLIBC_TUNABLES=glibc.malloc.
//                           mmap_threshold=131072
//   probe_initial           ProbeMmapThreshold() in a fresh process
//   probe_after_256k_free   ... after a mapped 256 KiB block was freed
//   probe_after_1m_free     ... after 1 MiB
//   probe_after_64m_free    ... after 64 MiB, above the 32 MiB ceiling
//
// Each loop is run twice per process kind: once under ptrace to count its
// system calls (first call included, as `strace -c` would see it), once
// untraced to time it and count its page faults. The loop rows' threshold
// column is what ProbeMmapThreshold() finds after the loop. The whole
// program, started again with --loop=POLICY, is also counted the way
// `strace -c -f` counts it, loader and start-up included.

#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "common/fresh_process.h"
#include "common/lab_main.h"
#include "common/memory.h"
#include "common/report.h"
#include "common/scoped_env.h"
#include "common/stats.h"
#include "common/syscalls.h"
#include "labs/mmap_threshold/task.h"

ABSL_FLAG(int64_t, calls, 1000, "calls of the 256 KiB loop per process");
ABSL_FLAG(std::string, loop, "",
          "run only the 256 KiB loop under this policy and exit, for "
          "`strace -c -f`: dynamic, fixed (128 KiB) or tunables (no policy "
          "call; set GLIBC_TUNABLES yourself)");

namespace mmap_threshold {
namespace {

// The environment of the tunables variant.
constexpr char kTunablesVariable[] = "GLIBC_TUNABLES";

// TunablesValue()
//
// The threshold set to the value it has anyway, so that the row shows the
// switch alone: one source for the number, kDefaultMmapThreshold.
std::string TunablesValue() {
  return absl::StrCat("glibc.malloc.mmap_threshold=", kDefaultMmapThreshold);
}

// Where a loop row's page faults come from: the fresh process measures them
// (FreshCall::Measure), whatever this process could use.
constexpr char kFaultsSource[] =
    "getrusage(RUSAGE_THREAD) in the fresh process";

// The reference run (the allocator article, docs/references.md): `strace -c`
// of a whole Rust program that
// made 1,000 calls of a new 256 KiB buffer on glibc.
constexpr int kReferenceCalls = 1000;
constexpr int kReferenceMmap = 14;
constexpr int kReferenceMunmap = 3;
constexpr int kReferenceBrk = 4;

// Sets up the policy named `name` in this process.
absl::Status ApplyPolicy(absl::string_view name) {
  if (name == "dynamic") return SetMallocPolicy(MallocPolicy::Dynamic());
  if (name == "fixed") {
    return SetMallocPolicy(MallocPolicy::Fixed(kDefaultMmapThreshold));
  }
  if (name == "tunables") {
    if (getenv(kTunablesVariable) == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("the tunables variant needs ", kTunablesVariable,
                       " in the environment, e.g. ", kTunablesVariable, "=",
                       TunablesValue()));
    }
    return absl::OkStatus();  // glibc read it at start-up
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown policy '", name, "': use dynamic, fixed or tunables"));
}

// Fresh call "mmap_threshold_loop", arg "<policy> <count|time> <calls>".
void LoopInFreshProcess(alloclab::FreshCall& call) {
  const std::vector<std::string> args = absl::StrSplit(call.arg(), ' ');
  int64_t calls = 0;
  if (args.size() != 3 || !absl::SimpleAtoi(args[2], &calls) || calls < 1) {
    call.Fail(absl::StrCat("bad loop arguments '", call.arg(), "'"));
    return;
  }
  if (absl::Status s = ApplyPolicy(args[0]); !s.ok()) {
    call.Fail(absl::StrCat("policy ", args[0], ": ", s.ToString()));
    return;
  }
  if (args[1] == "count") {
    absl::StatusOr<alloclab::SyscallCounts> counts =
        alloclab::CountSyscallsInChild([calls] { BigBufferCalls(calls); });
    if (!counts.ok()) {
      call.Fail(
          absl::StrCat("counting system calls: ", counts.status().ToString()));
      return;
    }
    call.Record("mmap", static_cast<double>(counts->mmap));
    call.Record("munmap", static_cast<double>(counts->munmap));
    call.Record("brk", static_cast<double>(counts->brk));
    call.Record("madvise", static_cast<double>(counts->madvise));
    return;
  }
  call.Measure("loop", [calls] { BigBufferCalls(calls); });
  absl::StatusOr<size_t> threshold = ProbeMmapThreshold();
  if (threshold.ok()) {
    call.Record("threshold_bytes", static_cast<double>(*threshold));
    return;
  }
  // The loop's numbers stand without it; the parent notes why the
  // threshold cell is n/a, and the message, which only text can carry,
  // goes to stderr.
  call.Record("threshold_error_code",
              static_cast<double>(threshold.status().code()));
  std::fprintf(stderr,
               "mmap_threshold: after the %s loop: ProbeMmapThreshold: %s\n",
               args[0].c_str(), threshold.status().ToString().c_str());
}
ALLOCLAB_FRESH_CALL("mmap_threshold_loop", LoopInFreshProcess);

// Fresh call "mmap_threshold_probe", arg: bytes to allocate, touch and free
// before the probe (0: none).
void ProbeInFreshProcess(alloclab::FreshCall& call) {
  size_t bytes = 0;
  if (!absl::SimpleAtoi(call.arg(), &bytes)) {
    call.Fail(absl::StrCat("bad probe argument '", call.arg(), "'"));
    return;
  }
  if (bytes > 0) {
    void* block = malloc(bytes);
    if (block == nullptr) {
      call.Fail(absl::StrCat("malloc(", bytes, ") failed"));
      return;
    }
    TouchEveryPage(block, bytes);
    free(block);
  }
  absl::StatusOr<size_t> threshold;
  call.Measure("probe", [&] { threshold = ProbeMmapThreshold(); });
  if (!threshold.ok()) {
    call.Fail(
        absl::StrCat("ProbeMmapThreshold: ", threshold.status().ToString()));
    return;
  }
  call.Record("threshold_bytes", static_cast<double>(*threshold));
}
ALLOCLAB_FRESH_CALL("mmap_threshold_probe", ProbeInFreshProcess);

// LoopVariant
struct LoopVariant {
  const char* name;
  const char* policy;
  bool tunables;
};

// The path of this program, for starting it again under the tracer.
absl::StatusOr<std::string> OwnPath() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n < 0) return absl::InternalError("readlink(/proc/self/exe) failed");
  return std::string(path, static_cast<size_t>(n));
}

void MeasureLoop(const LoopVariant& variant, int64_t calls, int repetitions,
                 alloclab::Results& results) {
  // Set for the fresh processes started below; this program is
  // single-threaded, so changing its environment is safe.
  std::optional<alloclab::ScopedEnv> env;
  if (variant.tunables) env.emplace(kTunablesVariable, TunablesValue());
  if (env.has_value() && !env->status().ok()) {
    results.AddNote(absl::StrCat(variant.name, ": ", env->status().message()));
    return;
  }
  alloclab::Row& row = results.AddRow(variant.name);
  const double n = static_cast<double>(calls);
  row.Set("calls", n);

  // Counted: the system calls of the loop, first call included.
  absl::StatusOr<alloclab::FreshCallResult> counted = alloclab::RunFreshCall(
      "mmap_threshold_loop", absl::StrCat(variant.policy, " count ", calls));
  if (counted.ok()) {
    for (const char* name : {"mmap", "munmap", "brk", "madvise"}) {
      row.Set(absl::StrCat(name, "_per_call"), counted->values.at(name) / n);
      row.Set(absl::StrCat(name, "_calls"), counted->values.at(name));
    }
  } else {
    results.AddNote(absl::StrCat(
        variant.name, ": no system-call counts: ", counted.status().message()));
  }

  // Timed, untraced, in fresh processes: ns, page faults, threshold after.
  std::vector<double> ns, faults, threshold;
  std::optional<absl::StatusCode> probe_error;
  for (int rep = 0; rep < repetitions; ++rep) {
    absl::StatusOr<alloclab::FreshCallResult> timed = alloclab::RunFreshCall(
        "mmap_threshold_loop", absl::StrCat(variant.policy, " time ", calls));
    if (!timed.ok()) {
      results.AddNote(absl::StrCat(variant.name,
                                   ": not timed: ", timed.status().message()));
      break;
    }
    ns.push_back(timed->values.at("loop_ns") / n);
    faults.push_back(timed->values.at("loop_minor_faults") / n);
    if (auto it = timed->values.find("threshold_bytes");
        it != timed->values.end()) {
      threshold.push_back(it->second);
    } else if (auto error = timed->values.find("threshold_error_code");
               error != timed->values.end()) {
      probe_error = static_cast<absl::StatusCode>(error->second);
    }
  }
  if (!ns.empty()) {
    const alloclab::Summary t = alloclab::Summarize(ns);
    row.Set("ns_per_call", t.median).Set("ns_mad", t.mad);
    row.Set("page_faults_per_call", alloclab::Summarize(faults).median);
  }
  if (!threshold.empty()) {
    row.Set("threshold_bytes", alloclab::Summarize(threshold).median);
  }
  if (probe_error.has_value()) {
    results.AddNote(absl::StrFormat(
        "%s: ProbeMmapThreshold() failed after the loop in %d of %d "
        "processes (%s; the message is on stderr)%s",
        variant.name, static_cast<int>(ns.size() - threshold.size()),
        static_cast<int>(ns.size()), absl::StatusCodeToString(*probe_error),
        threshold.empty() ? ", so its threshold is n/a"
                          : "; the threshold is the median of the others"));
  }

  // The whole program, as `strace -c -f` counts it.
  absl::StatusOr<std::string> self = OwnPath();
  if (!self.ok()) {
    results.AddNote(absl::StrCat(variant.name, ": ", self.status().message()));
    return;
  }
  std::vector<std::string> extra_env;
  if (variant.tunables) {
    extra_env.push_back(absl::StrCat(kTunablesVariable, "=", TunablesValue()));
  }
  absl::StatusOr<alloclab::ProcessSyscalls> whole =
      alloclab::CountSyscallsOfCommand(
          {*self, absl::StrCat("--loop=", variant.policy),
           absl::StrCat("--calls=", calls)},
          extra_env);
  if (!whole.ok() || whole->exit_code != 0) {
    results.AddNote(
        absl::StrCat(variant.name, ": the whole program could not be counted: ",
                     whole.ok() ? absl::StrCat("exit code ", whole->exit_code,
                                               ", signal ", whole->term_signal)
                                : std::string(whole.status().message())));
    return;
  }
  row.Set("process_mmap", static_cast<double>(whole->counts.mmap))
      .Set("process_munmap", static_cast<double>(whole->counts.munmap))
      .Set("process_brk", static_cast<double>(whole->counts.brk));
}

void MeasureProbe(const char* name, size_t freed_bytes,
                  alloclab::Results& results) {
  alloclab::Row& row = results.AddRow(name);
  row.Set("freed_bytes", static_cast<double>(freed_bytes));
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("mmap_threshold_probe", absl::StrCat(freed_bytes));
  if (!r.ok()) {
    results.AddNote(absl::StrCat(name, ": ", r.status().message()));
    return;
  }
  row.Set("threshold_bytes", r->values.at("threshold_bytes"))
      .Set("ns_per_call", r->values.at("probe_ns"));
}

// --loop=POLICY: the loop alone, so that `strace -c -f` sees what the
// experiment's whole-process counts see. It prints nothing.
int RunLoopOnly(absl::string_view policy, int64_t calls) {
  if (absl::Status s = ApplyPolicy(policy); !s.ok()) {
    std::fprintf(stderr, "--loop=%s: %s\n", std::string(policy).c_str(),
                 s.ToString().c_str());
    return 1;
  }
  BigBufferCalls(calls);
  return 0;  // silent: the experiment counts this run, strace prints its own
}

std::optional<double> Get(const alloclab::Results& results,
                          absl::string_view variant, absl::string_view key) {
  const alloclab::Row* row = results.FindRow(variant);
  return row == nullptr ? std::nullopt : row->Get(key);
}

// The lines a reader should take away, and the ones that say what is off.
void AddNotes(int64_t calls, int repetitions, alloclab::Results& results) {
  for (const char* variant : {"dynamic", "fixed", "tunables"}) {
    const auto mmap = Get(results, variant, "mmap_calls");
    const auto pm = Get(results, variant, "process_mmap");
    if (!mmap.has_value() || !pm.has_value()) continue;
    results.AddNote(absl::StrFormat(
        "%s: %d calls made %.0f mmap, %.0f munmap, %.0f brk; the whole "
        "process (as strace -c -f counts it) %.0f mmap, %.0f munmap, "
        "%.0f brk",
        variant, calls, *mmap, *Get(results, variant, "munmap_calls"),
        *Get(results, variant, "brk_calls"), *pm,
        *Get(results, variant, "process_munmap"),
        *Get(results, variant, "process_brk")));
  }
  results.AddNote(absl::StrFormat(
      "the reference run (the allocator article, a Rust program on glibc, "
      "strace -c of "
      "the whole process, %d calls): %d mmap, %d munmap, %d brk",
      kReferenceCalls, kReferenceMmap, kReferenceMunmap, kReferenceBrk));
  const auto dyn_ns = Get(results, "dynamic", "ns_per_call");
  const auto fix_ns = Get(results, "fixed", "ns_per_call");
  if (dyn_ns.has_value() && fix_ns.has_value() && *dyn_ns > 0) {
    results.AddNote(absl::StrFormat(
        "fixed / dynamic: %.1fx the time per call, measured side by side "
        "here",
        *fix_ns / *dyn_ns));
  }
  // The tour's summary figure, and the lab's pictures (docs/adding_a_lab.md).
  const auto dyn_mmap = Get(results, "dynamic", "mmap_per_call");
  const auto fix_mmap = Get(results, "fixed", "mmap_per_call");
  results.SetHeadline(
      {.label = "mmap per call, dynamic vs fixed threshold",
       .value = dyn_mmap,
       .text = dyn_mmap && fix_mmap
                   ? absl::StrFormat("%.3f vs %.3f", *dyn_mmap, *fix_mmap)
                   : std::string("n/a: no system call counts (ptrace refused?)"),
       .reference = absl::StrFormat(
           "%.3f (dynamic; %d mmap in %d calls, whole process)",
           static_cast<double>(kReferenceMmap) / kReferenceCalls, kReferenceMmap,
           kReferenceCalls)});
  const std::vector<std::string> loops = {"dynamic", "fixed", "tunables"};
  results.AddPlot({.kind = alloclab::PlotKind::kBars,
                   .y = "mmap_per_call",
                   .title = "mmap per call",
                   .variants = loops});
  results.AddPlot({.kind = alloclab::PlotKind::kBars,
                   .y = "ns_per_call",
                   .title = "ns per call of the loops (median)",
                   .variants = loops});
  if (const auto m = Get(results, "fixed", "mmap_per_call"); m && *m < 0.5) {
    results.AddNote(
        "the fixed row maps almost nothing: SetMallocPolicy() ignores "
        "Fixed() (task.cc is not done yet)");
  }
  if (const auto m = Get(results, "dynamic", "mmap_per_call"); m && *m > 0.5) {
    results.AddNote(
        "the dynamic row maps on every call: something fixed the threshold "
        "(GLIBC_TUNABLES or MALLOC_*_ in your environment?)");
  }
  const auto initial = Get(results, "probe_initial", "threshold_bytes");
  const auto after = Get(results, "probe_after_256k_free", "threshold_bytes");
  if (initial && after && *after < static_cast<double>(kBlockBytes)) {
    results.AddNote(
        "probe_after_256k_free is below 256 KiB: the probe does not see "
        "the threshold move (task.cc is not done yet?)");
  }
  results.AddNote(absl::StrCat(
      "every row ran in fresh processes; loop rows: ", calls,
      " calls, first call included; ns and faults are medians of ", repetitions,
      " untraced processes, system calls come from one more, traced; the "
      "threshold column of a loop row is the probe's answer after its "
      "loop; a probe row's ns is the probe's own cost, fork included"));
}

}  // namespace
}  // namespace mmap_threshold

int main(int argc, char** argv) {
  using namespace mmap_threshold;  // NOLINT: a lab's main reads better so
  const alloclab::LabOptions options = alloclab::InitLab(
      argc, argv,
      "Lab mmap_threshold: why 1,000 allocations of 256 KiB make almost no "
      "system call.\n"
      "Usage: bazel run //labs/mmap_threshold -- [--quick] [--json=out.json]");
  const int64_t calls = absl::GetFlag(FLAGS_calls);
  if (calls < 1) {
    std::fprintf(stderr, "--calls must be at least 1, got %lld\n",
                 static_cast<long long>(calls));
    return 1;
  }
  if (const std::string loop = absl::GetFlag(FLAGS_loop); !loop.empty()) {
    return RunLoopOnly(loop, calls);
  }
  const int repetitions = options.Repetitions(3, 9);

  alloclab::Results results("mmap_threshold");
  // The machine line names the source of the table's faults, not the one
  // this process would pick (perf_event where allowed).
  alloclab::MachineInfo machine = alloclab::DescribeMachine();
  machine.faults_source = kFaultsSource;
  results.SetMachine(machine);
  results.SetInstrument("timer_overhead_ns", alloclab::TimerOverheadNs());
  results.SetInstrumentText("syscalls_source",
                            "ptrace (as strace -c counts), in a forked child");
  results.SetInstrumentText("faults_source", kFaultsSource);

  // The effect is glibc's: with another C library, or another malloc in
  // front of glibc's (LD_PRELOAD, a sanitizer), there is nothing to show.
  if (absl::StatusOr<alloclab::MallinfoSnapshot> glibc =
          alloclab::ReadMallinfo();
      !glibc.ok()) {
    results.AddNote(absl::StrCat(
        "glibc's malloc is not the one in use here (", glibc.status().message(),
        "; C library: ", results.machine().libc,
        "): its dynamic mmap threshold cannot show. musl's malloc, for one, "
        "has no such adjustment (lab musl_churn)"));
    return alloclab::FinishLab(results, options, {});
  }
  if (const char* tunables = getenv(kTunablesVariable)) {
    results.AddNote(
        absl::StrCat(kTunablesVariable, "=", tunables,
                     " is set here and reaches every variant's process"));
  }

  const LoopVariant loops[] = {
      {"dynamic", "dynamic", false},
      {"fixed", "fixed", false},
      {"tunables", "tunables", true},
  };
  for (const LoopVariant& loop : loops) {
    MeasureLoop(loop, calls, repetitions, results);
  }
  MeasureProbe("probe_initial", 0, results);
  MeasureProbe("probe_after_256k_free", kBlockBytes, results);
  MeasureProbe("probe_after_1m_free", 1 << 20, results);
  MeasureProbe("probe_after_64m_free", size_t{64} << 20, results);

  AddNotes(calls, repetitions, results);
  results.AddNote(absl::StrFormat("%s: %s (the tunables row's environment)",
                                  kTunablesVariable, TunablesValue()));

  return alloclab::FinishLab(
      results, options,
      {{"ns_per_call", "ns per call", 0},
       {"ns_mad", "± ns (MAD)", 0},
       {"mmap_per_call", "mmap per call", 3},
       {"munmap_per_call", "munmap per call", 3},
       {"brk_per_call", "brk per call", 3},
       {"page_faults_per_call", "page faults per call", 2},
       {"threshold_bytes", "threshold (bytes)", 0}});
}
