// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: report.h
// -----------------------------------------------------------------------------
//
// What an experiment says: an aligned table (one row per variant, units in
// the column headers), the machine line, plain-language notes, and the same
// results as JSON (the format in DESIGN.md, read by the report tooling and
// the checks). A metric that could not be measured is `std::nullopt`: the
// table prints "n/a" and the JSON writes null, never a made-up zero.
//
// Example:
//
//   alloclab::Results results("allocator_cost");
//   results.SetMachine(alloclab::DescribeMachine());
//   results.SetInstrument("timer_overhead_ns", alloclab::TimerOverheadNs());
//   results.AddRow("small_new").Set("ns_per_call", 51.6)
//                             .Set("allocs_per_call", 1.0);
//   results.AddNote("one core: no contention to show here");
//   std::cout << results.RenderTable({{"ns_per_call", "ns per call", 1},
//                                     {"allocs_per_call", "allocs per call", 2}});
//   absl::Status s = results.WriteJson("out.json");

#ifndef ALLOCLAB_COMMON_REPORT_H_
#define ALLOCLAB_COMMON_REPORT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// MachineInfo
//
// The machine line's facts. `effective_ghz` is nullopt where the clock could
// not be measured, and `effective_ghz_note` says why; `physical_cores` is 0
// where /sys could not tell the cores apart (then `smt` means nothing, the
// JSON writes null for both, and `topology_note` says why); `faults_source`
// names the page-fault source in use.
struct MachineInfo {
  std::string cpu_model;
  int logical_cpus = 0;
  int physical_cores = 0;  // 0: unknown
  bool smt = false;
  std::string kernel;
  std::string libc;  // e.g. "glibc 2.36"
  std::optional<double> effective_ghz;
  std::string faults_source;
  std::string effective_ghz_note;  // why `effective_ghz` is missing
  std::string topology_note;       // why `physical_cores` is unknown
};

// DescribeMachine()
//
// Reads /proc/cpuinfo, /sys topology, uname(2) and gnu_get_libc_version();
// measures the effective clock when `measure_clock`.
MachineInfo DescribeMachine(bool measure_clock = true);

// MachineLine()
//
// One line: "machine: <cpu>, 2 logical CPUs on 2 cores (no SMT), Linux 6.1,
// glibc 2.36, effective clock 3.10 GHz, faults from getrusage(RUSAGE_THREAD)".
// What is unknown says so, with the reason: "effective clock n/a (not
// measured)".
std::string MachineLine(const MachineInfo& machine);

// Row
//
// One variant's results. Metric keys carry their unit (ns_per_call,
// allocs_per_call, ...); text fields hold non-numeric facts (a method name).
struct Row {
  std::string variant;
  int threads = 1;
  std::vector<std::pair<std::string, std::optional<double>>> metrics;
  std::vector<std::pair<std::string, std::string>> text;

  // Set() replaces a metric of the same key, else appends.
  Row& Set(absl::string_view key, std::optional<double> value);
  Row& SetText(absl::string_view key, absl::string_view value);
  // Get() is nullopt for a missing or unmeasured metric.
  std::optional<double> Get(absl::string_view key) const;
};

// Column
//
// How `RenderTable()` shows one metric: its key, header (with its unit) and
// digits after the point.
struct Column {
  std::string key;
  std::string header;
  int precision = 1;
};

// Results
class Results {
 public:
  explicit Results(std::string lab) : lab_(std::move(lab)) {}

  void SetMachine(MachineInfo machine) { machine_ = std::move(machine); }
  const MachineInfo& machine() const { return machine_; }

  // SetInstrument()
  //
  // An instrument's own cost or property, key with its unit
  // ("timer_overhead_ns", "shared_counter_cost_ns").
  void SetInstrument(absl::string_view key, std::optional<double> value);
  void SetInstrumentText(absl::string_view key, absl::string_view value);

  // AddRow() returns a reference that stays valid until the next AddRow().
  Row& AddRow(absl::string_view variant, int threads = 1);
  const std::vector<Row>& rows() const { return rows_; }
  const Row* FindRow(absl::string_view variant, int threads = 1) const;

  void AddNote(absl::string_view note) { notes_.emplace_back(note); }
  const std::vector<std::string>& notes() const { return notes_; }

  // RenderTable()
  //
  // The aligned table: a "variant" column (and "threads" when any row has
  // threads != 1), then one column per entry of `columns`, showing the
  // metric of that key or else the text field of that key; "n/a" for
  // missing values. Numbers are right-aligned, text left-aligned.
  std::string RenderTable(const std::vector<Column>& columns) const;

  // ToJson() / WriteJson()
  //
  // The results JSON of DESIGN.md. WriteJson's error names the path.
  std::string ToJson() const;
  absl::Status WriteJson(const std::string& path) const;

 private:
  std::string lab_;
  MachineInfo machine_;
  std::vector<std::pair<std::string, std::optional<double>>> instruments_;
  std::vector<std::pair<std::string, std::string>> instrument_text_;
  std::vector<Row> rows_;
  std::vector<std::string> notes_;
};

// JsonEscape()
//
// `text` as a JSON string literal, quotes included.
std::string JsonEscape(absl::string_view text);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_REPORT_H_
