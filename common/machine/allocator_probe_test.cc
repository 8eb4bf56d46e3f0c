// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The allocator probe, tested where it matters: in child processes started
// with each allocator preloaded, as the jemalloc_adoption lab starts them.
// The allocators are those tools/setup.sh installs; a missing one fails here
// with the package to install, as the lab would.

#include "common/machine/allocator_probe.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/harness/child_run.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;

std::string Runfile(const std::string& path) {
  absl::StatusOr<std::string> found = FindRunfile(path);
  return found.ok() ? *found : path;
}

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  mkdir(dir.c_str(), 0755);
  return dir;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// which_malloc, run with `env`: the provider it reports.
absl::StatusOr<MallocProvider> ProviderInChild(
    std::vector<std::pair<std::string, std::string>> env) {
  ChildCommand command;
  command.argv = {Runfile("common/machine/which_malloc")};
  command.env = std::move(env);
  absl::StatusOr<ChildRun> run = RunChild(command);
  if (!run.ok()) return run.status();
  return ParseProviderLine(run->stdout_text);
}

TEST(KnownAllocatorsTest, EveryAllocatorButGlibcNamesItsLibraryAndPackage) {
  std::vector<std::string> names;
  for (const AllocatorSpec& spec : KnownAllocators()) {
    names.push_back(spec.name);
    if (spec.name == "glibc") {
      EXPECT_TRUE(spec.libraries.empty());
      continue;
    }
    ASSERT_FALSE(spec.libraries.empty()) << spec.name;
    for (const AllocatorLibrary& library : spec.libraries) {
      EXPECT_THAT(library.soname, HasSubstr(".so.")) << spec.name;
      EXPECT_FALSE(library.debian_packages.empty()) << spec.name;
    }
    EXPECT_THAT(spec.dev_package, ::testing::EndsWith("-dev")) << spec.name;
  }
  EXPECT_THAT(names, ::testing::ElementsAre("glibc", "jemalloc", "tcmalloc",
                                            "mimalloc"));
}

TEST(FindAllocatorTest, UnknownNameListsTheKnownOnes) {
  absl::StatusOr<const AllocatorSpec*> spec = FindAllocator("hoard");
  ASSERT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(), HasSubstr("hoard"));
  EXPECT_THAT(spec.status().message(), HasSubstr("jemalloc"));
}

TEST(IdentifyAllocatorFileTest, ByFileName) {
  EXPECT_EQ(IdentifyAllocatorFile("/lib/x86_64-linux-gnu/libc.so.6"), "glibc");
  EXPECT_EQ(IdentifyAllocatorFile("/usr/lib/libjemalloc.so.2"), "jemalloc");
  EXPECT_EQ(IdentifyAllocatorFile("/opt/lib/libjemalloc.so"), "jemalloc");
  EXPECT_EQ(IdentifyAllocatorFile("libtcmalloc_minimal.so.4.5.10"), "tcmalloc");
  EXPECT_EQ(IdentifyAllocatorFile("/lib/libtcmalloc.so.4"), "tcmalloc");
  EXPECT_EQ(IdentifyAllocatorFile("/lib/libmimalloc.so.2.0"), "mimalloc");
  EXPECT_EQ(IdentifyAllocatorFile("/lib/libasan.so.8"), "unknown");
  EXPECT_EQ(IdentifyAllocatorFile("/lib/libjemallocator.so.1"), "unknown");
  EXPECT_EQ(IdentifyAllocatorFile("/home/me/a.out"), "unknown");
}

// Lab allocator_design's library, wherever Bazel put it; only that name.
TEST(IdentifyAllocatorFileTest, KnowsTheLearnersLibrary) {
  EXPECT_EQ(IdentifyAllocatorFile("/home/me/.cache/bazel/execroot/"
                                  "bin/labs/allocator_design/libyours.so"),
            "yours");
  EXPECT_EQ(IdentifyAllocatorFile("libyours.so"), "yours");
  EXPECT_EQ(IdentifyAllocatorFile("/lib/libyours.so.1"), "unknown");
  EXPECT_EQ(IdentifyAllocatorFile("/lib/libyoursandmine.so"), "unknown");
}

