// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The version probes on this machine, and the version rules on the versions
// of Debian 12 and 13 (and older ones): each rule is checked on both sides
// of its boundary, whatever is installed here.

#include "common/machine/versions.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/debian_packages.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

const char kStatus[] = "common/machine/testdata/dpkg_status";

TEST(CompareVersionsTest, ComparesPartsAsNumbers) {
  EXPECT_EQ(CompareVersions("1.2.10", "1.2.9"), 1);
  EXPECT_EQ(CompareVersions("1.2.3", "1.2.4"), -1);
  EXPECT_EQ(CompareVersions("2.35", "2.35.0"), 0);
  EXPECT_EQ(CompareVersions("5.3.0-1", "5.3.0"), 0);
  EXPECT_EQ(CompareVersions("unavailable (no musl)", "1.2.4"), std::nullopt);
}

TEST(DebianPackagesTest, UpstreamVersion) {
  EXPECT_EQ(UpstreamVersion("1:2.0.9+ds-2"), "2.0.9");
  EXPECT_EQ(UpstreamVersion("5.3.0-1"), "5.3.0");
  EXPECT_EQ(UpstreamVersion("2.16-1"), "2.16");
  EXPECT_EQ(UpstreamVersion("4.2.3+ds-9"), "4.2.3");
  EXPECT_EQ(UpstreamVersion("1.2.3"), "1.2.3");
}

TEST(DebianPackagesTest, ReadsInstalledPackagesOnly) {
  EXPECT_EQ(DebianPackageVersion("libjemalloc2", kStatus).value_or("?"),
            "5.3.0");
  EXPECT_EQ(
      DebianPackageVersion("libtcmalloc-minimal4t64", kStatus).value_or("?"),
      "2.16")
      << "a continuation line of the description is not a field";
  EXPECT_EQ(DebianPackageVersion("musl", kStatus).value_or("?"), "1.2.5");
  // Removed, its configuration kept: not installed.
  EXPECT_EQ(DebianPackageVersion("libmimalloc3", kStatus).status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<std::string> missing =
      DebianPackageVersion("libjemalloc2", "/nonexistent/status");
  EXPECT_THAT(missing.status().message(), HasSubstr("not a Debian system"));
}

TEST(DebianPackagesTest, FirstInstalledPackage) {
  EXPECT_EQ(FirstInstalledPackage(
                {"libtcmalloc-minimal4t64", "libtcmalloc-minimal4"}, kStatus),
            "libtcmalloc-minimal4t64");
  EXPECT_EQ(FirstInstalledPackage({"libmimalloc3", "libmimalloc2.0"}, kStatus),
            "libmimalloc3")
      << "none installed: the newest name, for a message";
  EXPECT_EQ(FirstInstalledPackage({}, kStatus), "");
}

TEST(MuslTest, ParsesTheLoadersBanner) {
  EXPECT_EQ(ParseMuslLoaderBanner("musl libc (x86_64)\nVersion 1.2.3\n"
                                  "Dynamic Program Loader\nUsage: ...")
                .value_or("?"),
            "1.2.3");
  EXPECT_EQ(ParseMuslLoaderBanner("musl libc (aarch64)\nVersion 1.2.5\n")
                .value_or("?"),
            "1.2.5");
  EXPECT_EQ(ParseMuslLoaderBanner("ld.so: no such program").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(MuslTest, MissingLoaderNamesThePackage) {
  absl::StatusOr<std::string> v = MuslVersion("/nonexistent/ld-musl.so.1");
  ASSERT_EQ(v.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(v.status().message(), HasSubstr("musl-tools"));
}

// Where musl is installed (tools/setup.sh installs it), its loader answers
// a version, and that version is the one Debian's package says.
TEST(MuslTest, InstalledMuslAnswersAVersion) {
  absl::StatusOr<std::string> v = MuslVersion();
  if (v.status().code() == absl::StatusCode::kNotFound) {
    GTEST_SKIP() << v.status();
  }
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_THAT(*v, MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+"));
  absl::StatusOr<std::string> package = DebianPackageVersion("musl");
  if (package.ok()) {
    EXPECT_EQ(*v, *package);
  }
}

TEST(VersionRulesTest, MuslMadvFreeEndsAt124) {
  EXPECT_TRUE(MuslFreeUsesMadvFree("1.2.3"));  // Debian 12
  EXPECT_FALSE(MuslFreeUsesMadvFree("1.2.4"));
  EXPECT_FALSE(MuslFreeUsesMadvFree("1.2.5"));  // Debian 13
  EXPECT_FALSE(MuslFreeUsesMadvFree("unavailable (no musl)"));
}

TEST(VersionRulesTest, GlibcLargeFixedThresholdFrom235) {
  EXPECT_FALSE(GlibcAcceptsFixedThresholdAbove32MiB("2.31"));
  EXPECT_FALSE(GlibcAcceptsFixedThresholdAbove32MiB("2.34"));
  EXPECT_TRUE(GlibcAcceptsFixedThresholdAbove32MiB("2.35"));
  EXPECT_TRUE(GlibcAcceptsFixedThresholdAbove32MiB("2.36"));  // Debian 12
  EXPECT_TRUE(GlibcAcceptsFixedThresholdAbove32MiB("2.41"));  // Debian 13
}

TEST(VersionRulesTest, GlibcTcacheFrom226) {
  EXPECT_FALSE(GlibcHasTcache("2.17"));
  EXPECT_TRUE(GlibcHasTcache("2.26"));
}

TEST(VersionNotesTest, SaysWhatGlibcChangesForEveryLab) {
  const std::vector<std::string> old_stack = VersionNotes(
      {{"glibc", "2.17"}, {"musl", "1.2.3"}, {"mimalloc", "2.0.9"}});
  ASSERT_EQ(old_stack.size(), 1u);
  EXPECT_THAT(old_stack[0], HasSubstr("glibc 2.17: no per-thread cache"));
  const std::vector<std::string> trixie = VersionNotes(
      {{"glibc", "2.41"}, {"musl", "1.2.5"}, {"mimalloc", "3.0.1"}});
  ASSERT_EQ(trixie.size(), 1u);
  EXPECT_THAT(trixie[0], HasSubstr("glibc 2.41: per-thread cache"));
  EXPECT_TRUE(VersionNotes({{"musl", "unavailable (no musl)"}}).empty());
}

TEST(InstalledVersionTest, OnlyAVersionThatWasRead) {
  const std::vector<SoftwareVersion> versions = {
      {"glibc", "2.41"}, {"musl", "unavailable (no musl)"}};
  EXPECT_EQ(InstalledVersion(versions, "glibc"), "2.41");
  EXPECT_EQ(InstalledVersion(versions, "musl"), std::nullopt);
  EXPECT_EQ(InstalledVersion(versions, "mimalloc"), std::nullopt);
}

TEST(SoftwareVersionsTest, NamesEveryPieceWithAVersionOrAReason) {
  const std::vector<SoftwareVersion> versions = SoftwareVersions();
  std::vector<std::string> names;
  for (const SoftwareVersion& v : versions) {
    names.push_back(v.name);
    EXPECT_THAT(v.version,
                MatchesRegex("([0-9]+(\\.[0-9]+)*.*|unavailable \\(.+\\)|"
                             "unknown \\(.+\\))"))
        << v.name;
  }
  EXPECT_THAT(names, ::testing::ElementsAre("glibc", "musl", "GCC", "jemalloc",
                                            "gperftools", "mimalloc",
                                            "Benchmark", "Bazel"));
}

}  // namespace
}  // namespace alloclab
