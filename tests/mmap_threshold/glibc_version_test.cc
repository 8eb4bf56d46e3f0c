// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The release rule of labs/mmap_threshold/glibc_version.h on fixture
// version strings: what glibc 2.34 and earlier refuse, 2.35 and later
// accept, whatever glibc this machine has.

#include "labs/mmap_threshold/glibc_version.h"

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "labs/mmap_threshold/task.h"

namespace mmap_threshold {
namespace {

TEST(LargestFixedThresholdTest, ReleasesUpTo234StopAtTheDynamicCeiling) {
  for (const char *version : {"2.17", "2.28", "2.31", "2.34", "1.99"}) {
    EXPECT_EQ(LargestFixedThreshold(version).value(), kMmapThresholdMax)
        << "glibc " << version << " refuses a threshold above HEAP_MAX_SIZE/2";
  }
}

TEST(LargestFixedThresholdTest, ReleasesFrom235TakeMalloptsInt) {
  for (const char *version : {"2.35", "2.36", "2.41", "2.40.9000", "3.0"}) {
    EXPECT_EQ(LargestFixedThreshold(version).value(), kFixedThresholdMax)
        << "glibc " << version << " lifted the 32 MiB limit (BZ #27801)";
  }
}

TEST(LargestFixedThresholdTest, TheInstalledVersionParses) {
  const absl::StatusOr<size_t> largest =
      LargestFixedThreshold(InstalledGlibcVersion());
  ASSERT_TRUE(largest.ok()) << largest.status();
  EXPECT_GE(*largest, kMmapThresholdMax);
}

TEST(ParseGlibcVersionTest, ReadsMajorAndMinor) {
  const absl::StatusOr<GlibcRelease> r = ParseGlibcVersion("2.36");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->major, 2);
  EXPECT_EQ(r->minor, 36);
}

TEST(ParseGlibcVersionTest, RefusesWhatIsNotAVersion) {
  for (const char *bad :
       {"", "2", "2.", ".36", "two.36", "2.+36", " 2.36", "2.36beta"}) {
    const absl::StatusOr<GlibcRelease> r = ParseGlibcVersion(bad);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument)
        << "\"" << bad << "\"";
  }
}

}  // namespace
}  // namespace mmap_threshold
