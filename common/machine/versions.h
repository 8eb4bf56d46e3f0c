// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: versions.h
// -----------------------------------------------------------------------------
//
// The versions of the software a lab measures, probed from what is
// installed, and the course's version-dependent expectations, each in one
// function. An allocator's behaviour is a version's behaviour: musl 1.2.3
// calls madvise(MADV_FREE) where 1.2.5 does not; glibc 2.35 accepts a fixed
// mmap threshold above 32 MiB that 2.34 refuses. A lab that expects one of
// these asks the function here, never the release's name, and the chapter
// says which version does what.
//
// Every probe answers a version or says why it cannot ("unavailable (...)"):
//
//   - glibc: gnu_get_libc_version() of the C library this process runs on;
//   - musl: its dynamic loader, run with no arguments, prints "Version X"
//     (musl has no version macro, and its static libc.a no version string);
//   - GCC: the compiler that built this program (__VERSION__);
//   - jemalloc, tcmalloc (gperftools), mimalloc: the Debian package of the
//     library LocateAllocator() finds, from dpkg's status file;
//   - Bazel, Google Benchmark, GoogleTest, Abseil: recorded when the
//     workspace was loaded (third_party/build_facts.bzl).
//
// Example:
//
//   absl::StatusOr<std::string> musl = alloclab::MuslVersion();
//   if (musl.ok() && alloclab::MuslFreeUsesMadvFree(*musl)) {
//     // expect madvise calls from musl's free() at scale 256
//   }
//   for (const alloclab::SoftwareVersion& v : alloclab::SoftwareVersions()) {
//     std::cout << v.name << " " << v.version << "\n";
//   }

#ifndef ALLOCLAB_COMMON_MACHINE_VERSIONS_H_
#define ALLOCLAB_COMMON_MACHINE_VERSIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// CompareVersions()
//
// Compares dotted version numbers part by part, as numbers ("1.2.10" >
// "1.2.9"; a missing part is 0, so "2.35" == "2.35.0"); a part's trailing
// non-digits are ignored ("5.3.0-1" == "5.3.0"). Returns <0, 0 or >0;
// nullopt when either has no leading number.
std::optional<int> CompareVersions(absl::string_view a, absl::string_view b);

// GlibcVersion()
//
// "2.36": the glibc this process runs on; NotFound where it is not glibc.
absl::StatusOr<std::string> GlibcVersion();

// MuslLoaderPath()
//
// Where musl's dynamic loader is for this machine's architecture:
// "/lib/ld-musl-x86_64.so.1" on x86-64 (Debian's `musl` package, which
// musl-tools pulls in).
std::string MuslLoaderPath();

// ParseMuslLoaderBanner()
//
// The version in what musl's loader prints when run alone ("musl libc
// (x86_64)\nVersion 1.2.3\n..."); NotFound when there is no "Version" line.
absl::StatusOr<std::string> ParseMuslLoaderBanner(absl::string_view output);

// MuslVersion()
//
// "1.2.3": runs the loader at `loader` (default MuslLoaderPath()) and reads
// its banner. NotFound, naming the package, when the loader is missing.
absl::StatusOr<std::string> MuslVersion(absl::string_view loader = {});

// CompilerVersion()
//
// "GCC 12.2.0": the compiler that built this program.
std::string CompilerVersion();

// AllocatorVersion()
//
// The version of allocator `name` ("jemalloc", "tcmalloc", "mimalloc";
// "glibc" is GlibcVersion()): the Debian package of the library the course
// would preload. NotFound when it is not installed.
absl::StatusOr<std::string> AllocatorVersion(absl::string_view name);

// SoftwareVersion / SoftwareVersions()
//
// One probed version, as the machine line and the results JSON carry it:
// `name` as a learner knows it ("glibc", "musl", "GCC", "jemalloc",
// "gperftools", "mimalloc", "Benchmark", "Bazel"), `version` the number, or
// "unavailable (<why>)".
struct SoftwareVersion {
  std::string name;
  std::string version;
};
std::vector<SoftwareVersion> SoftwareVersions();

// -----------------------------------------------------------------------------
// What each version does: the course's version-dependent expectations.
// -----------------------------------------------------------------------------

// kMuslFirstWithoutMadvFree
//
// musl's mallocng (1.2.1 on) freed the whole pages inside each freed slot
// of a multi-slot group with madvise(MADV_FREE) up to 1.2.3; 1.2.4 dropped
// it ("high performance cost, little gain", musl's WHATSNEW).
inline constexpr char kMuslFirstWithoutMadvFree[] = "1.2.4";

// MuslFreeUsesMadvFree()
//
// Whether musl `version`'s free() calls madvise(MADV_FREE): before 1.2.4.
// False for a version that cannot be read.
bool MuslFreeUsesMadvFree(absl::string_view version);

// kGlibcFirstWithLargeFixedThreshold
//
// glibc 2.34 and earlier refuse a fixed mmap threshold above HEAP_MAX_SIZE/2
// (32 MiB on 64-bit), from mallopt(M_MMAP_THRESHOLD) and the tunable
// alike; 2.35 accepts it (glibc bug 27801).
inline constexpr char kGlibcFirstWithLargeFixedThreshold[] = "2.35";

// GlibcAcceptsFixedThresholdAbove32MiB()
//
// Whether glibc `version` accepts a fixed mmap threshold above 32 MiB.
bool GlibcAcceptsFixedThresholdAbove32MiB(absl::string_view version);

// kGlibcFirstWithTcache
//
// The per-thread cache (tcache: up to 7 chunks per size, up to 1032
// bytes) arrived in glibc 2.26.
inline constexpr char kGlibcFirstWithTcache[] = "2.26";

// GlibcHasTcache()
//
// Whether glibc `version` has the per-thread cache.
bool GlibcHasTcache(absl::string_view version);

// InstalledVersion()
//
// The version of `name` among `versions` when it could be read (a version
// CompareVersions() orders), else nullopt. Each lab's doctor rule reads the
// versions that change what it shows through it, from
// MachineFacts::versions.
std::optional<std::string> InstalledVersion(
    const std::vector<SoftwareVersion>& versions, absl::string_view name);

// VersionNotes()
//
// For the doctor's fact sheet: one sentence per installed version that
// changes what every lab runs on, e.g. "glibc 2.36: per-thread cache
// (tcache, 2.26+) in front of the arenas". What a version changes in one
// lab is that lab's doctor rule's to say.
std::vector<std::string> VersionNotes(
    const std::vector<SoftwareVersion>& versions);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_VERSIONS_H_
