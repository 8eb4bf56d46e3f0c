// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab first_call, the experiment: why does the first call in a fresh process
// cost more than every later one, and can a program pay that cost before it
// matters?
//
// The call is always Work() on a 256 KiB buffer (baseline.h). Five rows:
//
//   cold_first_call        the first Work() in a fresh process, on memory
//                          that was only mapped: one fault per page
//   warm                   Work() on the same buffer again and again, after
//                          one call that is not counted: what a benchmark
//                          with a warm-up shows
//   prefault_cost          your PrepareBuffer() at start-up, in a fresh
//                          process: the faults, paid ahead of time
//   prefaulted_first_call  the first Work() right after it, same process
//   hugepage_first_call    the first Work() on memory advised MADV_HUGEPAGE,
//                          where transparent huge pages are on
//
// Fresh-process rows give the median, minimum and maximum over N processes;
// each process runs only its call (common/fresh_process.h). Page faults come
// from getrusage(RUSAGE_THREAD) everywhere (see the note it prints).

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/clock.h"
#include "common/faults.h"
#include "common/fresh_process.h"
#include "common/fresh_process_flag.h"
#include "common/lab_main.h"
#include "common/report.h"
#include "common/stats.h"
#include "labs/first_call/task.h"

namespace first_call {
namespace {

// The reference run (the allocator article, docs/references.md: a 256 KiB
// buffer filled in a new vector, three
// runs, each a fresh process pinned to one core of a 4-core desktop). The
// first call took 324076 ns in run 1 and 100 and 114 µs in runs 2 and 3,
// with 68 page faults each time; every later call took about 66 µs.
constexpr double kReferenceFirstCallNs[] = {324076, 100000, 114000};
constexpr double kReferenceSteadyNs = 66000;
constexpr int kReferenceFirstCallFaults = 68;

constexpr char kThpEnabled[] = "/sys/kernel/mm/transparent_hugepage/enabled";
constexpr char kThpDefrag[] = "/sys/kernel/mm/transparent_hugepage/defrag";
constexpr char kThpSize[] =
    "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size";

// Keeps Work()'s result observable.
volatile uint64_t g_sink;

// ---------------------------------------------------------------------------
// The fresh calls: each runs in a new copy of this program.

// A program that maps its buffer and calls Work() with nothing prepared.
void ColdFirstCall(alloclab::FreshCall& call) {
  absl::StatusOr<absl::Span<uint8_t>> buffer = MapBuffer(kBufferBytes);
  if (!buffer.ok()) {
    call.Fail(buffer.status().ToString());
    return;
  }
  call.Measure("first_call", [&] { g_sink = Work(1, *buffer); });
  UnmapBuffer(*buffer);
}
ALLOCLAB_FRESH_CALL("first_call_cold", ColdFirstCall);

// A program that prepares its buffer at start-up with the task, then calls.
void PrefaultedFirstCall(alloclab::FreshCall& call) {
  absl::StatusOr<PreparedBuffer> buffer =
      absl::UnknownError("PrepareBuffer() did not run");
  call.Measure("prefault", [&] { buffer = PrepareBuffer(kBufferBytes); });
  if (!buffer.ok()) {
    call.Fail(absl::StrCat("PrepareBuffer(", kBufferBytes,
                           "): ", buffer.status().ToString()));
    return;
  }
  if (buffer->memory.size() != kBufferBytes) {
    call.Fail(absl::StrCat("PrepareBuffer(", kBufferBytes, ") returned ",
                           buffer->memory.size(), " bytes"));
    return;
  }
  call.Record("method", static_cast<double>(buffer->method));
  call.Measure("first_call", [&] { g_sink = Work(1, buffer->memory); });
  ReleaseBuffer(*buffer);
}
ALLOCLAB_FRESH_CALL("first_call_prefaulted", PrefaultedFirstCall);

// The AnonHugePages of the mapping that holds `address`, from
// /proc/self/smaps; nullopt when the kernel does not say.
std::optional<double> AnonHugeKib(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t target = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    // A mapping starts with "start-end perms ...", both in hex.
    std::vector<absl::string_view> range =
        absl::StrSplit(absl::string_view(line).substr(0, line.find(' ')), '-');
    uint64_t start = 0, end = 0;
    if (range.size() == 2 && absl::SimpleHexAtoi(range[0], &start) &&
        absl::SimpleHexAtoi(range[1], &end)) {
      inside = start <= target && target < end;
      continue;
    }
    absl::string_view rest = line;
    if (inside && absl::ConsumePrefix(&rest, "AnonHugePages:")) {
      rest = absl::StripAsciiWhitespace(rest);
      absl::ConsumeSuffix(&rest, "kB");
      double kib = 0;
      if (absl::SimpleAtod(absl::StripAsciiWhitespace(rest), &kib)) return kib;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// A program whose buffer lies in memory advised MADV_HUGEPAGE. The argument
// is the huge page size in bytes. The mapping is trimmed to exactly one
// aligned huge page, so that the kernel can back it with one.
void HugePageFirstCall(alloclab::FreshCall& call) {
  size_t huge = 0;
  if (!absl::SimpleAtoi(call.arg(), &huge) || huge < kBufferBytes ||
      (huge & (huge - 1)) != 0) {
    call.Fail(absl::StrCat("bad huge page size '", call.arg(), "'"));
    return;
  }
  void* const mapped = mmap(nullptr, 2 * huge, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    call.Fail(absl::StrCat("mmap of ", 2 * huge, " bytes failed"));
    return;
  }
  uint8_t* const base = static_cast<uint8_t*>(mapped);
  uint8_t* const aligned = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(base) + huge - 1) & ~(huge - 1));
  if (aligned > base) munmap(base, static_cast<size_t>(aligned - base));
  if (aligned + huge < base + 2 * huge) {
    munmap(aligned + huge,
           static_cast<size_t>(base + 2 * huge - aligned - huge));
  }
  if (madvise(aligned, huge, MADV_HUGEPAGE) != 0) {
    call.Fail("madvise(MADV_HUGEPAGE) refused");
    munmap(aligned, huge);
    return;
  }
  const absl::Span<uint8_t> buffer = absl::MakeSpan(aligned, kBufferBytes);
  call.Measure("first_call", [&] { g_sink = Work(1, buffer); });
  if (std::optional<double> kib = AnonHugeKib(aligned)) {
    call.Record("anon_huge_kib", *kib);
  }
  munmap(aligned, huge);
}
ALLOCLAB_FRESH_CALL("first_call_hugepage", HugePageFirstCall);

// ---------------------------------------------------------------------------
// The parent's side.

// What N fresh processes of one call reported, key by key.
using Samples = std::map<std::string, std::vector<double>>;

absl::StatusOr<Samples> RunFresh(absl::string_view name, int processes,
                                 absl::string_view arg = "") {
  Samples samples;
  for (int i = 0; i < processes; ++i) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        alloclab::RunFreshCall(name, arg);
    if (!r.ok()) return r.status();
    for (const auto& [key, value] : r->values) samples[key].push_back(value);
  }
  return samples;
}

// A row from the "<label>_ns" and "<label>_minor_faults" of fresh processes.
alloclab::Row& AddFreshRow(absl::string_view variant, absl::string_view label,
                           const Samples& samples, int processes,
                           alloclab::Results& results) {
  alloclab::Row& row = results.AddRow(variant);
  const auto ns = samples.find(absl::StrCat(label, "_ns"));
  const auto faults = samples.find(absl::StrCat(label, "_minor_faults"));
  const auto major = samples.find(absl::StrCat(label, "_major_faults"));
  if (ns == samples.end() || faults == samples.end()) {
    row.Set("ns_per_call", std::nullopt)
        .Set("page_faults_per_call", std::nullopt);
    return row;
  }
  const alloclab::Summary t = alloclab::Summarize(ns->second);
  const alloclab::Summary f = alloclab::Summarize(faults->second);
  row.Set("ns_per_call", t.median)
      .Set("ns_min", t.min)
      .Set("ns_max", t.max)
      .Set("page_faults_per_call", f.median)
      .Set("page_faults_min", f.min)
      .Set("page_faults_max", f.max)
      .Set("processes", processes)
      .SetText("measured", absl::StrCat(processes, " fresh processes"));
  if (major != samples.end()) {
    row.Set("major_faults_per_call", alloclab::Summarize(major->second).median);
  }
  return row;
}

// The steady state, in this process: batches of calls on one buffer.
absl::Status MeasureWarm(int repetitions, int64_t calls,
                         const alloclab::FaultCounter& faults,
                         alloclab::Results& results) {
  absl::StatusOr<absl::Span<uint8_t>> buffer = MapBuffer(kBufferBytes);
  if (!buffer.ok()) return buffer.status();
  g_sink = Work(0, *buffer);  // the first call: not part of this row

  std::vector<double> ns_per_call;
  int64_t minor_faults = 0;
  uint64_t seed = 1;
  for (int rep = 0; rep < repetitions; ++rep) {
    absl::StatusOr<alloclab::FaultCounts> before = faults.Read();
    const int64_t ns = alloclab::TimeNs([&] {
      for (int64_t i = 0; i < calls; ++i) g_sink = Work(seed++, *buffer);
    });
    absl::StatusOr<alloclab::FaultCounts> after = faults.Read();
    if (!before.ok() || !after.ok()) {
      UnmapBuffer(*buffer);
      return before.ok() ? after.status() : before.status();
    }
    minor_faults += (*after - *before).minor;
    ns_per_call.push_back(static_cast<double>(ns) / static_cast<double>(calls));
  }
  UnmapBuffer(*buffer);

  const alloclab::Summary s = alloclab::Summarize(ns_per_call);
  results.AddRow("warm")
      .Set("ns_per_call", s.median)
      .Set("ns_min", s.min)
      .Set("ns_max", s.max)
      .Set("ns_mad", s.mad)
      .Set("page_faults_per_call", static_cast<double>(minor_faults) /
                                       static_cast<double>(calls * repetitions))
      .Set("calls", static_cast<double>(calls * repetitions))
      .SetText("measured",
               absl::StrCat(repetitions, " batches of ", calls, " calls"))
      .SetText("method", "none (written before)");
  return absl::OkStatus();
}

// The bracketed word of a /sys setting such as "always [madvise] never".
std::string SelectedWord(const std::string& setting) {
  const size_t open = setting.find('[');
  const size_t close = setting.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  return setting.substr(open + 1, close - open - 1);
}

std::string ReadFirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Whether one transparent huge page can hold the buffer here.
struct HugePageSupport {
  size_t huge_bytes = 0;  // the huge page size, when it can
  std::string column;     // when it cannot: a few words for the table,
  std::string reason;     // and the whole reason for the note
};

HugePageSupport CheckHugePages() {
  HugePageSupport support;
  const std::string enabled = ReadFirstLine(kThpEnabled);
  const std::string mode = SelectedWord(enabled);
  if (enabled.empty()) {
    support.reason = absl::StrCat("this kernel has no transparent huge pages (",
                                  kThpEnabled, " is missing or empty)");
  } else if (mode == "never") {
    support.reason = absl::StrCat("transparent huge pages are off here (",
                                  kThpEnabled, ": ", enabled, ")");
  } else if (mode != "always" && mode != "madvise") {
    support.reason = absl::StrCat("unknown transparent huge page mode in ",
                                  kThpEnabled, ": ", enabled);
  }
  if (!support.reason.empty()) {
    support.column = "n/a: no THP";
    return support;
  }
  const std::string size = ReadFirstLine(kThpSize);
  size_t huge = 0;
  if (!absl::SimpleAtoi(size, &huge) || huge == 0 || (huge & (huge - 1)) != 0 ||
      huge > (size_t{1} << 30)) {
    support.column = "n/a: huge page size?";
    support.reason = absl::StrCat("cannot use the huge page size in ", kThpSize,
                                  ": '", size, "'");
    return support;
  }
  if (huge < kBufferBytes) {
    support.column = "n/a: buffer > huge page";
    support.reason = absl::StrFormat(
        "buffer larger than one huge page (%d KiB buffer, %d KiB huge pages)",
        kBufferBytes / 1024, huge / 1024);
    return support;
  }
  support.huge_bytes = huge;
  return support;
}

// Adds the hugepage_first_call row; `note` gets what the row means.
absl::Status MeasureHugePage(int processes, alloclab::Results& results,
                             std::string& note) {
  const HugePageSupport support = CheckHugePages();
  if (!support.reason.empty()) {
    results.AddRow("hugepage_first_call")
        .Set("ns_per_call", std::nullopt)
        .Set("page_faults_per_call", std::nullopt)
        .SetText("method", support.column);
    note = absl::StrCat("hugepage_first_call not measured: ", support.reason);
    return absl::OkStatus();
  }
  const size_t huge_bytes = support.huge_bytes;
  absl::StatusOr<Samples> samples =
      RunFresh("first_call_hugepage", processes, absl::StrCat(huge_bytes));
  if (!samples.ok()) return samples.status();
  AddFreshRow("hugepage_first_call", "first_call", *samples, processes, results)
      .SetText("method", "MADV_HUGEPAGE");

  const auto kib = samples->find("anon_huge_kib");
  const double huge_kib = static_cast<double>(huge_bytes) / 1024;
  if (kib == samples->end()) {
    note =
        "hugepage_first_call: /proc/self/smaps did not say whether the "
        "buffer got a huge page";
    return absl::OkStatus();
  }
  const alloclab::Summary got = alloclab::Summarize(kib->second);
  if (got.min >= huge_kib) {
    note = absl::StrFormat(
        "hugepage_first_call: the buffer lay in one %.0f KiB huge page in "
        "every process, so one fault mapped all of it; but that fault zeroed "
        "%.0f KiB, %.0fx the buffer",
        huge_kib, huge_kib, huge_kib * 1024 / kBufferBytes);
  } else {
    note = absl::StrFormat(
        "hugepage_first_call: in %s of %d processes the kernel gave base "
        "pages despite MADV_HUGEPAGE (no free %.0f KiB page at fault time; "
        "defrag setting: %s)",
        got.max >= huge_kib ? "some" : "all", processes, huge_kib,
        ReadFirstLine(kThpDefrag));
  }
  return absl::OkStatus();
}

std::string Method(const std::vector<double>& codes) {
  std::string names;
  for (double code : codes) {
    const std::string name(PrefaultMethodName(
        static_cast<PrefaultMethod>(static_cast<int>(code))));
    if (!absl::StrContains(names, name)) {
      absl::StrAppend(&names, names.empty() ? "" : "/", name);
    }
  }
  return names;
}

}  // namespace
}  // namespace first_call

