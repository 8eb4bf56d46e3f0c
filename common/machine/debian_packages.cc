// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/debian_packages.h"

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace alloclab {

std::string UpstreamVersion(absl::string_view debian_version) {
  absl::string_view v = debian_version;
  if (size_t colon = v.find(':'); colon != absl::string_view::npos) {
    v.remove_prefix(colon + 1);  // the epoch
  }
  if (size_t dash = v.rfind('-'); dash != absl::string_view::npos) {
    v = v.substr(0, dash);  // the Debian revision
  }
  if (size_t plus = v.find('+'); plus != absl::string_view::npos) {
    v = v.substr(0, plus);  // "+ds", "+dfsg": a repacked source
  }
  if (size_t tilde = v.find('~'); tilde != absl::string_view::npos) {
    v = v.substr(0, tilde);
  }
  return std::string(v);
}

absl::StatusOr<std::string> DebianPackageVersion(
    absl::string_view package, const std::string& status_file) {
  const std::string& path = status_file;
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read ", path, " (not a Debian system?)"));
  }
  // Stanzas of "Field: value" lines, separated by blank lines.
  std::string line, name, status, version;
  auto finish = [&]() -> std::optional<std::string> {
    std::optional<std::string> found;
    if (name == package && absl::EndsWith(status, "installed") &&
        !absl::EndsWith(status, "not-installed") && !version.empty()) {
      found = UpstreamVersion(version);
    }
    name.clear();
    status.clear();
    version.clear();
    return found;
  };
  while (std::getline(in, line)) {
    absl::string_view l = line;
    if (l.empty()) {
      if (std::optional<std::string> v = finish()) return *v;
    } else if (absl::ConsumePrefix(&l, "Package: ")) {
      name = std::string(l);
    } else if (absl::ConsumePrefix(&l, "Status: ")) {
      status = std::string(l);
    } else if (absl::ConsumePrefix(&l, "Version: ")) {
      version = std::string(l);
    }
  }
  if (std::optional<std::string> v = finish()) return *v;
  return absl::NotFoundError(
      absl::StrCat("Debian package ", package, " is not installed"));
}

std::string FirstInstalledPackage(const std::vector<std::string>& packages,
                                  const std::string& status_file) {
  for (const std::string& package : packages) {
    if (DebianPackageVersion(package, status_file).ok()) return package;
  }
  return packages.empty() ? "" : packages.front();
}

}  // namespace alloclab
