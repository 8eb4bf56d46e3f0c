// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/versions.h"

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "build_facts.h"
#include "common/harness/internal/launch.h"
#include "common/harness/internal/subprocess.h"
#include "common/machine/allocator_probe.h"
#include "common/machine/debian_packages.h"

namespace alloclab {
namespace {

// The leading number of one dotted part: "3-1" -> 3; nullopt for "x".
std::optional<int> LeadingNumber(absl::string_view part) {
  size_t digits = 0;
  while (digits < part.size() && absl::ascii_isdigit(part[digits])) ++digits;
  int n = 0;
  if (digits == 0 || !absl::SimpleAtoi(part.substr(0, digits), &n)) {
    return std::nullopt;
  }
  return n;
}

std::optional<std::vector<int>> Parts(absl::string_view version) {
  std::vector<int> parts;
  for (absl::string_view part : absl::StrSplit(version, '.')) {
    std::optional<int> n = LeadingNumber(part);
    if (!n.has_value()) break;
    parts.push_back(*n);
    // "0-1": the rest is a Debian revision, not another part.
    if (part.size() > absl::StrCat(*n).size()) break;
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

bool AtLeast(absl::string_view version, absl::string_view first) {
  std::optional<int> c = CompareVersions(version, first);
  return c.has_value() && *c >= 0;
}

std::string Unavailable(const absl::Status& status) {
  return absl::StrCat("unavailable (", status.message(), ")");
}

std::string OrUnavailable(const absl::StatusOr<std::string>& version) {
  return version.ok() ? *version : Unavailable(version.status());
}

}  // namespace

std::optional<int> CompareVersions(absl::string_view a, absl::string_view b) {
  std::optional<std::vector<int>> pa = Parts(a), pb = Parts(b);
  if (!pa.has_value() || !pb.has_value()) return std::nullopt;
  const size_t n = std::max(pa->size(), pb->size());
  for (size_t i = 0; i < n; ++i) {
    const int x = i < pa->size() ? (*pa)[i] : 0;
    const int y = i < pb->size() ? (*pb)[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

absl::StatusOr<std::string> GlibcVersion() {
#ifdef __GLIBC__
  return std::string(gnu_get_libc_version());
#else
  return absl::NotFoundError("this program does not run on glibc");
#endif
}

std::string MuslLoaderPath() {
  struct utsname names;
  std::string arch = uname(&names) == 0 ? names.machine : "x86_64";
  // musl names its loader after its own architecture names.
  if (arch == "i686" || arch == "i586" || arch == "i486") arch = "i386";
  if (arch == "armv7l" || arch == "armv6l") arch = "armhf";
  return absl::StrCat("/lib/ld-musl-", arch, ".so.1");
}

absl::StatusOr<std::string> ParseMuslLoaderBanner(absl::string_view output) {
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (absl::ConsumePrefix(&line, "Version ") && !line.empty()) {
      return std::string(line);
    }
  }
  return absl::NotFoundError(
      absl::StrCat("no 'Version' line in what musl's loader printed: '",
                   absl::StripAsciiWhitespace(output.substr(0, 200)), "'"));
}

absl::StatusOr<std::string> MuslVersion(absl::string_view loader) {
  const std::string path =
      loader.empty() ? MuslLoaderPath() : std::string(loader);
  if (access(path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(
        "no musl loader at ", path,
        "; Debian's musl-tools installs it: sudo apt-get install musl-tools"));
  }
  // Run alone, the loader prints its banner on stderr and exits 1.
  absl::StatusOr<internal::PreparedExec> exec =
      internal::PrepareExec({path}, {});
  if (!exec.ok()) return exec.status();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::ErrnoToStatus(errno, "MuslVersion: pipe2");
  }
  absl::StatusOr<pid_t> pid = internal::Spawn(*exec, [&fds] {
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(fds[1], STDERR_FILENO);
    dup2(fds[1], STDOUT_FILENO);
  });
  close(fds[1]);
  if (!pid.ok()) {
    close(fds[0]);
    return pid.status();
  }
  absl::StatusOr<std::string> out = internal::ReadAll(fds[0]);
  close(fds[0]);
  absl::Status waited = internal::WaitForPid(*pid).status();
  if (!out.ok()) return out.status();
  if (!waited.ok()) return waited;
  return ParseMuslLoaderBanner(*out);
}

std::string CompilerVersion() {
#if defined(__clang__)
  return absl::StrCat("Clang ", __clang_major__, ".", __clang_minor__, ".",
                      __clang_patchlevel__);
#elif defined(__GNUC__)
  return absl::StrCat("GCC ", __GNUC__, ".", __GNUC_MINOR__, ".",
                      __GNUC_PATCHLEVEL__);
#else
  return "unknown compiler";
#endif
}

absl::StatusOr<std::string> AllocatorVersion(absl::string_view name) {
  if (name == "glibc") return GlibcVersion();
  absl::StatusOr<LocatedAllocator> located = LocateAllocator(name);
  if (!located.ok()) {
    return absl::NotFoundError(absl::StrCat(name, " is not installed"));
  }
  return DebianPackageVersion(located->debian_package);
}

std::vector<SoftwareVersion> SoftwareVersions() {
  return {
      {"glibc", OrUnavailable(GlibcVersion())},
      {"musl", OrUnavailable(MuslVersion())},
      {"GCC", absl::StrCat(absl::StripPrefix(CompilerVersion(), "GCC "))},
      {"jemalloc", OrUnavailable(AllocatorVersion("jemalloc"))},
      {"gperftools", OrUnavailable(AllocatorVersion("tcmalloc"))},
      {"mimalloc", OrUnavailable(AllocatorVersion("mimalloc"))},
      {"Benchmark", alloclab_build::kBenchmarkVersion},
      {"Bazel", alloclab_build::kBazelVersion},
  };
}

bool MuslFreeUsesMadvFree(absl::string_view version) {
  std::optional<int> c = CompareVersions(version, kMuslFirstWithoutMadvFree);
  return c.has_value() && *c < 0;
}

bool GlibcAcceptsFixedThresholdAbove32MiB(absl::string_view version) {
  return AtLeast(version, kGlibcFirstWithLargeFixedThreshold);
}

bool GlibcHasTcache(absl::string_view version) {
  return AtLeast(version, kGlibcFirstWithTcache);
}

std::optional<std::string> InstalledVersion(
    const std::vector<SoftwareVersion>& versions, absl::string_view name) {
  for (const SoftwareVersion& v : versions) {
    if (v.name == name && CompareVersions(v.version, "0").has_value()) {
      return v.version;
    }
  }
  return std::nullopt;
}

std::vector<std::string> VersionNotes(
    const std::vector<SoftwareVersion>& versions) {
  std::vector<std::string> notes;
  if (std::optional<std::string> glibc = InstalledVersion(versions, "glibc")) {
    notes.push_back(absl::StrCat(
        "glibc ", *glibc, ": ",
        GlibcHasTcache(*glibc)
            ? "per-thread cache (tcache, 2.26+) in front of the arenas"
            : "no per-thread cache (tcache came in 2.26)"));
  }
  return notes;
}

}  // namespace alloclab
