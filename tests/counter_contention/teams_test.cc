// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Which teams the experiment runs on the machines learners have (the
// topology fixtures), and which rows it marks: a team of SMT siblings on a
// cloud VM whose vCPUs are one core's threads, none on a VM of two cores.

#include "labs/counter_contention/teams.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace counter_contention {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Cells(const std::string& machine) {
  absl::StatusOr<alloclab::Topology> topology =
      alloclab::ReadTopology(alloclab::TopologyFixtureRoot(machine));
  EXPECT_TRUE(topology.ok()) << machine << ": " << topology.status();
  if (!topology.ok()) return {};
  std::vector<std::string> cells;
  for (const Team& team : PlanTeams(*topology, topology->Ids())) {
    cells.push_back(absl::StrCat(team.threads, ": ", CpusColumn(team)));
  }
  return cells;
}

TEST(PlanTeamsTest, VmOfTwoCoresWithoutSmt) {
  EXPECT_THAT(Cells("vm_2c"),
              ElementsAre("1: 0", "2: 0-1", "3: 0-1 (oversubscribed)"));
}

TEST(PlanTeamsTest, CloudVmOfTwoVcpusIsOneCoresSiblings) {
  EXPECT_THAT(Cells("vm_1c2t"), ElementsAre("1: 0", "2: 0-1 (SMT siblings)",
                                            "3: 0-1 (oversubscribed)"));
}

TEST(PlanTeamsTest, CloudVmOfFourVcpusUsesBothCoresFirst) {
  EXPECT_THAT(Cells("vm_2c4t"),
              ElementsAre("1: 0", "2: 0-1", "4: 0-3 (SMT siblings)",
                          "5: 0-3 (oversubscribed)"));
}

TEST(PlanTeamsTest, AdjacentNumberingSpreadsPastTheSiblings) {
  // CPUs 0 and 1 are one core here: the team of two takes 0 and 2.
  EXPECT_THAT(Cells("desktop_4c8t_adjacent"),
              ElementsAre("1: 0", "2: 0,2", "4: 0,2,4,6",
                          "8: 0-7 (SMT siblings)", "9: 0-7 (oversubscribed)"));
}

TEST(PlanTeamsTest, HybridDesktop) {
  EXPECT_THAT(Cells("desktop_hybrid_2p4e"),
              ElementsAre("1: 0", "2: 0,2", "4: 0,2,4-5",
                          "8: 0-7 (SMT siblings)", "9: 0-7 (oversubscribed)"));
}

// The arm64 machines have no SMT: no team is marked SMT siblings. On Asahi
// Linux on an M2 (bare metal) the first four CPUs are the efficiency
// cluster, so the teams of 2 and 4 run on E-cores only (the fixture's
// answer).
TEST(PlanTeamsTest, AsahiM2) {
  EXPECT_THAT(Cells("asahi_m2"),
              ElementsAre("1: 0", "2: 0-1", "4: 0-3", "8: 0-7",
                          "9: 0-7 (oversubscribed)"));
}

TEST(PlanTeamsTest, GravitonVm) {
  EXPECT_THAT(Cells("graviton3_vm"), ElementsAre("1: 0", "2: 0-1", "4: 0-3",
                                                 "5: 0-3 (oversubscribed)"));
}

TEST(PlanTeamsTest, AnAffinityMaskOfOneCpu) {
  absl::StatusOr<alloclab::Topology> topology =
      alloclab::ReadTopology(alloclab::TopologyFixtureRoot("vm_2c"));
  ASSERT_TRUE(topology.ok()) << topology.status();
  const std::vector<Team> teams = PlanTeams(*topology, {1});
  ASSERT_EQ(teams.size(), 2u);
  EXPECT_EQ(CpusColumn(teams[0]), "1");
  EXPECT_EQ(CpusColumn(teams[1]), "1 (oversubscribed)");
}

}  // namespace
}  // namespace counter_contention
