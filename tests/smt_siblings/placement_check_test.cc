// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The experiment's check of the rows' CPUs (labs/smt_siblings/
// placement_check.h), on the topology fixtures: a row is marked exactly
// when its CPUs are not where its name says, whatever task.cc picked them.

#include "labs/smt_siblings/placement_check.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace smt_siblings {
namespace {

using ::testing::HasSubstr;

alloclab::Topology Fixture(const std::string& machine) {
  absl::StatusOr<alloclab::Topology> topology =
      alloclab::ReadTopology(alloclab::TopologyFixtureRoot(machine));
  EXPECT_TRUE(topology.ok()) << machine << ": " << topology.status();
  return topology.ok() ? *topology : alloclab::Topology{};
}

std::vector<int> AllOnline(const alloclab::Topology& topology) {
  return topology.Ids();
}

// The starter's pick on a VM without SMT: CPUs 0 and 1 are two cores.
TEST(PlacementCheckTest, StarterSiblingPairOnAVmIsNotSiblings) {
  const alloclab::Topology vm = Fixture("vm_2c");
  std::optional<Misplacement> bad =
      CheckPlacement(vm, AllOnline(vm), "smt_siblings", {0, 1});
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->mark, "not siblings");
  EXPECT_THAT(bad->note, HasSubstr("smt_siblings is misplaced"));
  EXPECT_THAT(bad->note, HasSubstr("CPUs 0-1"));
  EXPECT_THAT(bad->note, HasSubstr("thread siblings as 0:"));
  // The same CPUs are right for distinct_cores there.
  EXPECT_FALSE(CheckPlacement(vm, AllOnline(vm), "distinct_cores", {0, 1}));
}

// An Intel-numbered desktop: 0 and 4 share core 0; 0 and 1 do not.
TEST(PlacementCheckTest, IntelDesktop) {
  const alloclab::Topology desk = Fixture("desktop_4c8t");
  const std::vector<int> all = AllOnline(desk);
  EXPECT_FALSE(CheckPlacement(desk, all, "smt_siblings", {0, 4}));
  EXPECT_FALSE(CheckPlacement(desk, all, "distinct_cores", {0, 1}));
  std::optional<Misplacement> bad =
      CheckPlacement(desk, all, "smt_siblings", {0, 1});
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->mark, "not siblings");
  bad = CheckPlacement(desk, all, "distinct_cores", {0, 4});
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->mark, "one core");
}

// Adjacent numbering: the starter's distinct_cores pick shares a core.
TEST(PlacementCheckTest, AdjacentDesktop) {
  const alloclab::Topology desk = Fixture("desktop_4c8t_adjacent");
  const std::vector<int> all = AllOnline(desk);
  std::optional<Misplacement> bad =
      CheckPlacement(desk, all, "distinct_cores", {0, 1});
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->mark, "one core");
  EXPECT_FALSE(CheckPlacement(desk, all, "smt_siblings", {0, 1}));
  EXPECT_FALSE(CheckPlacement(desk, all, "distinct_cores", {0, 2}));
}

// Two sockets: core_id 0 on each socket is two cores, not one.
TEST(PlacementCheckTest, SameCoreIdOnTwoSocketsIsTwoCores) {
  const alloclab::Topology server = Fixture("server_2s");
  const std::vector<int> all = AllOnline(server);
  EXPECT_FALSE(CheckPlacement(server, all, "distinct_cores", {0, 4}));
  std::optional<Misplacement> bad =
      CheckPlacement(server, all, "smt_siblings", {0, 4});
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->mark, "not siblings");
}

// A CPU the experiment may not use (--cpus, taskset), or that is offline,
// is marked on any row, same_cpu and one_thread included.
TEST(PlacementCheckTest, CpuOutsideTheUsableOnesIsNotAllowed) {
  const alloclab::Topology desk = Fixture("desktop_4c8t_cpu5_offline");
  std::optional<Misplacement> bad =
      CheckPlacement(desk, {1, 2}, "one_thread", {0});
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->mark, "not allowed");
  EXPECT_THAT(bad->note, HasSubstr("CPU 0 is not one of the CPUs it may use"));
  bad = CheckPlacement(desk, AllOnline(desk), "same_cpu", {5, 5});
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->mark, "not allowed");
  EXPECT_FALSE(CheckPlacement(desk, {1, 2}, "same_cpu", {1, 1}));
}

// A pick with no CPU at all (a task.cc that returns an empty list) is
// marked, not read past its end.
TEST(PlacementCheckTest, NoCpuIsMarked) {
  const alloclab::Topology vm = Fixture("vm_2c");
  std::optional<Misplacement> bad =
      CheckPlacement(vm, AllOnline(vm), "distinct_cores", {});
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->mark, "no CPU");
}

}  // namespace
}  // namespace smt_siblings
