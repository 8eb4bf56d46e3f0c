// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: debian_packages.h
// -----------------------------------------------------------------------------
//
// Which Debian packages are installed, and at which version, read from
// dpkg's status file: no process is started. The course names packages in
// its error messages and probes library versions this way (versions.h),
// because a package's name can change between releases while its library
// stays the same (Debian 13's 64-bit time_t transition renamed
// libtcmalloc-minimal4 to libtcmalloc-minimal4t64; mimalloc 3 is a new
// package, libmimalloc3, beside Debian 12's libmimalloc2.0).
//
// Example:
//
//   absl::StatusOr<std::string> v =
//       alloclab::DebianPackageVersion("libjemalloc2");   // "5.3.0"
//   std::string pkg = alloclab::FirstInstalledPackage(
//       {"libtcmalloc-minimal4t64", "libtcmalloc-minimal4"});

#ifndef ALLOCLAB_COMMON_MACHINE_DEBIAN_PACKAGES_H_
#define ALLOCLAB_COMMON_MACHINE_DEBIAN_PACKAGES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// kDpkgStatusFile
//
// Where dpkg records what is installed.
inline constexpr char kDpkgStatusFile[] = "/var/lib/dpkg/status";

// UpstreamVersion()
//
// The upstream part of a Debian package version: "1:2.0.9+ds-2" -> "2.0.9",
// "5.3.0-1" -> "5.3.0", "2.16-1" -> "2.16".
std::string UpstreamVersion(absl::string_view debian_version);

// DebianPackageVersion()
//
// The upstream version of installed package `package`, from `status_file`.
// NotFound when the package is not installed, or the file cannot be read
// (not a Debian system: the message says so).
absl::StatusOr<std::string> DebianPackageVersion(
    absl::string_view package,
    const std::string& status_file = kDpkgStatusFile);

// FirstInstalledPackage()
//
// The first of `packages` that is installed; the first of them when none
// is (the name a message should suggest), "" when `packages` is empty.
std::string FirstInstalledPackage(
    const std::vector<std::string>& packages,
    const std::string& status_file = kDpkgStatusFile);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_DEBIAN_PACKAGES_H_
