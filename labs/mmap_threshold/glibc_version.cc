// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/mmap_threshold/glibc_version.h"

#include <gnu/libc-version.h>

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "labs/mmap_threshold/task.h"

namespace mmap_threshold {
namespace {

// True if `s` is one or more decimal digits, and nothing else.
bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<GlibcRelease> ParseGlibcVersion(absl::string_view version) {
  const std::vector<absl::string_view> parts = absl::StrSplit(version, '.');
  GlibcRelease release;
  if (parts.size() < 2 || !AllDigits(parts[0]) || !AllDigits(parts[1]) ||
      !absl::SimpleAtoi(parts[0], &release.major) ||
      !absl::SimpleAtoi(parts[1], &release.minor)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", version, "\" is not a glibc version (expected e.g. \"2.36\")"));
  }
  return release;
}

absl::string_view InstalledGlibcVersion() { return gnu_get_libc_version(); }

absl::StatusOr<size_t> LargestFixedThreshold(absl::string_view version) {
  const absl::StatusOr<GlibcRelease> release = ParseGlibcVersion(version);
  if (!release.ok()) return release.status();
  const GlibcRelease &first = kFirstReleaseAboveDynamicMax;
  const bool lifted =
      release->major > first.major ||
      (release->major == first.major && release->minor >= first.minor);
  return lifted ? kFixedThresholdMax : kMmapThresholdMax;
}

}  // namespace mmap_threshold
