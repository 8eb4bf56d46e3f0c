// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The real programs of real_programs.h timed under glibc, jemalloc,
// tcmalloc, mimalloc and your libyours.so, side by side in one run: each
// program's median wall time and median peak RSS as ratios to glibc's, and
// each run's output checked against glibc's. The runs are interleaved (one
// run of every allocator, then the next repetition), so that a change in
// the machine's load falls on all of them alike; the load average at the
// start and the end is printed with the table. What real_programs_test
// checks (the same output, a bounded peak RSS), this measures.
//
// Example:
//
//   bazel run //labs/allocator_design:real_programs_table      # yours
//   bazel run //solutions/allocator_design:real_programs_table  # reference
//                                                  # and yours beside it
//   // program              glibc     jemalloc  tcmalloc  mimalloc  yours
//   // python_str_appends   0.062 s   ...x      ...

#include <malloc.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/harness/child_run.h"
#include "common/harness/interleave.h"
#include "common/machine/allocator_probe.h"
#include "common/stats/stats.h"
#include "labs/allocator_design/real_programs.h"

ABSL_FLAG(int, repetitions, 3,
          "runs of each program under each allocator (the median is shown)");
ABSL_FLAG(std::string, allocators, "glibc,jemalloc,tcmalloc,mimalloc",
          "comma-separated allocators beside yours (glibc, the baseline, "
          "is required)");
ABSL_FLAG(std::string, yours_library, "",
          "the libyours.so to time (empty: the one built beside this "
          "program)");
ABSL_FLAG(std::string, yours_name, "yours",
          "the column of that library (the reference's target says "
          "\"reference\")");
ABSL_FLAG(std::string, more, "",
          "more libraries to preload, each a column after yours: "
          "NAME=PATH[,NAME=PATH...] (the reference's target adds yours)");

namespace {

namespace ad = allocator_design;

struct Allocator {
  std::string name;
  std::string preload;  // empty: glibc
};

// One program under one allocator: every run's wall time and peak RSS,
// and what went wrong, if anything (a failed run, another output).
struct Cell {
  std::vector<double> wall_s;
  std::vector<double> peak_rss_kib;
  std::string problem;
};

double Median(const std::vector<double>& values) {
  return alloclab::Summarize(values).median;
}

double LoadAverage() {
  double load[1];
  return getloadavg(load, 1) == 1 ? load[0] : NAN;
}

absl::StatusOr<std::vector<Allocator>> Allocators() {
  std::vector<Allocator> allocators;
  for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_allocators),
                                               ',', absl::SkipEmpty())) {
    absl::StatusOr<alloclab::LocatedAllocator> located =
        alloclab::LocateAllocator(name);
    if (!located.ok()) return located.status();  // names the Debian package
    allocators.push_back({std::string(name), located->path});
  }
  if (allocators.empty() || allocators[0].name != "glibc") {
    return absl::InvalidArgumentError(
        "--allocators must begin with glibc, the baseline of every ratio");
  }
  std::string yours = absl::GetFlag(FLAGS_yours_library);
  if (yours.empty()) {
    absl::StatusOr<std::string> beside =
        alloclab::ProgramBesideSelf(alloclab::kYoursLibraryFile);
    if (!beside.ok()) return beside.status();
    yours = *beside;
  }
  char resolved[PATH_MAX];
  if (realpath(yours.c_str(), resolved) == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "--yours_library=", yours,
        ": no such file (`bazel build //labs/allocator_design:libyours.so` "
        "builds yours)"));
  }
  allocators.push_back({absl::GetFlag(FLAGS_yours_name), resolved});
  for (absl::string_view more :
       absl::StrSplit(absl::GetFlag(FLAGS_more), ',', absl::SkipEmpty())) {
    const std::vector<std::string> pair = absl::StrSplit(more, '=');
    if (pair.size() != 2 || pair[0].empty() ||
        realpath(pair[1].c_str(), resolved) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--more=", more, ": not NAME=PATH of an existing library"));
    }
    allocators.push_back({pair[0], resolved});
  }
  return allocators;
}

