// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: topology_fixtures.h
// -----------------------------------------------------------------------------
//
// For tests: the /sys trees of machines this one is not, in
// common/machine/testdata/topology/<machine>/ (topology_test says what each one
// is). A test that loops over TopologyFixtures() covers a fixture added
// later without a change.
//
// Example:
//
//   for (const std::string& machine : alloclab::TopologyFixtures()) {
//     absl::StatusOr<alloclab::Topology> topo =
//         alloclab::ReadTopology(alloclab::TopologyFixtureRoot(machine));
//     ...
//   }

#ifndef ALLOCLAB_COMMON_MACHINE_TOPOLOGY_FIXTURES_H_
#define ALLOCLAB_COMMON_MACHINE_TOPOLOGY_FIXTURES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace alloclab {

// TopologyFixtureRoot()
//
// The `sys_root` of fixture `machine`: through the runfiles tree when Bazel
// says where it is, else relative to the working directory (Bazel runs
// tests from the workspace's runfiles root, so that works there too).
std::string TopologyFixtureRoot(absl::string_view machine);

// TopologyFixtureProcRoot()
//
// The `proc_root` of fixture `machine` (its proc/ directory), for the
// fixtures that have one: those whose page size is not this machine's
// (asahi_m2, graviton3_vm) give their KernelPageSize there.
std::string TopologyFixtureProcRoot(absl::string_view machine);

// TopologyFixtures()
//
// The names of all fixtures, sorted; empty when the directory is missing
// (a test should assert it is not).
std::vector<std::string> TopologyFixtures();

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_TOPOLOGY_FIXTURES_H_
