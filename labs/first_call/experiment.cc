// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab first_call, the experiment: why does the first call in a fresh process
// cost more than every later one, and can a program pay that cost before it
// matters? The call is always Work() on a 256 KiB buffer (baseline.h):
//
//   cold_first_call        the first Work() on memory only mapped
//   warm                   Work() again and again: what a benchmark shows
//   prefault_cost          your PrepareBuffer() at start-up
//   prefaulted_first_call  the first Work() right after it
//   hugepage_first_call    the first Work() on memory advised MADV_HUGEPAGE
//
// Fresh-process rows (processes.h: what each process runs) give the median,
// minimum and maximum over N processes, taken in turn
// (common/harness/experiment.h). Page faults come from getrusage(RUSAGE_THREAD)
// everywhere: perf's event misses faults taken inside a system call.

#include "common/harness/experiment.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process_flag.h"
#include "common/harness/fresh_rows.h"
#include "common/harness/measure_interleaved.h"
#include "common/harness/samples.h"
#include "common/harness/variant_error.h"
#include "common/machine/vm_facts.h"
#include "labs/first_call/processes.h"
#include "labs/first_call/task.h"

namespace first_call {
namespace {

// The reference run (the allocator article, docs/references.md): a new
// 256 KiB vector filled in fresh processes pinned to one core of a 4-core
// desktop; the first call took 324076, 100000 and 114000 ns in three runs,
// 68 page faults each time; every later call about 66 µs.
constexpr double kReferenceFirstCallNs[] = {324076, 100000, 114000};
constexpr double kReferenceSteadyNs = 66000;
constexpr int kReferenceFirstCallFaults = 68;

volatile uint64_t g_sink;  // keeps Work()'s result observable

// The huge page size when one can hold the buffer here, else why not.
absl::StatusOr<size_t> HugePageBytes() {
  absl::StatusOr<alloclab::ThpSettings> thp = alloclab::ReadThpSettings();
  if (!thp.ok()) return thp.status();
  if (!thp->PmdEnabled()) {  // the PMD size's own control, on 6.8+
    return absl::UnavailableError(
        absl::StrCat("huge pages are off here: ", alloclab::DescribeThp(thp)));
  }
  if (thp->pmd_bytes < kBufferBytes || thp->pmd_bytes > (size_t{1} << 30)) {
    return absl::UnavailableError(
        absl::StrFormat("a %d KiB huge page cannot hold the %d KiB buffer",
                        thp->pmd_bytes / 1024, kBufferBytes / 1024));
  }
  return thp->pmd_bytes;
}

// The hugepage_first_call row from its processes (`huge`: the huge page
// size, or why there is none); returns the note that says what it means.
absl::StatusOr<std::string> AddHugePageRow(
    const absl::StatusOr<size_t>& huge,
    const absl::StatusOr<alloclab::Samples>& s, alloclab::Results& results) {
  const char* kRow = "hugepage_first_call";
  if (!huge.ok()) {
    results.AddRow(kRow)
        .Set("ns_per_call", std::nullopt)
        .SetText("method", "n/a (see note)");
    return absl::StrCat(kRow, " not measured: ", huge.status().message());
  }
  if (!s.ok()) return s.status();
  absl::StatusOr<alloclab::FreshRow> row =
      alloclab::AddFreshRow(kRow, "first_call", *s, results);
  if (!row.ok()) return row.status();
  row->row->SetText("method", "MADV_HUGEPAGE");
  const double huge_kib = static_cast<double>(*huge) / 1024;
  absl::StatusOr<alloclab::Summary> got = s->Summarize("anon_huge_kib");
  if (!got.ok()) return absl::StrCat(kRow, ": smaps did not say");
  if (got->min >= huge_kib) {
    return absl::StrFormat(
        "%s: the buffer lay in one %.0f KiB huge page in every process, so "
        "one fault mapped all of it; but that fault zeroed %.0fx the buffer",
        kRow, huge_kib, huge_kib * 1024 / kBufferBytes);
  }
  return absl::StrFormat(
      "%s: in %s of %d processes the kernel gave base pages despite "
      "MADV_HUGEPAGE (no free %.0f KiB page at fault time?)",
      kRow, got->max >= huge_kib ? "some" : "all", s->runs(), huge_kib);
}

// WarmRow()
//
// The `warm` row: Work() on a buffer it has written before, `calls` calls
// a batch, in `repetitions` batches.
absl::StatusOr<alloclab::VariantSummary> WarmRow(alloclab::Lab& lab,
                                                 int repetitions,
                                                 int64_t calls) {
  absl::StatusOr<absl::Span<uint8_t>> buffer = MapBuffer(kBufferBytes);
  if (!buffer.ok()) return alloclab::VariantError("warm", buffer.status());
  uint64_t seed = 1;
  absl::StatusOr<std::vector<alloclab::VariantSummary>> warm =
      alloclab::MeasureInterleaved(
          {{"warm", calls,
            [&](int64_t n) {
              for (int64_t i = 0; i < n; ++i) g_sink = Work(seed++, *buffer);
            }}},
          {.repetitions = repetitions, .faults = &lab.faults()});
  UnmapBuffer(*buffer);
  if (!warm.ok()) return warm.status();
  const alloclab::VariantSummary& w = (*warm)[0];
  alloclab::AddSummaryRow(w, lab.results())
      .Set("ns_max", w.ns.max)
      .SetText("measured",
               absl::StrCat(repetitions, " batches of ", calls, " calls"))
      .SetText("method", "none (written before)");
  return w;
}

// MethodsUsed()
//
// The prefault methods PrepareBuffer() used in the prefaulted processes,
// each once, in the order met: "madvise/touch".
std::string MethodsUsed(const alloclab::Samples& prefaulted) {
  std::string method;
  for (double code : prefaulted.Values("method")) {
    const std::string name(
        PrefaultMethodName(static_cast<PrefaultMethod>(code)));
    if (!absl::StrContains(method, name)) {
      absl::StrAppend(&method, method.empty() ? "" : "/", name);
    }
  }
  return method;
}

// PrefaultNote()
//
// What preparing the buffer did: nothing (task.cc not done), not enough
// (the first call still faulted), or moved the faults to start-up.
std::string PrefaultNote(absl::string_view method,
                         const alloclab::FreshRow& cost,
                         const alloclab::FreshRow& prefaulted, double cold_ns) {
  if (method == "none") {
    return "PrepareBuffer() prepared nothing (method none): task.cc is not "
           "done yet, so prefaulted_first_call pays the faults of "
           "cold_first_call";
  }
  if (prefaulted.page_faults.median > 1) {
    return absl::StrFormat(
        "PrepareBuffer() says %s, yet the first call still took %.0f page "
        "faults: not every page was made present for writing",
        method, prefaulted.page_faults.median);
  }
  return absl::StrFormat(
      "with the buffer prepared (%s): start-up %.0f ns + first call %.0f "
      "ns, against %.0f ns for the cold first call: the faults moved to "
      "start-up, where no request waits for them",
      method, cost.ns.median, prefaulted.ns.median, cold_ns);
}

// ColdFaultsNote()
//
// The cold first call's page faults against the buffer's pages: one each,
// more (code and stack), or fewer (something made them present).
std::string ColdFaultsNote(double cold_faults) {
  const double pages = static_cast<double>(PagesIn(kBufferBytes));
  return absl::StrFormat(
      cold_faults >= pages
          ? (cold_faults > pages
                 ? "cold_first_call: %.0f page faults, %.0f of them for the "
                   "buffer (%.0f-byte pages); the rest are code and stack used "
                   "for the first time"
                 : "cold_first_call: %.0f page faults, one for each of the "
                   "buffer's %.0f pages of %.0f bytes")
          : "cold_first_call: only %.0f page faults for %.0f pages of %.0f "
            "bytes: something else made the buffer's pages present (huge "
            "pages set to always?)",
      cold_faults, pages, static_cast<double>(PageBytes()));
}

// AddFirstCallNotes()
//
// The numbers to take away: this run's in one line above the table, then
// the first call against a later one, here and in the reference run.
void AddFirstCallNotes(alloclab::Lab& lab, const alloclab::FreshRow& cold,
                       const alloclab::VariantSummary& warm, int processes) {
  const double cold_ns = cold.ns.median, warm_ns = warm.ns.median;
  lab.PrintAboveTable(absl::StrFormat(
      "first call of Work() on %zu KiB in a fresh process: %.0f ns (median of "
      "%d; min %.0f, max %.0f), %.0f page faults; later calls: %.0f ns, %.2f "
      "page faults per call",
      kBufferBytes / 1024, cold_ns, processes, cold.ns.min, cold.ns.max,
      cold.page_faults.median, warm_ns, warm.page_faults_per_call.value_or(0)));
  lab.results().AddNote(absl::StrFormat(
      "first call / later call: %.1fx here (median; %.1fx to %.1fx over the "
      "processes); the reference run: %.1fx to %.1fx (first call %.0f, %.0f "
      "and %.0f ns against about %.0f ns, %d page faults)",
      cold_ns / warm_ns, cold.ns.min / warm_ns, cold.ns.max / warm_ns,
      kReferenceFirstCallNs[1] / kReferenceSteadyNs,
      kReferenceFirstCallNs[0] / kReferenceSteadyNs, kReferenceFirstCallNs[0],
      kReferenceFirstCallNs[1], kReferenceFirstCallNs[2], kReferenceSteadyNs,
      kReferenceFirstCallFaults));
  lab.results().AddNote(
      "a warm benchmark shows the `warm` row; a command-line tool that fills "
      "one buffer and exits pays `cold_first_call`");
}

// SetHeadlineAndPlots()
//
// The tour's summary figure, and the lab's pictures (docs/adding_a_lab.md).
void SetHeadlineAndPlots(double cold_faults, double first_over_later,
                         alloclab::Results& results) {
  results.SetHeadline(
      {.label = "first call: page faults, and time against a later call",
       .value = cold_faults,
       .text =
           absl::StrFormat("%.0f faults, %.1fx", cold_faults, first_over_later),
       .reference =
           absl::StrFormat("%d faults, %.1fx-%.1fx", kReferenceFirstCallFaults,
                           kReferenceFirstCallNs[1] / kReferenceSteadyNs,
                           kReferenceFirstCallNs[0] / kReferenceSteadyNs)});
  results.AddPlot(
      {.y = "page_faults_per_call", .title = "page faults per call"});
  results.AddPlot(
      {.y = "ns_per_call", .title = "ns per call (median)", .log_y = true});
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  return {.lab = "first_call",
          .usage =
              "Lab first_call: why the first call in a fresh process "
              "costs more, and how to pay for it at start-up.",
          .columns = {{"ns_per_call", "ns (median)", 0},
                      {"ns_min", 0},
                      {"ns_max", 0},
                      {"page_faults_per_call", 2},
                      {"method", "prefault method", 0},
                      {"measured", "measured over", 0}},
          // getrusage, not perf_event: the faults that MADV_POPULATE_WRITE and
          // MAP_POPULATE take on the program's behalf count in getrusage only.
          .fault_source = alloclab::FaultSource::kGetrusage};
}

absl::Status Experiment(alloclab::Lab& lab) {
  alloclab::Results& results = lab.results();
  const int repetitions = lab.options().Repetitions(5, 15);
  const int processes = alloclab::FreshProcesses(lab.options(), 5, 15);

  // The fresh-process rows, their processes taken in turn.
  const absl::StatusOr<size_t> huge = HugePageBytes();
  std::vector<alloclab::FreshVariant> fresh = {
      {"cold_first_call", "first_call_cold"},
      {"prefaulted_first_call", "first_call_prefaulted"}};
  if (huge.ok()) {
    fresh.push_back(
        {"hugepage_first_call", "first_call_hugepage", absl::StrCat(*huge)});
  }
  std::vector<absl::StatusOr<alloclab::Samples>> s =
      alloclab::RunFreshInterleaved(fresh, processes);
  const absl::StatusOr<alloclab::Samples>&cold = s[0], &pre = s[1];
  if (!cold.ok()) return cold.status();
  if (!pre.ok()) return pre.status();
  absl::StatusOr<alloclab::FreshRow> c =
      alloclab::AddFreshRow("cold_first_call", "first_call", *cold, results);
  if (!c.ok()) return c.status();
  c->row->SetText("method", "none (mapped only)");

  absl::StatusOr<alloclab::VariantSummary> w =
      WarmRow(lab, repetitions, lab.options().quick ? 20 : 100);
  if (!w.ok()) return w.status();

  const std::string method = MethodsUsed(*pre);
  absl::StatusOr<alloclab::FreshRow> cost =
      alloclab::AddFreshRow("prefault_cost", "prefault", *pre, results);
  if (!cost.ok()) return cost.status();
  cost->row->SetText("method", method);
  absl::StatusOr<alloclab::FreshRow> p = alloclab::AddFreshRow(
      "prefaulted_first_call", "first_call", *pre, results);
  if (!p.ok()) return p.status();
  p->row->SetText("method", method);

  absl::StatusOr<std::string> hugepage_note = AddHugePageRow(
      huge, huge.ok() ? s[2] : absl::StatusOr<alloclab::Samples>(), results);
  if (!hugepage_note.ok()) return hugepage_note.status();

  AddFirstCallNotes(lab, *c, *w, processes);
  results.AddNote(PrefaultNote(method, *cost, *p, c->ns.median));
  results.AddNote(ColdFaultsNote(c->page_faults.median));
  results.AddNote(*hugepage_note);
  SetHeadlineAndPlots(c->page_faults.median, c->ns.median / w->ns.median,
                      results);
  results.AddNote(
      "faults come from getrusage: perf's page-fault event "
      "misses those MADV_POPULATE_WRITE and MAP_POPULATE take");
  return absl::OkStatus();
}

}  // namespace
}  // namespace first_call

ALLOCLAB_EXPERIMENT_MAIN(first_call::Spec, first_call::Experiment)
