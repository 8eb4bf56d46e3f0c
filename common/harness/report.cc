// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/report.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace alloclab {
namespace {

// The shortest decimal that reads back as the same double: 51.6, not
// 51.600000000000001. NaN and infinities have no JSON form: null.
std::string JsonNumber(std::optional<double> value) {
  if (!value.has_value() || !std::isfinite(*value)) return "null";
  // Whole numbers as integers: %g would write 10 as "1e+01".
  if (*value == std::trunc(*value) && std::fabs(*value) < 1e15) {
    return absl::StrFormat("%.0f", *value);
  }
  char buffer[32];  // the longest shortest double is 24 characters
  const std::to_chars_result end =
      std::to_chars(buffer, buffer + sizeof(buffer), *value);
  return std::string(buffer, end.ptr);
}

// A table cell: the metric with `precision` digits, the text field of the
// same key, or "n/a".
std::string Cell(const Row& row, const Column& column) {
  for (const auto& [key, value] : row.metrics) {
    if (key != column.key) continue;
    if (!value.has_value() || std::isnan(*value)) return "n/a";
    return absl::StrFormat("%.*f", column.precision, *value);
  }
  for (const auto& [key, value] : row.text) {
    if (key == column.key) return value;
  }
  return "n/a";
}

template <typename Pairs, typename Value>
void SetPair(Pairs& pairs, absl::string_view key, Value value) {
  for (auto& [k, v] : pairs) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  pairs.emplace_back(std::string(key), std::move(value));
}

template <typename Pairs>
void ErasePair(Pairs& pairs, absl::string_view key) {
  pairs.erase(std::remove_if(pairs.begin(), pairs.end(),
                             [&](const auto& p) { return p.first == key; }),
              pairs.end());
}

// `"key": value` pairs of numbers, then of text, comma-separated.
std::string JsonFields(
    const std::vector<std::pair<std::string, std::optional<double>>>& numbers,
    const std::vector<std::pair<std::string, std::string>>& text) {
  std::vector<std::string> fields;
  for (const auto& [key, value] : numbers) {
    fields.push_back(absl::StrCat(JsonEscape(key), ": ", JsonNumber(value)));
  }
  for (const auto& [key, value] : text) {
    fields.push_back(absl::StrCat(JsonEscape(key), ": ", JsonEscape(value)));
  }
  return absl::StrJoin(fields, ", ");
}

// A row's sample arrays as JSON fields: "key": [1, 2.5, null].
std::string JsonSamples(
    const std::vector<std::pair<std::string, std::vector<double>>>& samples) {
  std::vector<std::string> fields;
  for (const auto& [key, values] : samples) {
    std::vector<std::string> numbers;
    numbers.reserve(values.size());
    for (double v : values) numbers.push_back(JsonNumber(v));
    fields.push_back(absl::StrCat(JsonEscape(key), ": [",
                                  absl::StrJoin(numbers, ", "), "]"));
  }
  return absl::StrJoin(fields, ", ");
}

const char* PlotKindName(PlotKind kind) {
  switch (kind) {
    case PlotKind::kBars:
      return "bars";
    case PlotKind::kLines:
      return "lines";
    case PlotKind::kScatter:
      return "scatter";
    case PlotKind::kSamples:
      return "samples";
  }
  return "bars";
}

}  // namespace

std::string KnownHeader(absl::string_view key) {
  // Only keys whose header is not the key itself, spaced.
  static constexpr std::pair<absl::string_view, absl::string_view> kHeaders[] =
      {
          {"ns_mad", "± ns (MAD)"},
          {"threshold_bytes", "threshold (bytes)"},
          {"cpu_ns_per_call", "CPU ns per call"},
          {"effective_ghz", "GHz"},
          {"peak_rss_kib", "peak RSS KiB"},
      };
  for (const auto& [known, header] : kHeaders) {
    if (key == known) return std::string(header);
  }
  std::string header(key);
  std::replace(header.begin(), header.end(), '_', ' ');
  return header;
}

Column::Column(std::string key, int precision)
    : key(std::move(key)), precision(precision) {
  header = KnownHeader(this->key);
}

Row& Row::Set(absl::string_view key, std::optional<double> value) {
  ErasePair(text, key);  // one key, one value in the JSON
  ErasePair(samples, key);
  SetPair(metrics, key, value);
  return *this;
}

Row& Row::SetText(absl::string_view key, absl::string_view value) {
  ErasePair(metrics, key);
  ErasePair(samples, key);
  SetPair(text, key, std::string(value));
  return *this;
}

