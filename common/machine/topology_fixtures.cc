// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/topology_fixtures.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/launch.h"

namespace alloclab {
namespace {

std::string FixtureDir() {
  constexpr absl::string_view kRelative = "common/machine/testdata/topology";
  absl::StatusOr<std::string> dir = internal::FindRunfile(kRelative);
  return dir.ok() ? *std::move(dir) : std::string(kRelative);
}

}  // namespace

std::string TopologyFixtureRoot(absl::string_view machine) {
  return absl::StrCat(FixtureDir(), "/", machine);
}

std::string TopologyFixtureProcRoot(absl::string_view machine) {
  return absl::StrCat(TopologyFixtureRoot(machine), "/proc");
}

std::vector<std::string> TopologyFixtures() {
  std::vector<std::string> machines;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator(FixtureDir(), error)) {
    if (entry.is_directory()) machines.push_back(entry.path().filename());
  }
  std::sort(machines.begin(), machines.end());
  return machines;
}

}  // namespace alloclab