int main(int argc, char** argv) {
  using namespace first_call;  // NOLINT: a lab's main reads better so
  const alloclab::LabOptions options = alloclab::InitLab(
      argc, argv,
      "Lab first_call: why the first call in a fresh process costs more, and "
      "how to pay for it at start-up.\n"
      "Usage: bazel run //labs/first_call -- [--quick] [--json=out.json]");
  const int repetitions = options.Repetitions(5, 15);
  const int processes = alloclab::FreshProcesses(options, 5, 15);
  const int64_t warm_calls = options.quick ? 20 : 100;

  alloclab::Results results("first_call");
  alloclab::MachineInfo machine = alloclab::DescribeMachine();
  results.SetInstrument("timer_overhead_ns", alloclab::TimerOverheadNs());
  results.SetInstrument("page_bytes", static_cast<double>(PageBytes()));

  // getrusage, not perf_event: the faults that MADV_POPULATE_WRITE and
  // MAP_POPULATE take on the program's behalf count in getrusage only.
  absl::StatusOr<alloclab::FaultCounter> faults =
      alloclab::FaultCounter::Create(alloclab::FaultScope::kThread,
                                     alloclab::FaultSource::kGetrusage);
  if (!faults.ok()) {
    std::fprintf(stderr, "page-fault counter: %s\n",
                 faults.status().ToString().c_str());
    return 1;
  }
  results.SetInstrumentText("faults_source", faults->source());
  machine.faults_source = std::string(faults->source());
  results.SetMachine(machine);

  // cold_first_call
  absl::StatusOr<Samples> cold = RunFresh("first_call_cold", processes);
  if (!cold.ok()) {
    std::fprintf(stderr, "cold_first_call: %s\n",
                 cold.status().ToString().c_str());
    return 1;
  }
  AddFreshRow("cold_first_call", "first_call", *cold, processes, results)
      .SetText("method", "none (mapped only)");

  // warm
  if (absl::Status s = MeasureWarm(repetitions, warm_calls, *faults, results);
      !s.ok()) {
    std::fprintf(stderr, "warm: %s\n", s.ToString().c_str());
    return 1;
  }

  // prefault_cost and prefaulted_first_call
  absl::StatusOr<Samples> prefaulted =
      RunFresh("first_call_prefaulted", processes);
  if (!prefaulted.ok()) {
    std::fprintf(stderr, "prefaulted_first_call: %s\n",
                 prefaulted.status().ToString().c_str());
    return 1;
  }
  const std::string method = Method((*prefaulted)["method"]);
  AddFreshRow("prefault_cost", "prefault", *prefaulted, processes, results)
      .SetText("method", method);
  AddFreshRow("prefaulted_first_call", "first_call", *prefaulted, processes,
              results)
      .SetText("method", method);

  // hugepage_first_call
  std::string hugepage_note;
  if (absl::Status s = MeasureHugePage(processes, results, hugepage_note);
      !s.ok()) {
    std::fprintf(stderr, "hugepage_first_call: %s\n", s.ToString().c_str());
    return 1;
  }

  // The numbers to take away, first the reference run's line.
  const alloclab::Row& cold_row = *results.FindRow("cold_first_call");
  const alloclab::Row& warm_row = *results.FindRow("warm");
  const alloclab::Row& prefault_row = *results.FindRow("prefault_cost");
  const alloclab::Row& prefaulted_row =
      *results.FindRow("prefaulted_first_call");
  const double cold_ns = *cold_row.Get("ns_per_call");
  const double warm_ns = *warm_row.Get("ns_per_call");
  std::printf(
      "first call of Work() on %zu KiB in a fresh process: %.0f ns (median of "
      "%d; min %.0f, max %.0f), %.0f page faults; later calls: %.0f ns, %.2f "
      "page faults per call\n",
      kBufferBytes / 1024, cold_ns, processes, *cold_row.Get("ns_min"),
      *cold_row.Get("ns_max"), *cold_row.Get("page_faults_per_call"), warm_ns,
      *warm_row.Get("page_faults_per_call"));

  results.AddNote(absl::StrFormat(
      "first call / later call: %.1fx here (median; %.1fx to %.1fx over the "
      "processes); the reference run: %.1fx to %.1fx (first call %.0f, %.0f "
      "and %.0f ns against about %.0f ns, %d page faults)",
      cold_ns / warm_ns, *cold_row.Get("ns_min") / warm_ns,
      *cold_row.Get("ns_max") / warm_ns,
      kReferenceFirstCallNs[1] / kReferenceSteadyNs,
      kReferenceFirstCallNs[0] / kReferenceSteadyNs, kReferenceFirstCallNs[0],
      kReferenceFirstCallNs[1], kReferenceFirstCallNs[2], kReferenceSteadyNs,
      kReferenceFirstCallFaults));
  results.AddNote(
      "a warm benchmark shows the `warm` row; a command-line tool that fills "
      "one buffer and exits pays `cold_first_call`");

  const double pages = static_cast<double>(PagesIn(kBufferBytes));
  const double prefaulted_faults = *prefaulted_row.Get("page_faults_per_call");
  if (method == "none") {
    results.AddNote(
        "PrepareBuffer() prepared nothing (method none): task.cc is not done "
        "yet, so prefaulted_first_call pays the faults of cold_first_call");
  } else if (prefaulted_faults > 1) {
    results.AddNote(absl::StrFormat(
        "PrepareBuffer() says %s, yet the first call still took %.0f page "
        "faults: not every page was made present for writing",
        method, prefaulted_faults));
  } else {
    results.AddNote(absl::StrFormat(
        "with the buffer prepared (%s): start-up %.0f ns + first call %.0f "
        "ns, against %.0f ns for the cold first call: the faults moved to "
        "start-up, where no request waits for them",
        method, *prefault_row.Get("ns_per_call"),
        *prefaulted_row.Get("ns_per_call"), cold_ns));
  }
  const double cold_faults = *cold_row.Get("page_faults_per_call");
  if (cold_faults >= pages) {
    results.AddNote(absl::StrFormat(
        "cold_first_call: %.0f page faults, %.0f of them for the buffer; the "
        "rest are code and stack used for the first time (the reference "
        "run: %d)",
        cold_faults, pages, kReferenceFirstCallFaults));
  } else {
    results.AddNote(absl::StrFormat(
        "cold_first_call: only %.0f page faults for %.0f pages: something "
        "else made the buffer's pages present (huge pages set to always?)",
        cold_faults, pages));
  }
  results.AddNote(hugepage_note);
  // The tour's summary figure, and the lab's pictures (docs/adding_a_lab.md).
  results.SetHeadline(
      {.label = "first call: page faults, and time against a later call",
       .value = cold_faults,
       .text = absl::StrFormat("%.0f faults, %.1fx", cold_faults, cold_ns / warm_ns),
       .reference = absl::StrFormat(
           "%d faults, %.1fx-%.1fx", kReferenceFirstCallFaults,
           kReferenceFirstCallNs[1] / kReferenceSteadyNs,
           kReferenceFirstCallNs[0] / kReferenceSteadyNs)});
  results.AddPlot({.kind = alloclab::PlotKind::kBars,
                   .y = "page_faults_per_call",
                   .title = "page faults per call"});
  results.AddPlot({.kind = alloclab::PlotKind::kBars,
                   .y = "ns_per_call",
                   .title = "ns per call (median)",
                   .log_y = true});
  results.AddNote(absl::StrFormat(
      "page faults from %s; %.0f-byte pages, so the %d KiB buffer is %.0f of "
      "them. perf's page-fault event would miss the faults that "
      "MADV_POPULATE_WRITE and MAP_POPULATE take for the program",
      faults->source(), static_cast<double>(PageBytes()), kBufferBytes / 1024,
      pages));

  return alloclab::FinishLab(
      results, options,
      {{"ns_per_call", "ns (median)", 0},
       {"ns_min", "ns min", 0},
       {"ns_max", "ns max", 0},
       {"page_faults_per_call", "page faults per call", 2},
       {"method", "prefault method", 0},
       {"measured", "measured over", 0}});
}
