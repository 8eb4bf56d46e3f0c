// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/report.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/machine/cpu_facts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;
using ::testing::StartsWith;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

MachineInfo TestMachine() {
  MachineInfo machine;
  machine.cpu_model = "Test CPU \"X\" @ 3.00GHz";
  machine.architecture = "aarch64";
  machine.logical_cpus = 2;
  machine.physical_cores = 2;
  machine.smt = false;
  machine.kernel = "Linux 6.1.0";
  machine.libc = "glibc 2.36";
  machine.effective_ghz = 3.1;
  machine.faults_source = "getrusage(RUSAGE_THREAD)";
  machine.page_bytes = 16384;
  machine.cache_line_bytes = 128;
  machine.zero_page = "no zero page";
  machine.thp = "THP madvise (2048 KiB inherit=madvise), mTHP 64 KiB always";
  machine.load_average = {0.25, 0.5, 1.0};
  machine.versions = {{"glibc", "2.36"}, {"musl", "1.2.3"}, {"Bazel", "4.2.3"}};
  return machine;
}

Results SmallResults() {
  Results results("allocator_cost");
  results.SetMachine(TestMachine());
  results.SetInstrument("timer_overhead_ns", 19.5);
  results.SetInstrument("shared_counter_cost_ns", std::nullopt);
  results.SetInstrumentText("clock", "CLOCK_MONOTONIC");
  results.AddRow("small_new")
      .Set("ns_per_call", 51.6)
      .Set("allocs_per_call", 1.0)
      .Set("page_faults_per_call", 0.0);
  results.AddRow("big_new", 4)
      .Set("ns_per_call", 67322.9)
      .Set("allocs_per_call", std::nullopt)
      .Set("page_faults_per_call", kNaN)
      .SetText("method", "mmap");
  results.AddNote("one core: no contention to show here");
  return results;
}

TEST(ResultsTest, JsonMatchesTheDesignFormat) {
  EXPECT_EQ(SmallResults().ToJson(),
            R"json({
  "lab": "allocator_cost",
  "machine": {"cpu_model": "Test CPU \"X\" @ 3.00GHz", "architecture": "aarch64", "logical_cpus": 2, "physical_cores": 2, "smt": false, "kernel": "Linux 6.1.0", "libc": "glibc 2.36", "effective_ghz": 3.1, "faults_source": "getrusage(RUSAGE_THREAD)", "page_bytes": 16384, "cache_line_bytes": 128, "zero_page": "no zero page", "thp": "THP madvise (2048 KiB inherit=madvise), mTHP 64 KiB always", "load_average": [0.25, 0.50, 1.00], "versions": {"glibc": "2.36", "musl": "1.2.3", "Bazel": "4.2.3"}},
  "instruments": {"timer_overhead_ns": 19.5, "shared_counter_cost_ns": null, "clock": "CLOCK_MONOTONIC"},
  "rows": [
    {"variant": "small_new", "threads": 1, "ns_per_call": 51.6, "allocs_per_call": 1, "page_faults_per_call": 0},
    {"variant": "big_new", "threads": 4, "ns_per_call": 67322.9, "allocs_per_call": null, "page_faults_per_call": null, "method": "mmap"}
  ],
  "notes": [
    "one core: no contention to show here"
  ]
}
)json");
}

TEST(ResultsTest, JsonOfEmptyResultsWritesNullForUnknownMachineFacts) {
  Results results("empty");
  MachineInfo machine = TestMachine();
  machine.physical_cores = 0;
  machine.effective_ghz = std::nullopt;
  machine.page_bytes = 0;
  machine.architecture.clear();
  machine.cache_line_bytes = 0;
  machine.zero_page.clear();
  machine.thp.clear();
  machine.load_average.clear();
  machine.versions.clear();
  results.SetMachine(machine);
  EXPECT_EQ(results.ToJson(),
            R"json({
  "lab": "empty",
  "machine": {"cpu_model": "Test CPU \"X\" @ 3.00GHz", "architecture": null, "logical_cpus": 2, "physical_cores": null, "smt": null, "kernel": "Linux 6.1.0", "libc": "glibc 2.36", "effective_ghz": null, "faults_source": "getrusage(RUSAGE_THREAD)", "page_bytes": null, "cache_line_bytes": null, "zero_page": null, "thp": null, "load_average": null, "versions": {}},
  "instruments": {},
  "rows": [],
  "notes": []
}
)json");
}

