// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab mmap_threshold, the experiment: why do 1,000 allocations of 256 KiB
// make almost no system call, and what does that keep resident? Every row
// runs in fresh processes (processes.h says what each does and records);
// the whole program, started again with --loop=POLICY, is counted as
// `strace -c -f` counts it.

#include "common/harness/experiment.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_rows.h"
#include "common/harness/samples.h"
#include "common/instruments/memory.h"
#include "common/instruments/syscalls.h"
#include "labs/mmap_threshold/processes.h"
#include "labs/mmap_threshold/task.h"

ABSL_FLAG(int64_t, calls, 1000, "calls of the 256 KiB loop per process");
ABSL_FLAG(std::string, loop, "",
          "only run the loop under this policy, for `strace -c -f`: dynamic, "
          "fixed (128 KiB) or tunables (set GLIBC_TUNABLES yourself)");

namespace mmap_threshold {
namespace {

// The reference run (the allocator article, docs/references.md): `strace -c`
// of a whole Rust program that made 1,000 calls of a new 256 KiB buffer.
constexpr int kReferenceCalls = 1000, kReferenceMmap = 14, kReferenceMunmap = 3,
              kReferenceBrk = 4;

struct Loop {
  const char *name, *policy;
  bool tunables, trim;
};
constexpr Loop kLoops[] = {{"dynamic", "dynamic", false, false},
                           {"fixed", "fixed", false, false},
                           {"tunables", "tunables", true, false},
                           {"dynamic_malloc_trim", "dynamic", false, true}};
enum { kDynamic, kFixed, kTunablesRow, kTrim };
constexpr std::pair<const char*, size_t> kProbes[] = {  // bytes freed first
    {"probe_initial", 0},
    {"probe_after_256k_free", kBlockBytes},
    {"probe_after_1m_free", size_t{1} << 20},
    {"probe_after_64m_free", size_t{64} << 20}};  // above 32 MiB

// What a loop row's processes reported: counted (ptrace), timed.
using LoopRun = std::pair<alloclab::Samples, alloclab::Samples>;

// A loop row from its counted and timed processes.
void AddLoopRow(const Loop& v, int64_t calls, const LoopRun& run,
                alloclab::Results& results) {
  const auto& [counted, timed] = run;
  const double n = static_cast<double>(calls);
  alloclab::Row& row = results.AddRow(v.name).Set("calls", n);
  for (const char* name : kSyscalls) {
    row.Set(absl::StrCat(name, "_calls"), counted.Median(name))
        .Set(absl::StrCat(name, "_per_call"), counted.Median(name, n));
  }
  row.Set("ns_per_call", timed.Median("loop_ns", n))
      .Set("page_faults_per_call", timed.Median("loop_minor_faults", n));
  for (const char* key : {"threshold_bytes", "malloc_free_kib", "heap_top_kib",
                          "top_resident_kib", "trim_ns"}) {
    row.Set(key, timed.Median(key));
  }
  row.Set("ns_mad", timed.Mad("loop_ns", n));
  if (v.trim || !counted.Has("mmap")) return;  // the loop alone
  absl::StatusOr<alloclab::SyscallCounts> c =
      CountWholeProgram(v.policy, calls, v.tunables);
  if (c.ok()) {
    row.Set("process_mmap", c->mmap)
        .Set("process_munmap", c->munmap)
        .Set("process_brk", c->brk);
  }
  const auto words = [](double mmap, double munmap, double brk) {
    return absl::StrFormat("%.0f mmap, %.0f munmap, %.0f brk", mmap, munmap,
                           brk);
  };
  results.AddNote(absl::StrCat(
      v.name, ": ", calls, " calls made ",
      words(*counted.Median("mmap"), *counted.Median("munmap"),
            *counted.Median("brk")),
      "; the whole "
      "process (as strace -c -f counts it) ",
      c.ok() ? words(c->mmap, c->munmap, c->brk)
             : absl::StrCat("could not be counted: ", c.status().message())));
}

void AddNotes(const LoopRun (&runs)[4], std::optional<double> after_256k,
              int64_t calls, alloclab::Results& results) {
  results.AddNote(absl::StrFormat(
      "the reference run (the allocator article, a Rust program on glibc, "
      "strace -c of the whole process, %d calls): %d mmap, %d munmap, %d brk",
      kReferenceCalls, kReferenceMmap, kReferenceMunmap, kReferenceBrk));
  const auto& [dyn_n, dyn] = runs[kDynamic];  // counted, timed
  const auto& [fix_n, fix] = runs[kFixed];
  const auto& [trim_n, trim] = runs[kTrim];
  const auto get = [](const alloclab::Samples& s, const char* key) {
    return s.Median(key).value_or(NAN);  // NaN: no comparison holds
  };
  if (const double r = get(fix, "loop_ns") / get(dyn, "loop_ns");
      !std::isnan(r)) {
    results.AddNote(
        absl::StrFormat("fixed / dynamic: %.1fx the time per "
                        "call, measured side by side here",
                        r));
  }
  // The tour's summary figure, and the lab's pictures (docs/adding_a_lab.md).
  const double dyn_mmap = get(dyn_n, "mmap") / static_cast<double>(calls),
               fix_mmap = get(fix_n, "mmap") / static_cast<double>(calls);
  results.SetHeadline(
      {.label = "mmap per call in the loop, dynamic vs fixed threshold",
       .value = std::isnan(dyn_mmap) ? std::nullopt : std::optional(dyn_mmap),
       .text =
           std::isnan(dyn_mmap + fix_mmap)
               ? "n/a: no system call counts (ptrace refused?)"
               : absl::StrFormat("%.3f vs %.3f%s", dyn_mmap, fix_mmap,
                                 fix_mmap < 0.5 ? " (task.cc not done?)" : ""),
       // The reference run counted the whole process, start-up included,
       // where this headline counts the loop: its loop made at most that.
       .reference = absl::StrFormat(
           "at most %.3f (dynamic; %d mmap in %d calls, whole process with "
           "its start-up)",
           kReferenceMmap / double{kReferenceCalls}, kReferenceMmap,
           kReferenceCalls)});
  for (const char* y : {"mmap_per_call", "ns_per_call", "top_resident_kib"}) {
    results.AddPlot(
        {.y = y,
         .variants = {"dynamic", "fixed", "tunables", "dynamic_malloc_trim"}});
  }
  for (const auto& [off, why] :
       {std::pair{fix_mmap < 0.5,
                  "the fixed row maps almost nothing: "
                  "SetMallocPolicy() ignores Fixed()"},
        {dyn_mmap > 0.5,
         "the dynamic row maps on every call: something "
         "fixed the threshold (GLIBC_TUNABLES, MALLOC_*_?)"},
        {after_256k.value_or(kBlockBytes) < kBlockBytes,
         "probe_after_256k_free is below 256 KiB: the probe does not see the "
         "threshold move"}}) {
    if (off) results.AddNote(absl::StrCat(why, " (task.cc not done yet?)"));
  }
  // The memory side: what the raised threshold keeps, what giving it back
  // costs.
  const auto kept = [&](const alloclab::Samples& s) {
    return absl::StrFormat(
        "%.0f KiB unused (%.0f KiB of pages resident at "
        "the top of the heap)",
        get(s, "malloc_free_kib"), get(s, "top_resident_kib"));
  };
  if (const auto t = dyn.Median("threshold_bytes"); t) {
    results.AddNote(absl::StrFormat(
        "the trade: after its last free, dynamic's malloc holds %s; fixed's "
        "%s. The threshold rose to %.0f KiB and the trim threshold with it "
        "to twice that, %.0f KiB (mallopt(3)): a freed block below it stays "
        "for the next call instead of going back to the kernel",
        kept(dyn), kept(fix), *t / 1024, 2 * *t / 1024));
  }
  // Without the traced run (ptrace refused) the counts are NaN: say n/a
  // rather than print "+nan brk".
  const double brk = get(trim_n, "brk") - get(dyn_n, "brk"),
               madvise = get(trim_n, "madvise") - get(dyn_n, "madvise"),
               saved = get(fix_n, "mmap") + get(fix_n, "munmap") -
                       get(dyn_n, "mmap") - get(dyn_n, "munmap");
  results.AddNote(absl::StrFormat(
      "malloc_trim(0) after the dynamic loop leaves %s, for %.0f ns and %s",
      kept(trim), get(trim, "trim_ns"),
      std::isnan(brk + madvise + saved)
          ? std::string("n/a system calls (no system call counts: ptrace "
                        "refused?)")
          : absl::StrFormat("%+.0f brk, %+.0f madvise; the dynamic loop "
                            "saved %.0f mmap+munmap against fixed",
                            brk, madvise, saved)));
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  return {.lab = "mmap_threshold",
          .usage =
              "Lab mmap_threshold: why 1,000 allocations of 256 KiB make "
              "almost no system call, and what that keeps resident.",
          .columns = {{"ns_per_call", 0},
                      {"ns_mad", 0},
                      {"mmap_per_call", 3},
                      {"munmap_per_call", 3},
                      {"brk_per_call", 3},
                      {"page_faults_per_call", 2},
                      {"threshold_bytes", 0},
                      {"malloc_free_kib", "unused KiB", 0},
                      {"top_resident_kib", "top resident KiB", 0}},
          .check_flags =
              [](const alloclab::LabOptions&) {
                return alloclab::CheckRange("calls", absl::GetFlag(FLAGS_calls),
                                            1);
              },
          // --loop=POLICY: the loop alone, for `strace -c -f`.
          .instead = [](const alloclab::LabOptions&) -> std::optional<int> {
            const std::string policy = absl::GetFlag(FLAGS_loop);
            if (policy.empty()) return std::nullopt;
            return RunLoopOnly(policy, absl::GetFlag(FLAGS_calls));
          },
          .faults_from = "getrusage(RUSAGE_THREAD) in the fresh process"};
}

absl::Status Experiment(alloclab::Lab& lab) {
  const int64_t calls = absl::GetFlag(FLAGS_calls);
  const int repetitions = lab.options().Repetitions(3, 9);
  alloclab::Results& results = lab.results();
  results.SetInstrumentText("syscalls_source", "ptrace, as strace -c counts");
  // The effect is glibc's malloc's: musl's or a sanitizer's has none.
  if (auto glibc = alloclab::ReadMallinfo(); !glibc.ok()) {
    results.AddNote(
        absl::StrCat("nothing to show: ", glibc.status().message()));
    lab.SetColumns({});
    return absl::OkStatus();
  }
  if (const char* t = getenv(kTunables)) {
    results.AddNote(
        absl::StrCat(kTunables, "=", t, " is set: every row has it"));
  }
  // Counted once under ptrace, timed untraced, the loops in turn; a policy
  // the learner's code refuses is the table's content, not the run's end.
  const auto loops = [&](const char* mode) {
    std::vector<alloclab::FreshVariant> list;
    for (const Loop& v : kLoops) {
      list.push_back(
          {v.name, "mmap_threshold_loop",
           absl::StrCat(v.policy, " ", mode, " ", calls, " ", v.trim ? 1 : 0)});
      if (v.tunables) list.back().env = {{kTunables, TunablesValue()}};
    }
    return list;
  };
  auto c = alloclab::RunFreshInterleaved(loops("count"), 1);
  auto t = alloclab::RunFreshInterleaved(loops("time"), repetitions);
  LoopRun runs[4];
  for (int i : {kDynamic, kFixed, kTunablesRow, kTrim}) {
    runs[i] = {alloclab::SamplesOrNote(c[i], results),
               alloclab::SamplesOrNote(t[i], results)};
    AddLoopRow(kLoops[i], calls, runs[i], results);
  }
  std::optional<double> probed[4];
  for (int i = 0; i < 4; ++i) {
    const auto& [name, freed] = kProbes[i];
    const alloclab::Samples r = alloclab::SamplesOrNote(
        alloclab::RunFreshCalls(name, "mmap_threshold_probe", 1,
                                absl::StrCat(freed)),
        results);
    probed[i] = r.Median("threshold_bytes");
    results.AddRow(name)
        .Set("freed_bytes", freed)
        .Set("ns_per_call", r.Median("probe_ns"))
        .Set("threshold_bytes", probed[i]);
  }
  AddNotes(runs, probed[1], calls, results);
  results.AddNote(absl::StrCat(
      "loop rows: ", calls,
      " calls, first call included; ns, faults, memory: "
      "medians of ",
      repetitions,
      " fresh processes, the loops in turn; system "
      "calls: one more, traced; unused: mallinfo2's free bytes; top resident: "
      "its top chunk's pages that mincore(2) finds resident; tunables: ",
      kTunables, "=", TunablesValue()));
  return absl::OkStatus();
}

}  // namespace
}  // namespace mmap_threshold

ALLOCLAB_EXPERIMENT_MAIN(mmap_threshold::Spec, mmap_threshold::Experiment)