// "yours" is no installed allocator: neither a spec nor a search finds it,
// and the refusal says where it comes from.
TEST(FindAllocatorTest, TheLearnersAllocatorIsNeverInstalled) {
  absl::StatusOr<const AllocatorSpec*> spec = FindAllocator(kYoursAllocator);
  ASSERT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(), HasSubstr("allocator_design"));
  EXPECT_THAT(spec.status().message(), HasSubstr("libyours.so"));
  const std::string dir = TempDir("fake_lib_yours");
  WriteFile(dir + "/libyours.so", "");
  absl::StatusOr<LocatedAllocator> located =
      LocateAllocator(kYoursAllocator, LibrarySearch{"", {dir}});
  EXPECT_EQ(located.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ProviderLineTest, RoundTripsThroughAChildsOutput) {
  MallocProvider provider{"/opt/my libs/libjemalloc.so.2", "jemalloc"};
  const std::string output =
      absl::StrCat("work done\n", ProviderLine(provider), "\nchecksum 42\n");
  absl::StatusOr<MallocProvider> parsed = ParseProviderLine(output);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->allocator, "jemalloc");
  EXPECT_EQ(parsed->path, "/opt/my libs/libjemalloc.so.2");
  EXPECT_EQ(ParseProviderLine("no line here\n").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(LocateAllocatorTest, FindsTheLibraryInAFakeSearchPath) {
  const std::string dir = TempDir("fake_lib_found");
  WriteFile(dir + "/libjemalloc.so.2", "not really a library");
  absl::StatusOr<LocatedAllocator> located =
      LocateAllocator("jemalloc", LibrarySearch{"", {"/nonexistent", dir}});
  ASSERT_TRUE(located.ok()) << located.status();
  EXPECT_EQ(located->path, dir + "/libjemalloc.so.2");
  EXPECT_EQ(located->debian_package, "libjemalloc2");
  EXPECT_EQ(located->spec->name, "jemalloc");
}

TEST(LocateAllocatorTest, TakesTcmallocsSecondLibraryWhenTheFirstIsMissing) {
  const std::string dir = TempDir("fake_lib_tcmalloc");
  WriteFile(dir + "/libtcmalloc.so.4", "");
  absl::StatusOr<LocatedAllocator> located =
      LocateAllocator("tcmalloc", LibrarySearch{"", {dir}});
  ASSERT_TRUE(located.ok()) << located.status();
  EXPECT_EQ(located->path, dir + "/libtcmalloc.so.4");
  // Debian 13 renamed the package (64-bit time_t); the installed name wins.
  EXPECT_THAT(
      located->debian_package,
      ::testing::AnyOf("libgoogle-perftools4t64", "libgoogle-perftools4"));
}

// Debian 13 ships mimalloc 3 (libmimalloc.so.3), Debian 12 mimalloc 2.
TEST(LocateAllocatorTest, FindsMimalloc3AndMimalloc2) {
  const std::string three = TempDir("fake_lib_mimalloc3");
  WriteFile(three + "/libmimalloc.so.3", "");
  absl::StatusOr<LocatedAllocator> located =
      LocateAllocator("mimalloc", LibrarySearch{"", {three}});
  ASSERT_TRUE(located.ok()) << located.status();
  EXPECT_EQ(located->path, three + "/libmimalloc.so.3");
  EXPECT_EQ(located->debian_package, "libmimalloc3");

  const std::string two = TempDir("fake_lib_mimalloc2");
  WriteFile(two + "/libmimalloc.so.2", "");
  located = LocateAllocator("mimalloc", LibrarySearch{"", {two}});
  ASSERT_TRUE(located.ok()) << located.status();
  EXPECT_EQ(located->path, two + "/libmimalloc.so.2");
  EXPECT_EQ(located->debian_package, "libmimalloc2.0");
}

TEST(LocateAllocatorTest, MissingLibraryNamesTheDebianPackage) {
  const std::string dir = TempDir("fake_lib_empty");
  absl::StatusOr<LocatedAllocator> located = LocateAllocator(
      "mimalloc", LibrarySearch{dir + "/no_ld.so.cache", {dir}});
  ASSERT_EQ(located.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(located.status().message(),
              HasSubstr("libmimalloc.so.3 (Debian package libmimalloc3)"));
  EXPECT_THAT(located.status().message(),
              HasSubstr("libmimalloc.so.2 (Debian package libmimalloc2.0)"));
  // The command that works on both releases.
  EXPECT_THAT(located.status().message(),
              HasSubstr("apt-get install libmimalloc-dev"));
  EXPECT_THAT(located.status().message(), HasSubstr(dir));
}

TEST(LocateAllocatorTest, GlibcNeedsNoPreload) {
  absl::StatusOr<LocatedAllocator> located =
      LocateAllocator("glibc", LibrarySearch{"", {}});
  ASSERT_TRUE(located.ok()) << located.status();
  EXPECT_EQ(located->path, "");
}

TEST(LocateAllocatorTest, UnknownAllocatorIsInvalid) {
  EXPECT_EQ(LocateAllocator("jemalloc2").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ReadLdCacheTest, MissingAndForeignFilesAreErrors) {
  const std::string dir = TempDir("ld_cache_errors");
  EXPECT_EQ(ReadLdCache(dir + "/none").status().code(),
            absl::StatusCode::kNotFound);
  WriteFile(dir + "/garbage", std::string(100, 'x'));
  EXPECT_EQ(ReadLdCache(dir + "/garbage").status().code(),
            absl::StatusCode::kDataLoss);
}

// A cache written by the real ldconfig, with one directory of our own in
// it: the reader must find our entry, with the ABI of the C library.
TEST(ReadLdCacheTest, ReadsACacheWrittenByLdconfig) {
  const char* ldconfig = "/sbin/ldconfig";
  struct stat st;
  if (stat(ldconfig, &st) != 0) {
    GTEST_SKIP() << "assumes glibc's " << ldconfig
                 << " (Debian's libc-bin); not on this machine";
  }
  absl::StatusOr<LocatedAllocator> real = LocateAllocator("jemalloc");
  ASSERT_TRUE(real.ok()) << real.status();
  const std::string dir = TempDir("ld_cache_fixture");
  const std::string lib_dir = dir + "/lib";
  mkdir(lib_dir.c_str(), 0755);
  std::ifstream in(real->path, std::ios::binary);
  std::ofstream(lib_dir + "/libjemalloc.so.2", std::ios::binary) << in.rdbuf();
  ChildCommand command;
  // -i: no auxiliary cache in /var/cache, which needs root.
  command.argv = {ldconfig, "-i",        "-C",   dir + "/cache",
                  "-f",     "/dev/null", lib_dir};
  absl::StatusOr<ChildRun> run = RunChild(command);
  ASSERT_TRUE(run.ok()) << run.status();

  absl::StatusOr<std::vector<LdCacheEntry>> cache = ReadLdCache(dir + "/cache");
  ASSERT_TRUE(cache.ok()) << cache.status();
  const LdCacheEntry* ours = nullptr;
  const LdCacheEntry* libc = nullptr;
  for (const LdCacheEntry& entry : *cache) {
    if (entry.path == lib_dir + "/libjemalloc.so.2") ours = &entry;
    if (entry.soname == "libc.so.6") libc = &entry;
  }
  ASSERT_NE(ours, nullptr) << "no entry for " << lib_dir;
  EXPECT_EQ(ours->soname, "libjemalloc.so.2");
  ASSERT_NE(libc, nullptr);
  EXPECT_EQ(ours->flags, libc->flags);
}

TEST(ProbeMallocTest, WithoutPreloadGlibcServesMalloc) {
  if (kSanitizerServesMalloc != nullptr) GTEST_SKIP() << kSanitizerServesMalloc;
  absl::StatusOr<MallocProvider> here = ProbeMalloc();
  ASSERT_TRUE(here.ok()) << here.status();
  EXPECT_EQ(here->allocator, "glibc") << here->path;
  absl::StatusOr<MallocProvider> child = ProviderInChild({});
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(child->allocator, "glibc") << child->path;
}

class PreloadTest : public testing::TestWithParam<std::string> {};

TEST_P(PreloadTest, ChildReportsThePreloadedAllocator) {
  if (kSanitizerServesMalloc != nullptr) GTEST_SKIP() << kSanitizerServesMalloc;
  absl::StatusOr<LocatedAllocator> located = LocateAllocator(GetParam());
  ASSERT_TRUE(located.ok()) << located.status();
  absl::StatusOr<MallocProvider> child =
      ProviderInChild({{"LD_PRELOAD", located->path}});
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(child->allocator, GetParam()) << child->path;
}

INSTANTIATE_TEST_SUITE_P(Allocators, PreloadTest,
                         testing::Values("jemalloc", "tcmalloc", "mimalloc"),
                         [](const auto& info) { return info.param; });

// A program that wraps malloc (the allocation counter) forwards to the next
// definition: the probe names that one, and the program as the wrapper.
TEST(ProbeMallocTest, SeesThroughAProgramThatWrapsMalloc) {
  if (kSanitizerServesMalloc != nullptr) GTEST_SKIP() << kSanitizerServesMalloc;
  absl::StatusOr<LocatedAllocator> jemalloc = LocateAllocator("jemalloc");
  ASSERT_TRUE(jemalloc.ok()) << jemalloc.status();
  for (const auto& [preload, expected] :
       std::vector<std::pair<std::string, std::string>>{
           {"", "glibc"}, {jemalloc->path, "jemalloc"}}) {
    ChildCommand command;
    command.argv = {Runfile("common/machine/which_malloc_counted")};
    if (!preload.empty()) command.env = {{"LD_PRELOAD", preload}};
    absl::StatusOr<ChildRun> run = RunChild(command);
    ASSERT_TRUE(run.ok()) << run.status();
    absl::StatusOr<MallocProvider> child = ParseProviderLine(run->stdout_text);
    ASSERT_TRUE(child.ok()) << child.status();
    EXPECT_EQ(child->allocator, expected) << run->stdout_text;
    EXPECT_THAT(run->stdout_text, HasSubstr("wrapped_by: /"));
    EXPECT_THAT(run->stdout_text, HasSubstr("which_malloc_counted"));
  }
}

// ld.so only warns about a preload it cannot open, and runs the program
// on glibc's malloc: the reason every measured row is verified.
TEST(ProbeMallocTest, ABadPreloadPathLeavesGlibcInCharge) {
  if (kSanitizerServesMalloc != nullptr) GTEST_SKIP() << kSanitizerServesMalloc;
  ChildCommand command;
  command.argv = {Runfile("common/machine/which_malloc")};
  command.env = {{"LD_PRELOAD", "/nonexistent/libjemalloc.so.2"}};
  absl::StatusOr<ChildRun> run = RunChild(command);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->stderr_text, HasSubstr("cannot be preloaded"));
  absl::StatusOr<MallocProvider> child = ParseProviderLine(run->stdout_text);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(child->allocator, "glibc");
}

}  // namespace
}  // namespace alloclab