// What one run of the table measured: cells[program][allocator], glibc's
// output of each program (the one every other run must match), and the
// largest resident set this program had at a fork.
struct Table {
  std::vector<std::vector<Cell>> cells;
  std::vector<std::string> glibc_output;
  int64_t launcher_rss_kib = 0;
};

// Measure()
//
// Runs every program under every allocator `repetitions` times, in turn
// (common/harness/interleave.h): all of one repetition, then the next. A run
// that fails, or prints other output than glibc's, marks its cell, which is not
// run again; the others go on.
Table Measure(const std::vector<ad::RealProgram>& programs,
              const std::vector<Allocator>& allocators, int repetitions) {
  Table table;
  table.cells.assign(programs.size(), std::vector<Cell>(allocators.size()));
  table.glibc_output.resize(programs.size());
  const int per_program = static_cast<int>(allocators.size());
  const absl::Status status = alloclab::Interleave(
      repetitions, static_cast<int>(programs.size()) * per_program,
      [&](const alloclab::InterleavedRun& at) {
        const size_t p = static_cast<size_t>(at.variant / per_program);
        const size_t a = static_cast<size_t>(at.variant % per_program);
        Cell& cell = table.cells[p][a];
        if (!cell.problem.empty()) return absl::OkStatus();
        fprintf(stderr, "\rrun %d of %d: %-22s %-10s", at.repetition + 1,
                repetitions, programs[p].name.c_str(),
                allocators[a].name.c_str());
        // The child's peak RSS starts at this process's resident set at
        // the fork (child_run.h): give back the free pages the outputs
        // read so far left in glibc's heap (malloc_trim() madvises them
        // away, glibc 2.36's mtrim()), or that floor grows run by run.
        malloc_trim(0);
        absl::StatusOr<alloclab::ChildRun> run =
            ad::RunRealProgram(programs[p], allocators[a].preload);
        if (!run.ok()) {
          cell.problem = std::string(run.status().message());
          return absl::OkStatus();
        }
        if (a == 0 && at.repetition == 0) {
          table.glibc_output[p] = run->stdout_text;
        }
        const std::string difference =
            ad::FirstDifference(table.glibc_output[p], run->stdout_text);
        if (!difference.empty()) {
          cell.problem =
              absl::StrCat(programs[p].name, " under ", allocators[a].name,
                           ": output differs from glibc's, from ", difference);
          return absl::OkStatus();
        }
        table.launcher_rss_kib =
            std::max(table.launcher_rss_kib, run->launcher_rss_kib);
        cell.wall_s.push_back(run->wall_s);
        cell.peak_rss_kib.push_back(static_cast<double>(run->peak_rss_kib));
        return absl::OkStatus();
      });
  (void)status;  // every run above returns OK: failures stay in their cell
  fprintf(stderr, "\r%70s\r", "");
  return table;
}