TEST(ResultsTest, JsonNumbersRoundTripAndNonFiniteIsNull) {
  Results results("numbers");
  results.AddRow("v")
      .Set("third", 1.0 / 3.0)
      .Set("negative", -0.25)
      .Set("huge", 1e300)
      .Set("inf", std::numeric_limits<double>::infinity())
      .Set("nan", kNaN);
  EXPECT_THAT(results.ToJson(),
              HasSubstr(R"({"variant": "v", "threads": 1, )"
                        R"("third": 0.3333333333333333, "negative": -0.25, )"
                        R"("huge": 1e+300, "inf": null, "nan": null})"));
}

TEST(ResultsTest, JsonHasHeadlinePlotAndSamplesOnlyWhenSet) {
  Results results("drawn");
  results.AddRow("glibc").Set("wall_s", 1.5).SetSamples("rss_kib", {10, 20.5});
  EXPECT_THAT(results.ToJson(), Not(HasSubstr("headline")));
  EXPECT_THAT(results.ToJson(), Not(HasSubstr("plot")));
  results.SetHeadline({.label = "one malloc+free",
                       .value = std::nullopt,
                       .text = "n/a (one core)",
                       .reference = "8.3-13.7 ns"});
  results.AddPlot(
      {.kind = PlotKind::kScatter, .y = "wall_s", .series = "allocator"});
  results.AddPlot(
      {.kind = PlotKind::kSamples, .y = "rss_kib", .x = "interval_s"});
  results.AddPlot({.kind = PlotKind::kBars,
                   .y = "wall_s",
                   .variants = {"glibc", "musl"},
                   .log_y = true});
  const std::string json = results.ToJson();
  EXPECT_THAT(json, HasSubstr(R"({"variant": "glibc", "threads": 1, )"
                              R"("wall_s": 1.5, "rss_kib": [10, 20.5]})"));
  EXPECT_THAT(json, HasSubstr(R"j("headline": {"label": "one malloc+free", )j"
                              R"j("value": null, "text": "n/a (one core)", )j"
                              R"j("reference": "8.3-13.7 ns"},)j"));
  EXPECT_THAT(
      json,
      HasSubstr(
          R"("plots": [{"kind": "scatter", "y": "wall_s", )"
          R"("x": "", "series": "allocator", "title": ""}, )"
          R"({"kind": "samples", "y": "rss_kib", )"
          R"("x": "interval_s", "series": "", "title": ""}, )"
          R"({"kind": "bars", "y": "wall_s", "x": "", "series": "", )"
          R"("title": "", "variants": ["glibc", "musl"], "log_y": true}],)"));
}

TEST(RowTest, SamplesReplaceAMetricOfTheSameKey) {
  Row row;
  row.Set("rss_kib", 1.0).SetSamples("rss_kib", {1, 2});
  EXPECT_EQ(row.Get("rss_kib"), std::nullopt);
  ASSERT_EQ(row.samples.size(), 1u);
  row.Set("rss_kib", 3.0);
  EXPECT_TRUE(row.samples.empty());
}

