// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Which rows the experiment runs on the machines learners have (the
// topology fixtures), placed by the reference task.cc: what each machine
// shows, and the note for each row it cannot.

#include "labs/smt_siblings/rows.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace smt_siblings {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

RowPlan Plan(const std::string& machine) {
  absl::StatusOr<alloclab::Topology> topology =
      alloclab::ReadTopology(alloclab::TopologyFixtureRoot(machine));
  EXPECT_TRUE(topology.ok()) << machine << ": " << topology.status();
  if (!topology.ok()) return {};
  absl::StatusOr<RowPlan> plan = PlanRows(*topology, topology->Ids());
  EXPECT_TRUE(plan.ok()) << machine << ": " << plan.status();
  return plan.ok() ? *plan : RowPlan{};
}

std::vector<std::string> Rows(const RowPlan& plan) {
  std::vector<std::string> rows;
  for (const PlannedRow& row : plan.rows) {
    rows.push_back(absl::StrCat(row.name, " ",
                                alloclab::FormatCpuList(row.cpus),
                                row.mark.empty() ? "" : " (" + row.mark + ")"));
  }
  return rows;
}

TEST(PlanRowsTest, VmOfTwoCoresWithoutSmt) {
  const RowPlan plan = Plan("vm_2c");
  EXPECT_THAT(Rows(plan),
              ElementsAre("one_thread 0", "distinct_cores 0-1", "same_cpu 0"));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_THAT(plan.notes[0], HasSubstr("no smt_siblings row"));
  EXPECT_THAT(plan.notes[0], HasSubstr("no SMT"));
}

// The usual 2-vCPU cloud VM: one core's two threads.
TEST(PlanRowsTest, CloudVmOfTwoVcpus) {
  const RowPlan plan = Plan("vm_1c2t");
  EXPECT_THAT(Rows(plan),
              ElementsAre("one_thread 0", "smt_siblings 0-1", "same_cpu 0"));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_THAT(plan.notes[0], HasSubstr("no distinct_cores row"));
  EXPECT_TRUE(plan.has_siblings_row);
}

TEST(PlanRowsTest, CloudVmOfFourVcpusShowsEveryRow) {
  const RowPlan plan = Plan("vm_2c4t");
  EXPECT_THAT(Rows(plan), ElementsAre("one_thread 0", "distinct_cores 0-1",
                                      "smt_siblings 0,2", "same_cpu 0"));
  EXPECT_THAT(plan.notes, ElementsAre());
}

TEST(PlanRowsTest, HybridDesktop) {
  const RowPlan plan = Plan("desktop_hybrid_2p4e");
  EXPECT_THAT(Rows(plan), ElementsAre("one_thread 0", "distinct_cores 0,2",
                                      "smt_siblings 0-1", "same_cpu 0"));
  EXPECT_THAT(plan.notes, ElementsAre()) << absl::StrJoin(plan.notes, "\n");
}

// The arm64 machines have no SMT: no smt_siblings row anywhere, and the
// note says why (the fixture's answer). Under Asahi Linux on an M2 (bare
// metal) the distinct_cores pair is in the efficiency cluster (CPUs 0-3).
TEST(PlanRowsTest, AsahiM2) {
  const RowPlan plan = Plan("asahi_m2");
  EXPECT_THAT(Rows(plan),
              ElementsAre("one_thread 0", "distinct_cores 0-1", "same_cpu 0"));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_THAT(plan.notes[0], HasSubstr("no smt_siblings row"));
  EXPECT_THAT(plan.notes[0], HasSubstr("no SMT"));
  EXPECT_FALSE(plan.has_siblings_row);
}

TEST(PlanRowsTest, GravitonVm) {
  const RowPlan plan = Plan("graviton3_vm");
  EXPECT_THAT(Rows(plan),
              ElementsAre("one_thread 0", "distinct_cores 0-1", "same_cpu 0"));
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_THAT(plan.notes[0], HasSubstr("no smt_siblings row"));
  EXPECT_FALSE(plan.has_siblings_row);
}

}  // namespace
}  // namespace smt_siblings
