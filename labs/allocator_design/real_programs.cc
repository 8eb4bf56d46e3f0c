// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/allocator_design/real_programs.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/child_run.h"
#include "common/stats/pseudo_random.h"

namespace allocator_design {
namespace {

// Debian's own Python (tools/setup.sh's python3), not whichever one a
// user's PATH finds first.
constexpr char kPython[] = "/usr/bin/python3";

// A str grown by appends of 4 KiB to 4 MiB: CPython resizes a str it holds
// the only reference to in place, with realloc, at each +=.
constexpr char kStrAppends[] = R"(import zlib
def grow():
    s = ''
    for i in range(1024):
        s += chr(97 + i % 26) * 4096
    return s
s = grow()
print(len(s), zlib.crc32(s.encode()))
)";

// A pool of two forked workers, each result (512 KiB) pickled back through
// a pipe and read into a growing buffer.
constexpr char kProcessPool[] = R"(import multiprocessing, zlib
def work(i):
    return (bytes(range(i % 256, 256)) + bytes(range(i % 256))) * 2048
with multiprocessing.get_context('fork').Pool(2) as pool:
    for i, b in enumerate(pool.map(work, range(32))):
        print(i, len(b), zlib.crc32(b))
)";

// SQLite (the library python3's sqlite3 module links) inserting and
// indexing rows in memory, then grouping them.
constexpr char kSqlite[] = R"(import sqlite3
db = sqlite3.connect(':memory:')
db.execute('CREATE TABLE t (k INTEGER, word TEXT, n REAL)')
db.executemany('INSERT INTO t VALUES (?, ?, ?)',
               ((i * 7919 % 100003, 'w%d' % (i * 31 % 997), i / 7)
                for i in range(50000)))
db.execute('CREATE INDEX t_word ON t (word, k)')
for row in db.execute('SELECT word, COUNT(*), SUM(k), MAX(n) FROM t '
                      'GROUP BY word ORDER BY word LIMIT 50'):
    print(*row)
print(*db.execute("SELECT COUNT(DISTINCT k), SUM(k) FROM t "
                  "WHERE word > 'w5'").fetchone())
)";

// The input of sort and gzip: lines of a word and a number. 200,000 lines,
// so that sort --parallel=2 sorts with two threads: coreutils' sort
// (9.4's sort.c, SUBTHREAD_LINES_HEURISTIC) splits a sort between threads
// only from 128 Ki lines.
constexpr int kInputLines = 200000;

absl::StatusOr<std::string> WriteInput(absl::string_view scratch_dir) {
  static constexpr absl::string_view kWords[] = {
      "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"};
  const std::string path = absl::StrCat(scratch_dir, "/real_programs.txt");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  alloclab::XorShift64 random(/*seed=*/26);
  for (int i = 0; i < kInputLines; ++i) {
    const uint64_t r = random.Next();
    out << kWords[r % 8] << ' ' << (r >> 8) % 1000000 << '\n';
  }
  out.close();
  if (!out) {
    return absl::InternalError(
        absl::StrCat("cannot write the real programs' input ", path));
  }
  return path;
}

// One line of output as a failure shows it: escaped, cut to 120 bytes.
std::string ShowLine(absl::string_view line) {
  constexpr size_t kShown = 120;
  std::string shown = absl::CHexEscape(line.substr(0, kShown));
  if (line.size() > kShown) shown += "...";
  return absl::StrCat("'", shown, "'");
}

}  // namespace

absl::StatusOr<std::vector<RealProgram>> RealPrograms(
    absl::string_view scratch_dir) {
  absl::StatusOr<std::string> input = WriteInput(scratch_dir);
  if (!input.ok()) return input.status();
  return std::vector<RealProgram>{
      {"python_str_appends",
       "python3: a str grown by 4 KiB appends to 4 MiB (realloc)",
       {kPython, "-c", kStrAppends}},
      {"python_process_pool",
       "python3: multiprocessing pool of 2 forked workers, 16 MiB of "
       "results through pipes",
       {kPython, "-c", kProcessPool}},
      {"python_sqlite",
       "python3's sqlite3: 50,000 rows inserted, indexed and grouped in "
       "memory",
       {kPython, "-c", kSqlite}},
      {"sort_parallel",
       "sort --parallel=2 of 200,000 lines (two threads)",
       {"sort", "--parallel=2", "-S", "32M", *input}},
      {"gzip",
       "gzip -1 of the same 200,000 lines",
       {"gzip", "-1", "-n", "-c", *input}},
  };
}

absl::StatusOr<alloclab::ChildRun> RunRealProgram(const RealProgram& program,
                                                  absl::string_view preload) {
  alloclab::ChildCommand command;
  command.argv = program.argv;
  command.env = {{"LC_ALL", "C"}, {"PYTHONHASHSEED", "0"}};
  if (!preload.empty()) command.env.emplace_back("LD_PRELOAD", preload);
  absl::StatusOr<alloclab::ChildRun> run = alloclab::RunChild(command);
  if (!run.ok()) {
    return absl::Status(
        run.status().code(),
        absl::StrCat(program.name, " (", program.what, ") under ",
                     preload.empty() ? "glibc's malloc" : preload, ": ",
                     run.status().message(),
                     absl::IsNotFound(run.status())
                         ? " (sudo tools/setup.sh installs every program)"
                         : ""));
  }
  return run;
}

std::string FirstDifference(absl::string_view glibc, absl::string_view other) {
  if (glibc == other) return "";
  size_t line = 1;
  size_t at = 0;
  while (true) {
    const size_t glibc_end = glibc.find('\n', at);
    const size_t other_end = other.find('\n', at);
    const absl::string_view a = glibc.substr(at, glibc_end - at);
    const absl::string_view b = other.substr(at, other_end - at);
    if (a == b && glibc_end != other_end) {
      return absl::StrCat("line ", line, ": ", ShowLine(a), " in both, ",
                          glibc_end == absl::string_view::npos
                              ? "and glibc's output ends without a newline"
                              : "and this output ends without a newline");
    }
    if (a != b) {
      if (at >= glibc.size()) {
        return absl::StrCat("line ", line, ": glibc's output has ended, ",
                            "this one goes on with ", ShowLine(b));
      }
      if (at >= other.size()) {
        return absl::StrCat("line ", line, ": this output has ended, ",
                            "glibc's goes on with ", ShowLine(a));
      }
      return absl::StrCat("line ", line, ": glibc's ", ShowLine(a),
                          ", this one's ", ShowLine(b));
    }
    // Equal lines that both end the output: the outputs are the same.
    if (glibc_end == absl::string_view::npos) return "";
    at = glibc_end + 1;
    ++line;
  }
}

}  // namespace allocator_design