Row& Row::SetSamples(absl::string_view key, std::vector<double> values) {
  ErasePair(metrics, key);
  ErasePair(text, key);
  SetPair(samples, key, std::move(values));
  return *this;
}

std::optional<double> Row::Get(absl::string_view key) const {
  for (const auto& [k, v] : metrics) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void Results::SetInstrument(absl::string_view key,
                            std::optional<double> value) {
  ErasePair(instrument_text_, key);
  SetPair(instruments_, key, value);
}

void Results::SetInstrumentText(absl::string_view key,
                                absl::string_view value) {
  ErasePair(instruments_, key);
  SetPair(instrument_text_, key, std::string(value));
}

Row& Results::AddRow(absl::string_view variant, int threads) {
  Row& row = rows_.emplace_back();
  row.variant = std::string(variant);
  row.threads = threads;
  return row;
}

const Row* Results::FindRow(absl::string_view variant, int threads) const {
  for (const Row& row : rows_) {
    if (row.variant == variant && row.threads == threads) return &row;
  }
  return nullptr;
}

std::string Results::RenderTable(const std::vector<Column>& columns) const {
  const bool show_threads =
      std::any_of(rows_.begin(), rows_.end(),
                  [](const Row& row) { return row.threads != 1; });

  // The grid, header first; the variant (and any text column) reads from
  // the left, numbers line up on their last digit as in the reference run's
  // tables.
  std::vector<std::vector<std::string>> grid;
  std::vector<bool> left_aligned;
  std::vector<std::string> header = {"variant"};
  left_aligned.push_back(true);
  if (show_threads) {
    header.push_back("threads");
    left_aligned.push_back(false);
  }
  for (const Column& column : columns) {
    header.push_back(column.header);
    bool text = false;
    for (const Row& row : rows_) {
      for (const auto& [key, value] : row.text) text |= key == column.key;
    }
    left_aligned.push_back(text);
  }
  grid.push_back(std::move(header));
  for (const Row& row : rows_) {
    std::vector<std::string> cells = {row.variant};
    if (show_threads) cells.push_back(absl::StrCat(row.threads));
    for (const Column& column : columns) cells.push_back(Cell(row, column));
    grid.push_back(std::move(cells));
  }

  std::vector<size_t> widths(left_aligned.size(), 0);
  for (const auto& cells : grid) {
    for (size_t i = 0; i < cells.size(); ++i) {
      widths[i] = std::max(widths[i], cells[i].size());
    }
  }
  std::string table;
  for (const auto& cells : grid) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) line += "  ";
      const std::string padding(widths[i] - cells[i].size(), ' ');
      absl::StrAppend(&line, left_aligned[i] ? cells[i] : padding,
                      left_aligned[i] ? padding : cells[i]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    absl::StrAppend(&table, line, "\n");
  }
  return table;
}

