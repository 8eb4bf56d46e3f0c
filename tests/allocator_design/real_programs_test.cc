// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Real programs under an implementation's libyours.so: each program of
// labs/allocator_design/real_programs.h runs once with glibc's malloc and
// once with the library in LD_PRELOAD, and must exit 0, print the same
// bytes, and keep its peak resident set within kRealProgramRssFactor times
// glibc's plus kRealProgramRssSlackKib. A failure names the program, how it
// ended (exit status or signal, the end of its stderr) or the first line
// where its output parts from glibc's. Among them a str grown by appends
// (realloc) and a process pool (fork): what lab jemalloc_adoption's
// workloads and the traces never ask of malloc.
//
// Usage: real_programs_test LIBRARY [gtest flags]
//
// Example:
//
//   bazel test //tests/allocator_design:real_programs_test
//   // [ RUN      ] RealPrograms.python_str_appends
//   // python_str_appends: same output as glibc's; peak RSS 21.7 MiB
//   //     (glibc's 16.7 MiB); 0.06 s (glibc's 0.04 s)

#include "labs/allocator_design/real_programs.h"

#include <limits.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "common/harness/child_run.h"
#include "gtest/gtest.h"

namespace {

namespace ad = allocator_design;

// The library under test: an absolute path, as LD_PRELOAD needs.
std::string library;

double MiB(int64_t kib) { return static_cast<double>(kib) / 1024.0; }

// What a failure says of two outputs: where they first part.
TEST(FirstDifference, SaysWhereTwoOutputsFirstPart) {
  EXPECT_EQ(ad::FirstDifference("a\nb\n", "a\nb\n"), "");
  EXPECT_EQ(ad::FirstDifference("", ""), "");
  EXPECT_EQ(ad::FirstDifference("a\nb\nc\n", "a\nx\nc\n"),
            "line 2: glibc's 'b', this one's 'x'");
  EXPECT_EQ(ad::FirstDifference("a\n", "a\nmore\n"),
            "line 2: glibc's output has ended, this one goes on with 'more'");
  EXPECT_EQ(ad::FirstDifference("a\nb\n", "a\n"),
            "line 2: this output has ended, glibc's goes on with 'b'");
  EXPECT_EQ(ad::FirstDifference("a\nb", "a\nb\n"),
            "line 2: 'b' in both, and glibc's output ends without a newline");
  EXPECT_EQ(ad::FirstDifference("\x1f\x8b", "\x1f\x8c"),
            "line 1: glibc's '\\x1f\\x8b', this one's '\\x1f\\x8c'");
}

// The dynamic linker only warns about a preload it cannot load, and runs
// the program on glibc's malloc: every check below would prove nothing.
// cat (coreutils) prints its own mappings; the library must be among them.
TEST(RealPrograms, TheLibraryIsPreloaded) {
  const ad::RealProgram cat = {
      "cat_maps", "cat /proc/self/maps", {"cat", "/proc/self/maps"}};
  absl::StatusOr<alloclab::ChildRun> run = ad::RunRealProgram(cat, library);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_TRUE(absl::StrContains(run->stdout_text, library))
      << library << " is not mapped in a program started with it in "
      << "LD_PRELOAD; its stderr: " << run->stderr_text;
}

class RealProgramTest : public testing::Test {
 public:
  explicit RealProgramTest(ad::RealProgram program)
      : program_(std::move(program)) {}

  void TestBody() override {
    // Under glibc first: a failure there is the machine's, not the
    // library's.
    absl::StatusOr<alloclab::ChildRun> glibc = ad::RunRealProgram(program_, "");
    ASSERT_TRUE(glibc.ok()) << "the program fails without the library: "
                            << glibc.status().message();
    fprintf(stderr, "running %s under %s\n", program_.name.c_str(),
            library.c_str());
    absl::StatusOr<alloclab::ChildRun> yours =
        ad::RunRealProgram(program_, library);
    ASSERT_TRUE(yours.ok()) << yours.status().message();
    const std::string difference =
        ad::FirstDifference(glibc->stdout_text, yours->stdout_text);
    EXPECT_EQ(difference, "")
        << program_.name << " (" << program_.what << ") under " << library
        << " printed other output than under glibc's malloc, from "
        << difference;
    const int64_t bound = ad::kRealProgramRssFactor * glibc->peak_rss_kib +
                          ad::kRealProgramRssSlackKib;
    EXPECT_LE(yours->peak_rss_kib, bound) << absl::StrFormat(
        "%s (%s) under %s peaked at %.1f MiB resident, past %d times "
        "glibc's %.1f MiB plus %.0f MiB: the allocator keeps what the "
        "program freed",
        program_.name, program_.what, library, MiB(yours->peak_rss_kib),
        ad::kRealProgramRssFactor, MiB(glibc->peak_rss_kib),
        MiB(ad::kRealProgramRssSlackKib));
    printf(
        "%s: %s; peak RSS %.1f MiB (glibc's %.1f MiB); %.2f s (glibc's "
        "%.2f s)\n",
        program_.name.c_str(),
        difference.empty() ? "same output as glibc's" : "OUTPUT DIFFERS",
        MiB(yours->peak_rss_kib), MiB(glibc->peak_rss_kib), yours->wall_s,
        glibc->wall_s);
  }

 private:
  ad::RealProgram program_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    fprintf(stderr, "usage: %s LIBRARY [gtest flags]\n", argv[0]);
    return 2;
  }
  char resolved[PATH_MAX];
  if (realpath(argv[1], resolved) == nullptr) {
    fprintf(stderr, "real_programs_test: no library at %s\n", argv[1]);
    return 2;
  }
  library = resolved;
  // Bazel's scratch directory, or one of this run's own when run by hand.
  const char* tmpdir = getenv("TEST_TMPDIR");
  char scratch[] = "/tmp/real_programs_XXXXXX";
  if (tmpdir == nullptr && (tmpdir = mkdtemp(scratch)) == nullptr) {
    perror("real_programs_test: mkdtemp");
    return 1;
  }
  absl::StatusOr<std::vector<ad::RealProgram>> programs =
      ad::RealPrograms(tmpdir);
  if (!programs.ok()) {
    fprintf(stderr, "real_programs_test: %s\n",
            std::string(programs.status().message()).c_str());
    return 1;
  }
  for (const ad::RealProgram& program : *programs) {
    testing::RegisterTest(
        "RealPrograms", program.name.c_str(), nullptr, nullptr, __FILE__,
        __LINE__,
        [program]() -> testing::Test* { return new RealProgramTest(program); });
  }
  return RUN_ALL_TESTS();
}