TEST(JsonEscapeTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonEscape("plain"), "\"plain\"");
  EXPECT_EQ(JsonEscape("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(JsonEscape("tab\tnl\ncr\r"), R"("tab\tnl\ncr\r")");
  EXPECT_EQ(JsonEscape(std::string("\x01\x1f\b\f", 4)),
            R"("\u0001\u001f\b\f")");
  EXPECT_EQ(JsonEscape(std::string("nul\0!", 5)), R"("nul\u0000!")");
  EXPECT_EQ(JsonEscape("µs"), "\"µs\"");
}

TEST(ResultsTest, TableAlignsColumnsAndShowsThreadsWhenAnyRowHasThem) {
  EXPECT_EQ(
      SmallResults().RenderTable({{"ns_per_call", "ns per call", 1},
                                  {"allocs_per_call", "allocs per call", 2},
                                  {"method", "method", 0}}),
      "variant    threads  ns per call  allocs per call  method\n"
      "small_new        1         51.6             1.00  n/a\n"
      "big_new          4      67322.9              n/a  mmap\n");
}

TEST(ResultsTest, TableWithoutThreadsColumnAndMissingMetrics) {
  Results results("lab");
  results.AddRow("small, new String")
      .Set("ns_per_call", 51.6)
      .Set("page_faults_per_call", 0.0);
  results.AddRow("256 KiB, reused Vec")
      .Set("ns_per_call", 66591.8)
      .Set("page_faults_per_call", kNaN);
  EXPECT_EQ(results.RenderTable(
                {{"ns_per_call", "ns per call", 1},
                 {"allocs_per_call", "allocs per call", 2},
                 {"page_faults_per_call", "page faults per call", 2}}),
            "variant              ns per call  allocs per call  page faults "
            "per call\n"
            "small, new String           51.6              n/a                 "
            " 0.00\n"
            "256 KiB, reused Vec      66591.8              n/a                 "
            "  n/a\n");
}

TEST(ResultsTest, TableOfNoRowsIsTheHeader) {
  EXPECT_EQ(Results("lab").RenderTable({{"ns_per_call", "ns per call", 1}}),
            "variant  ns per call\n");
}

TEST(RowTest, SetReplacesAndGetReadsBack) {
  Row row;
  row.Set("ns_per_call", 1.0)
      .Set("allocs_per_call", 2.0)
      .Set("ns_per_call", 3.0);
  ASSERT_EQ(row.metrics.size(), 2);
  EXPECT_EQ(row.metrics[0].first, "ns_per_call");
  EXPECT_THAT(row.Get("ns_per_call"), Optional(3.0));
  EXPECT_THAT(row.Get("allocs_per_call"), Optional(2.0));
  EXPECT_EQ(row.Get("missing"), std::nullopt);
  row.Set("allocs_per_call", std::nullopt);
  EXPECT_EQ(row.Get("allocs_per_call"), std::nullopt);
}

TEST(RowTest, TextAndMetricOfOneKeyDoNotCoexist) {
  Row row;
  row.Set("method", 1.0).SetText("method", "mmap");
  EXPECT_TRUE(row.metrics.empty());
  ASSERT_EQ(row.text.size(), 1);
  EXPECT_EQ(row.text[0].second, "mmap");
  row.Set("method", 2.0);
  EXPECT_TRUE(row.text.empty());
  EXPECT_THAT(row.Get("method"), Optional(2.0));
}

TEST(ResultsTest, FindRowMatchesVariantAndThreads) {
  Results results = SmallResults();
  ASSERT_NE(results.FindRow("big_new", 4), nullptr);
  EXPECT_THAT(results.FindRow("big_new", 4)->Get("ns_per_call"),
              Optional(67322.9));
  EXPECT_EQ(results.FindRow("big_new"), nullptr);
  EXPECT_EQ(results.FindRow("nothing"), nullptr);
  EXPECT_NE(results.FindRow("small_new"), nullptr);
}

TEST(ResultsTest, InstrumentSetTwiceKeepsTheLastValue) {
  Results results("lab");
  results.SetInstrument("timer_overhead_ns", 1);
  results.SetInstrument("timer_overhead_ns", 2);
  EXPECT_THAT(results.ToJson(),
              HasSubstr("\"instruments\": {\"timer_overhead_ns\": 2},"));
}

TEST(MachineLineTest, SaysEverythingOnOneLine) {
  EXPECT_EQ(MachineLine(TestMachine()),
            "machine: Test CPU \"X\" @ 3.00GHz (aarch64), 2 logical CPUs on 2 "
            "cores (no SMT), Linux 6.1.0, glibc 2.36, effective clock 3.10 "
            "GHz, faults from getrusage(RUSAGE_THREAD), 16 KiB pages, 128-byte "
            "cache lines, no zero page, "
            "THP madvise (2048 KiB inherit=madvise), mTHP 64 KiB always, "
            "load average 0.25; musl 1.2.3, Bazel 4.2.3");
}

TEST(MachineLineTest, SaysWhatIsUnknownAndWhy) {
  MachineInfo machine = TestMachine();
  machine.logical_cpus = 1;
  machine.physical_cores = 0;
  machine.topology_note = "no /sys";
  machine.effective_ghz = std::nullopt;
  machine.effective_ghz_note = "no inline assembly for this CPU";
  const std::string line = MachineLine(machine);
  EXPECT_THAT(
      line,
      AllOf(HasSubstr(", 1 logical CPU (cores and SMT unknown: no /sys), "),
            HasSubstr("effective clock n/a (no inline assembly "
                      "for this CPU)")));
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(MachineLineTest, CacheLineUnknownSaysWhy) {
  MachineInfo machine = TestMachine();
  machine.cache_line_bytes = 0;
  machine.cache_line_note = "no coherency_line_size under /sys";
  EXPECT_THAT(
      MachineLine(machine),
      HasSubstr(", 16 KiB pages, cache line n/a (no coherency_line_size "
                "under /sys), no zero page"));
}

TEST(MachineLineTest, SmtShows) {
  MachineInfo machine = TestMachine();
  machine.logical_cpus = 8;
  machine.physical_cores = 4;
  machine.smt = true;
  EXPECT_THAT(MachineLine(machine),
              HasSubstr("8 logical CPUs on 4 cores (SMT)"));
}

TEST(DescribeMachineTest, DescribesThisMachine) {
  const MachineInfo machine = DescribeMachine(/*measure_clock=*/false);
  EXPECT_EQ(machine.logical_cpus, sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GE(machine.physical_cores, 1);
  EXPECT_LE(machine.physical_cores, machine.logical_cpus);
  EXPECT_EQ(machine.smt, machine.logical_cpus > machine.physical_cores);
  EXPECT_THAT(machine.libc, StartsWith("glibc "));
  EXPECT_THAT(machine.kernel, StartsWith("Linux "));
  EXPECT_FALSE(machine.cpu_model.empty());
  EXPECT_EQ(machine.effective_ghz, std::nullopt);
  EXPECT_EQ(
      machine.effective_ghz_note,
      "not measured for this line in a quick run; a GHz column, where the "
      "table has one, is its threads' own");
  EXPECT_THAT(machine.faults_source, testing::AnyOf(StartsWith("getrusage"),
                                                    StartsWith("perf_event")));
  EXPECT_THAT(machine.zero_page,
              testing::AnyOf("shared zero page", "no zero page",
                             StartsWith("zero page unknown (")));
  EXPECT_THAT(machine.thp, StartsWith("THP "));
  EXPECT_EQ(machine.architecture, Architecture());
  EXPECT_THAT(
      MachineLine(machine),
      AllOf(
          StartsWith("machine: "), HasSubstr(machine.libc),
          HasSubstr(
              "effective clock n/a (not measured for this line in a quick run"),
          StartsWith(absl::StrCat("machine: ", machine.cpu_model, " (",
                                  Architecture(), "), ")),
          HasSubstr(absl::StrCat(", ", machine.page_bytes / 1024,
                                 " KiB pages, ",
                                 DescribeCacheLine(ReadCacheLine()), ", ",
                                 machine.zero_page, ", ", machine.thp))));
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(WriteJsonTest, WritesWhatToJsonSays) {
  const char* tmpdir = getenv("TEST_TMPDIR");
  ASSERT_NE(tmpdir, nullptr);
  const std::string path = absl::StrCat(tmpdir, "/results.json");
  const Results results = SmallResults();
  ASSERT_TRUE(results.WriteJson(path).ok());
  EXPECT_EQ(ReadFile(path), results.ToJson());
}

TEST(WriteJsonTest, ErrorNamesThePathAndTheReason) {
  absl::Status status = SmallResults().WriteJson("/nonexistent/dir/x.json");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), AllOf(HasSubstr("'/nonexistent/dir/x.json'"),
                                      HasSubstr("No such file or directory")));
}

TEST(ColumnTest, KnownKeysGetTheCoursesHeader) {
  EXPECT_EQ(Column("ns_mad", 1).header, "± ns (MAD)");
  EXPECT_EQ(Column("page_faults_per_call", 2).header, "page faults per call");
  EXPECT_EQ(Column("threshold_bytes", 0).header, "threshold (bytes)");
  EXPECT_EQ(Column("vs_off", "x off", 2).header, "x off");
  EXPECT_EQ(Column("method").precision, 1);
}

}  // namespace
}  // namespace alloclab
