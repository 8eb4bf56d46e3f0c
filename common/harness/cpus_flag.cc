// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/cpus_flag.h"

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/instruments/thread_team.h"
#include "common/machine/topology.h"

ABSL_FLAG(std::string, cpus, "",
          "the CPUs the experiment may use, as taskset -c lists them "
          "(\"0-3,8\"); empty: every online CPU this process may run on");

namespace alloclab {

absl::StatusOr<std::vector<int>> UsableCpus(const Topology& topology) {
  const std::string flag = absl::GetFlag(FLAGS_cpus);
  absl::StatusOr<std::vector<int>> allowed = AllowedCpus();
  if (!allowed.ok()) return allowed.status();
  if (flag.empty()) {
    std::vector<int> usable;
    for (int cpu : *allowed) {
      if (ValidateCpus(topology, {cpu}).ok()) usable.push_back(cpu);
    }
    return usable;
  }
  absl::StatusOr<std::vector<int>> cpus = ParseCpuList(flag);
  absl::Status valid =
      cpus.ok() ? ValidateTeamCpus(topology, *allowed, *cpus) : cpus.status();
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cpus=", flag, ": ", valid.message()));
  }
  return cpus;
}

absl::Status CheckCpusFlag(const LabOptions&) {
  absl::StatusOr<Topology> topology = ReadTopology();
  if (!topology.ok()) return topology.status();
  return UsableCpus(*topology).status();
}

}  // namespace alloclab
