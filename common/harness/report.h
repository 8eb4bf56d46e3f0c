// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: report.h
// -----------------------------------------------------------------------------
//
// What an experiment says: an aligned table (one row per variant, units in
// the column headers), the machine line, plain-language notes, and the same
// results as JSON (the format in docs/results_json.md, read by the report
// tooling and the checks). A metric that could not be measured is
// `std::nullopt`: the table prints "n/a" and the JSON writes null, never a
// made-up zero.
//
// clang-format off
// Example:
//
//   alloclab::Results results("allocator_cost");
//   results.SetMachine(alloclab::DescribeMachine());
//   results.SetInstrument("timer_overhead_ns", alloclab::TimerOverheadNs());
//   results.AddRow("small_new").Set("ns_per_call", 51.6)
//                             .Set("allocs_per_call", 1.0);
//   results.AddNote("one core: no contention to show here");
//   results.SetHeadline({.label = "one malloc+free", .value = 13.2,
//                        .text = "13.2 ns", .reference = "8.3-13.7 ns"});
//   results.AddPlot({.kind = alloclab::PlotKind::kBars, .y = "ns_per_call"});
//   std::cout << results.RenderTable(
//       {{"ns_per_call", "ns per call", 1},
//        {"allocs_per_call", "allocs per call", 2}});
//   absl::Status s = results.WriteJson("out.json");
// clang-format on

#ifndef ALLOCLAB_COMMON_HARNESS_REPORT_H_
#define ALLOCLAB_COMMON_HARNESS_REPORT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/machine/machine.h"

namespace alloclab {

// Row
//
// One variant's results. Metric keys carry their unit (ns_per_call,
// allocs_per_call, ...); text fields hold non-numeric facts (a method name).
struct Row {
  std::string variant;
  int threads = 1;
  std::vector<std::pair<std::string, std::optional<double>>> metrics;
  std::vector<std::pair<std::string, std::string>> text;
  // Values sampled during the run (e.g. RSS every 10 ms), for plots: the
  // JSON writes each as an array; the table does not show them.
  std::vector<std::pair<std::string, std::vector<double>>> samples;

  // Set() replaces a metric of the same key, else appends.
  Row& Set(absl::string_view key, std::optional<double> value);
  Row& SetText(absl::string_view key, absl::string_view value);
  Row& SetSamples(absl::string_view key, std::vector<double> values);
  // Get() is nullopt for a missing or unmeasured metric.
  std::optional<double> Get(absl::string_view key) const;
};

// Column
//
// How `RenderTable()` shows one metric: its key, header (with its unit) and
// digits after the point. `{"ns_per_call", 1}` takes the course's header for
// a key every lab shares (`KnownHeader()`), so that "page faults per call"
// reads the same in every table; `{"vs_off", "x off", 2}` names its own.
struct Column {
  Column(std::string key, int precision = 1);
  Column(std::string key, std::string header, int precision = 1)
      : key(std::move(key)), header(std::move(header)), precision(precision) {}

  std::string key;
  std::string header;
  int precision = 1;
};

// KnownHeader()
//
// The header of a metric key the labs share ("ns_per_call" -> "ns per
// call", "ns_mad" -> "± ns (MAD)", "threshold_bytes" -> "threshold
// (bytes)"), else the key with its underscores as spaces.
std::string KnownHeader(absl::string_view key);

// Headline
//
// A lab's one figure, the one `bazel run //:tour` puts in its summary table
// beside the reference run's (docs/adding_a_lab.md): what it is, this run's
// value as text with its unit (or "n/a" and why), the same as a number where
// there is one, and the reference run's figure as the chapter quotes it.
struct Headline {
  std::string label = {};            // "one malloc+free"
  std::optional<double> value = {};  // 13.2; nullopt when not measured
  std::string text = {};             // "13.2 ns"
  std::string reference = {};        // "8.3-13.7 ns"
};

// PlotKind
//
// The pictures `bazel run //:report -- --plot=out.svg` can draw.
enum class PlotKind {
  kBars,     // one bar per row: `y` (a count or time) per variant
  kLines,    // `y` against `x` (a metric, or "threads"), one line per
             // value of `series` (a text field, or "variant")
  kScatter,  // one point per row at (`x`, `y`), named by `series`
  kSamples,  // each row's `y` samples (Row::SetSamples) over time: `x` the
             // samples of their times (same length), or a metric holding
             // the time between two samples
};

// Plot
//
// (Here and in Headline every member has a default, so that a designated
// initializer may leave any out without -Wmissing-field-initializers.)
//
// The lab's natural picture, chosen by the lab and drawn from its JSON
// (docs/adding_a_lab.md). Axis labels are the keys: keep the unit in them.
struct Plot {
  PlotKind kind = PlotKind::kBars;
  std::string y = {};
  std::string x = {};
  std::string series = {};
  std::string title = {};                  // empty: the lab's name
  std::vector<std::string> variants = {};  // the rows to draw; empty: every row
  bool log_y = false;  // a logarithmic y axis, for rows of many magnitudes
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

  // SetHeadline() / AddPlot()
  //
  // What the tour's summary shows of this lab, and the pictures the report
  // draws (one panel each, in order); both optional, both in the JSON.
  void SetHeadline(Headline headline) { headline_ = std::move(headline); }
  const std::optional<Headline>& headline() const { return headline_; }
  void AddPlot(Plot plot) { plots_.push_back(std::move(plot)); }
  const std::vector<Plot>& plots() const { return plots_; }

  // RenderTable()
  //
  // The aligned table: a "variant" column (and "threads" when any row has
  // threads != 1), then one column per entry of `columns`, showing the
  // metric of that key or else the text field of that key; "n/a" for
  // missing values. Numbers are right-aligned, text left-aligned.
  std::string RenderTable(const std::vector<Column>& columns) const;

  // ToJson() / WriteJson()
  //
  // The results JSON (docs/results_json.md). WriteJson's error names the
  // path.
  std::string ToJson() const;
  absl::Status WriteJson(const std::string& path) const;

 private:
  std::string lab_;
  MachineInfo machine_;
  std::vector<std::pair<std::string, std::optional<double>>> instruments_;
  std::vector<std::pair<std::string, std::string>> instrument_text_;
  std::vector<Row> rows_;
  std::vector<std::string> notes_;
  std::optional<Headline> headline_;
  std::vector<Plot> plots_;
};

// JsonEscape()
//
// `text` as a JSON string literal, quotes included.
std::string JsonEscape(absl::string_view text);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_REPORT_H_