// PrintRatios()
//
// One of the two tables, wall time (`wall`) or peak RSS: glibc's median,
// every other allocator's as a ratio to it, and each allocator's geometric
// mean over the programs. Adds each failed cell's problem to `problems`
// (once: for the wall-time table).
void PrintRatios(bool wall, const std::vector<ad::RealProgram>& programs,
                 const std::vector<Allocator>& allocators, const Table& table,
                 int repetitions, std::vector<std::string>& problems) {
  printf("\n%s, median of %d runs, as a ratio to glibc's (glibc's in %s)\n",
         wall ? "wall time" : "peak RSS", repetitions,
         wall ? "seconds" : "MiB");
  printf("%-22s", "program");
  for (const Allocator& a : allocators) printf(" %10s", a.name.c_str());
  printf("\n");
  std::vector<double> log_sum(allocators.size(), 0);
  std::vector<int> counted(allocators.size(), 0);
  for (size_t p = 0; p < programs.size(); ++p) {
    printf("%-22s", programs[p].name.c_str());
    const Cell& glibc = table.cells[p][0];
    const double base = glibc.problem.empty()
                            ? Median(wall ? glibc.wall_s : glibc.peak_rss_kib)
                            : NAN;
    for (size_t a = 0; a < allocators.size(); ++a) {
      const Cell& cell = table.cells[p][a];
      if (!cell.problem.empty()) {
        printf(" %10s", "FAILED");
        if (wall) problems.push_back(cell.problem);
        continue;
      }
      const double value = Median(wall ? cell.wall_s : cell.peak_rss_kib);
      if (a == 0) {
        printf(" %10s", wall ? absl::StrFormat("%.3f s", value).c_str()
                             : absl::StrFormat("%.1f", value / 1024).c_str());
        continue;
      }
      const double ratio = value / base;
      if (std::isfinite(ratio) && ratio > 0) {
        log_sum[a] += std::log(ratio);
        ++counted[a];
      }
      printf(" %9.2fx", ratio);
    }
    printf("\n");
  }
  printf("%-22s %10s", "geometric mean", "");
  for (size_t a = 1; a < allocators.size(); ++a) {
    if (counted[a] == 0) {
      printf(" %10s", "n/a");
    } else {
      printf(" %9.2fx", std::exp(log_sum[a] / counted[a]));
    }
  }
  printf("\n");
}

// PrintFootnotes()
//
// What each program does, which library each column preloaded, the fork's
// floor under peak RSS, and the load average around the runs.
void PrintFootnotes(const std::vector<ad::RealProgram>& programs,
                    const std::vector<Allocator>& allocators,
                    const Table& table, double load_before, double load_after) {
  printf("\n");
  for (const ad::RealProgram& p : programs) {
    printf("%-22s %s\n", p.name.c_str(), p.what.c_str());
  }
  for (const Allocator& a : allocators) {
    if (!a.preload.empty())
      printf("%s: %s\n", a.name.c_str(), a.preload.c_str());
  }
  printf(
      "peak RSS counts from the fork (child_run.h): a program that peaks "
      "below this program's own %.1f MiB at the fork shows that floor\n",
      static_cast<double>(table.launcher_rss_kib) / 1024);
  printf(
      "load average %.2f at the start, %.2f at the end (a busy "
      "machine makes every ratio noisier)\n",
      load_before, load_after);
}

absl::Status Run() {
  const int repetitions = absl::GetFlag(FLAGS_repetitions);
  if (repetitions < 1) {
    return absl::InvalidArgumentError("--repetitions must be at least 1");
  }
  absl::StatusOr<std::vector<Allocator>> allocators = Allocators();
  if (!allocators.ok()) return allocators.status();
  char scratch[] = "/tmp/real_programs_XXXXXX";
  if (mkdtemp(scratch) == nullptr) {
    return absl::ErrnoToStatus(errno, "mkdtemp");
  }
  absl::StatusOr<std::vector<ad::RealProgram>> programs =
      ad::RealPrograms(scratch);
  if (!programs.ok()) return programs.status();

  const double load_before = LoadAverage();
  const Table table = Measure(*programs, *allocators, repetitions);
  const double load_after = LoadAverage();
  std::vector<std::string> problems;
  for (const bool wall : {true, false}) {
    PrintRatios(wall, *programs, *allocators, table, repetitions, problems);
  }
  PrintFootnotes(*programs, *allocators, table, load_before, load_after);
  for (const std::string& problem : problems) {
    printf("FAILED: %s\n", problem.c_str());
  }
  return problems.empty() ? absl::OkStatus()
                          : absl::InternalError(
                                "a program failed or printed other output "
                                "than under glibc's malloc (above)");
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "The real programs of labs/allocator_design/real_programs.h under "
      "glibc, jemalloc, tcmalloc, mimalloc and your libyours.so: time and "
      "peak RSS as ratios to glibc's.");
  const std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    fprintf(stderr, "real_programs_table: unexpected argument %s\n", rest[1]);
    return 2;
  }
  const absl::Status status = Run();
  if (!status.ok()) {
    fprintf(stderr, "real_programs_table: %s\n",
            std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
