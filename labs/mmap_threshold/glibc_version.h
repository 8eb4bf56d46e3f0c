// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: glibc_version.h
// -----------------------------------------------------------------------------
//
// What this machine's glibc does with a fixed mmap threshold above the
// 32 MiB ceiling of the dynamic adjustment (kMmapThresholdMax). The answer
// depends on the release: glibc 2.34 and earlier refuse any threshold above
// HEAP_MAX_SIZE / 2 (32 MiB on 64-bit systems), in mallopt(M_MMAP_THRESHOLD)
// (which returns 0 and changes nothing) and in the
// glibc.malloc.mmap_threshold tunable alike; glibc 2.35 dropped that limit
// (BZ #27801), so from 2.35 on mallopt() takes anything its int can hold.
//
// The rule lives here, once: the tests of lab mmap_threshold ask it what
// the installed glibc must answer, and a test of its own checks it on
// fixture version strings, so that it stays right for releases this machine
// does not have.
//
// Example:
//
//   const size_t largest = mmap_threshold::LargestFixedThreshold(
//       mmap_threshold::InstalledGlibcVersion()).value();
//   // 2.36 here: kFixedThresholdMax. On 2.31: kMmapThresholdMax.

#ifndef ALLOCLAB_LABS_MMAP_THRESHOLD_GLIBC_VERSION_H_
#define ALLOCLAB_LABS_MMAP_THRESHOLD_GLIBC_VERSION_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmap_threshold {

// GlibcRelease
//
// A glibc release, as gnu_get_libc_version() names it: "2.36" is {2, 36}.
struct GlibcRelease {
  int major = 0;
  int minor = 0;
};

// kFirstReleaseAboveDynamicMax
//
// The first glibc release that accepts a fixed threshold above
// kMmapThresholdMax: 2.35.
inline constexpr GlibcRelease kFirstReleaseAboveDynamicMax = {2, 35};

// ParseGlibcVersion()
//
// Reads "2.36" (or "2.36.9000", a development build) as {2, 36}. Errors:
// InvalidArgument for anything else, the message quoting the string.
absl::StatusOr<GlibcRelease> ParseGlibcVersion(absl::string_view version);

// InstalledGlibcVersion()
//
// The version of the glibc this process runs on: gnu_get_libc_version().
absl::string_view InstalledGlibcVersion();

// LargestFixedThreshold()
//
// The largest threshold, in bytes, that glibc `version` lets
// mallopt(M_MMAP_THRESHOLD) fix: kMmapThresholdMax for 2.34 and earlier,
// kFixedThresholdMax (mallopt()'s int) from 2.35 on. Errors: those of
// ParseGlibcVersion().
absl::StatusOr<size_t> LargestFixedThreshold(absl::string_view version);

}  // namespace mmap_threshold

#endif  // ALLOCLAB_LABS_MMAP_THRESHOLD_GLIBC_VERSION_H_