namespace {

// [1, 5, 15-minute load averages], or null where unavailable.
std::string JsonLoadAverage(const std::vector<double>& load) {
  if (load.empty()) return "null";
  std::vector<std::string> parts;
  for (double v : load) parts.push_back(absl::StrFormat("%.2f", v));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

// {"glibc": "2.36", "musl": "1.2.3", ...}: versions.h's names and answers.
std::string JsonVersions(const std::vector<SoftwareVersion>& versions) {
  std::vector<std::string> parts;
  for (const SoftwareVersion& v : versions) {
    parts.push_back(
        absl::StrCat(JsonEscape(v.name), ": ", JsonEscape(v.version)));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

// JsonMachine()
//
// The "machine" object: what the results were measured on, null where a
// fact is unknown.
std::string JsonMachine(const MachineInfo& m) {
  const bool cores_known = m.physical_cores > 0;
  return absl::StrCat(
      "{\"cpu_model\": ", JsonEscape(m.cpu_model), ", \"architecture\": ",
      m.architecture.empty() ? "null" : JsonEscape(m.architecture),
      ", \"logical_cpus\": ", m.logical_cpus, ", \"physical_cores\": ",
      cores_known ? absl::StrCat(m.physical_cores) : "null",
      ", \"smt\": ", cores_known ? (m.smt ? "true" : "false") : "null",
      ", \"kernel\": ", JsonEscape(m.kernel),
      ", \"libc\": ", JsonEscape(m.libc),
      ", \"effective_ghz\": ", JsonNumber(m.effective_ghz),
      ", \"faults_source\": ", JsonEscape(m.faults_source),
      ", \"page_bytes\": ",
      m.page_bytes > 0 ? absl::StrCat(m.page_bytes) : std::string("null"),
      ", \"cache_line_bytes\": ",
      m.cache_line_bytes > 0 ? absl::StrCat(m.cache_line_bytes)
                             : std::string("null"),
      ", \"zero_page\": ",
      m.zero_page.empty() ? "null" : JsonEscape(m.zero_page),
      ", \"thp\": ", m.thp.empty() ? "null" : JsonEscape(m.thp),
      ", \"load_average\": ", JsonLoadAverage(m.load_average),
      ", \"versions\": ", JsonVersions(m.versions), "}");
}

// JsonPlot()
//
// One picture the lab asks for.
std::string JsonPlot(const Plot& p) {
  std::string json =
      absl::StrCat("{\"kind\": ", JsonEscape(PlotKindName(p.kind)),
                   ", \"y\": ", JsonEscape(p.y), ", \"x\": ", JsonEscape(p.x),
                   ", \"series\": ", JsonEscape(p.series),
                   ", \"title\": ", JsonEscape(p.title));
  if (!p.variants.empty()) {
    std::vector<std::string> names;
    for (const std::string& v : p.variants) names.push_back(JsonEscape(v));
    absl::StrAppend(&json, ", \"variants\": [", absl::StrJoin(names, ", "),
                    "]");
  }
  if (p.log_y) absl::StrAppend(&json, ", \"log_y\": true");
  absl::StrAppend(&json, "}");
  return json;
}

}  // namespace

std::string Results::ToJson() const {
  std::string json = "{\n";
  absl::StrAppend(&json, "  \"lab\": ", JsonEscape(lab_), ",\n");
  absl::StrAppend(&json, "  \"machine\": ", JsonMachine(machine_), ",\n");
  absl::StrAppend(&json, "  \"instruments\": {",
                  JsonFields(instruments_, instrument_text_), "},\n");
  if (rows_.empty()) {
    absl::StrAppend(&json, "  \"rows\": [],\n");
  } else {
    absl::StrAppend(&json, "  \"rows\": [\n");
    for (size_t i = 0; i < rows_.size(); ++i) {
      const Row& row = rows_[i];
      std::string fields = JsonFields(row.metrics, row.text);
      const std::string samples = JsonSamples(row.samples);
      if (!samples.empty()) {
        absl::StrAppend(&fields, fields.empty() ? "" : ", ", samples);
      }
      absl::StrAppend(&json, "    {\"variant\": ", JsonEscape(row.variant),
                      ", \"threads\": ", row.threads,
                      fields.empty() ? "" : ", ", fields, "}",
                      i + 1 < rows_.size() ? "," : "", "\n");
    }
    absl::StrAppend(&json, "  ],\n");
  }
  if (headline_.has_value()) {
    const Headline& h = *headline_;
    absl::StrAppend(&json, "  \"headline\": {\"label\": ", JsonEscape(h.label),
                    ", \"value\": ", JsonNumber(h.value),
                    ", \"text\": ", JsonEscape(h.text),
                    ", \"reference\": ", JsonEscape(h.reference), "},\n");
  }
  if (!plots_.empty()) {
    std::vector<std::string> plots;
    for (const Plot& p : plots_) {
      plots.push_back(JsonPlot(p));
    }
    absl::StrAppend(&json, "  \"plots\": [", absl::StrJoin(plots, ", "),
                    "],\n");
  }
  if (notes_.empty()) {
    absl::StrAppend(&json, "  \"notes\": []\n");
  } else {
    absl::StrAppend(&json, "  \"notes\": [\n");
    for (size_t i = 0; i < notes_.size(); ++i) {
      absl::StrAppend(&json, "    ", JsonEscape(notes_[i]),
                      i + 1 < notes_.size() ? "," : "", "\n");
    }
    absl::StrAppend(&json, "  ]\n");
  }
  absl::StrAppend(&json, "}\n");
  return json;
}

absl::Status Results::WriteJson(const std::string& path) const {
  const std::string json = ToJson();
  const std::string what = absl::StrCat("writing results JSON to '", path, "'");
  FILE* f = fopen(path.c_str(), "we");
  if (f == nullptr) return absl::ErrnoToStatus(errno, what);
  const bool written = fwrite(json.data(), 1, json.size(), f) == json.size();
  const int write_errno = errno;
  // A full disk may only show at the flush in fclose.
  if (fclose(f) != 0 || !written) {
    return absl::ErrnoToStatus(written ? errno : write_errno, what);
  }
  return absl::OkStatus();
}

std::string JsonEscape(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          out += c;  // UTF-8 passes through as it is
        }
    }
  }
  out += "\"";
  return out;
}

}  // namespace alloclab
