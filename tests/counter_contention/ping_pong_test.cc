// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The cache-line ping-pong of labs/counter_contention/ping_pong.h: which
// CPU pairs it measures on machines this one is not (the topology
// fixtures), and, on this machine, that every handoff of the line is
// counted: two transfers per round trip, on every pair this machine has.
// Never its times.

#include "labs/counter_contention/ping_pong.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "gtest/gtest.h"

namespace counter_contention {

void PrintTo(const CpuPair& pair, std::ostream* os) {
  *os << PairKindName(pair.kind) << " " << pair.first << "," << pair.second;
}

bool operator==(const CpuPair& a, const CpuPair& b) {
  return a.kind == b.kind && a.first == b.first && a.second == b.second;
}

namespace {

// PairsCase
//
// A fixture machine, the CPUs the process may use there, and the pairs the
// experiment must measure.
struct PairsCase {
  const char* name;
  const char* machine;
  std::vector<int> usable;
  std::vector<CpuPair> pairs;
};

void PrintTo(const PairsCase& c, std::ostream* os) { *os << c.name; }

constexpr PairKind kSame = PairKind::kSameCpu;
constexpr PairKind kSmt = PairKind::kSmtSiblings;
constexpr PairKind kCore = PairKind::kOtherCore;
constexpr PairKind kPackage = PairKind::kOtherPackage;

class PingPongPairsTest : public testing::TestWithParam<PairsCase> {};

TEST_P(PingPongPairsTest, OnePairOfEachKindTheMachineHas) {
  const PairsCase& c = GetParam();
  const absl::StatusOr<alloclab::Topology> topo =
      alloclab::ReadTopology(alloclab::TopologyFixtureRoot(c.machine));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(PingPongPairs(*topo, c.usable), c.pairs)
      << "the pairs measured on " << c.machine;
}

INSTANTIATE_TEST_SUITE_P(
    Machines, PingPongPairsTest,
    testing::Values(
        // The course's VM: two cores, no SMT.
        PairsCase{"vm_2c", "vm_2c", {0, 1}, {{kSame, 0, 0}, {kCore, 0, 1}}},
        // Intel numbering: CPU 4 is CPU 0's sibling.
        PairsCase{"desktop_4c8t",
                  "desktop_4c8t",
                  {0, 1, 2, 3, 4, 5, 6, 7},
                  {{kSame, 0, 0}, {kSmt, 0, 4}, {kCore, 0, 1}}},
        // Adjacent numbering: CPU 1 is CPU 0's sibling, CPU 2 another core.
        PairsCase{"desktop_4c8t_adjacent",
                  "desktop_4c8t_adjacent",
                  {0, 1, 2, 3, 4, 5, 6, 7},
                  {{kSame, 0, 0}, {kSmt, 0, 1}, {kCore, 0, 2}}},
        // taskset -c 0-3 there: one thread per core, no sibling pair left.
        PairsCase{"desktop_4c8t_one_per_core",
                  "desktop_4c8t",
                  {0, 1, 2, 3},
                  {{kSame, 0, 0}, {kCore, 0, 1}}},
        // Two packages whose cores have the same ids: CPU 4 is core 0 of
        // package 1, another package, not CPU 0's sibling.
        PairsCase{
            "server_2s",
            "server_2s",
            {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
            {{kSame, 0, 0}, {kSmt, 0, 8}, {kCore, 0, 1}, {kPackage, 0, 4}}},
        PairsCase{"server_2s_two_sockets_only",
                  "server_2s",
                  {0, 12},
                  {{kSame, 0, 0}, {kPackage, 0, 12}}},
        // CPU 5 is offline: not in the topology, so never paired.
        PairsCase{"desktop_4c8t_cpu5_offline",
                  "desktop_4c8t_cpu5_offline",
                  {1, 5},
                  {{kSame, 1, 1}}},
        // The usual 2-vCPU cloud VM: one core, two threads of it.
        PairsCase{"vm_1c2t", "vm_1c2t", {0, 1}, {{kSame, 0, 0}, {kSmt, 0, 1}}},
        PairsCase{"vm_2c4t",
                  "vm_2c4t",
                  {0, 1, 2, 3},
                  {{kSame, 0, 0}, {kSmt, 0, 2}, {kCore, 0, 1}}},
        // P-cores with SMT (0-1, 2-3), E-cores without (4-7).
        PairsCase{"desktop_hybrid_2p4e",
                  "desktop_hybrid_2p4e",
                  {0, 1, 2, 3, 4, 5, 6, 7},
                  {{kSame, 0, 0}, {kSmt, 0, 1}, {kCore, 0, 2}}},
        PairsCase{"desktop_hybrid_e_cores_only",
                  "desktop_hybrid_2p4e",
                  {4, 5, 6, 7},
                  {{kSame, 4, 4}, {kCore, 4, 5}}},
        PairsCase{"no_usable_cpu", "vm_2c", {}, {}}),
    [](const testing::TestParamInfo<PairsCase>& info) {
      return std::string(info.param.name);
    });

TEST(PairKindOfTest, NamesHowFarApartTwoCpusAre) {
  const absl::StatusOr<alloclab::Topology> topo =
      alloclab::ReadTopology(alloclab::TopologyFixtureRoot("server_2s"));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(PairKindOf(*topo, 3, 3), kSame);
  EXPECT_EQ(PairKindOf(*topo, 3, 11), kSmt);
  EXPECT_EQ(PairKindOf(*topo, 3, 2), kCore);
  EXPECT_EQ(PairKindOf(*topo, 3, 7), kPackage);
  EXPECT_EQ(PairKindOf(*topo, 3, 16), std::nullopt) << "CPU 16 is not there";
}

// On this machine, whatever its topology: every pair it has bounces the
// line exactly twice per round trip, warm-up left out.
TEST(MeasurePingPongTest, CountsTwoTransfersPerRoundTripOnEveryPair) {
  const absl::StatusOr<alloclab::Topology> topo = alloclab::ReadTopology();
  ASSERT_TRUE(topo.ok()) << topo.status();
  const absl::StatusOr<std::vector<int>> allowed = alloclab::AllowedCpus();
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  const std::vector<CpuPair> pairs = PingPongPairs(*topo, *allowed);
  ASSERT_FALSE(pairs.empty());
  constexpr int64_t kRoundTrips = 2'000;
  for (const CpuPair& pair : pairs) {
    SCOPED_TRACE(PairKindName(pair.kind));
    const absl::StatusOr<PingPongRun> run =
        MeasurePingPong(pair, kRoundTrips, kRoundTrips / 10);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->transfers, 2 * kRoundTrips);
    ASSERT_EQ(run->team.threads.size(), 2u);
    EXPECT_EQ(run->team.threads[0].cpu, pair.first);
    EXPECT_EQ(run->team.threads[1].cpu, pair.second);
    EXPECT_EQ(run->team.oversubscribed, pair.first == pair.second);
  }
}

TEST(MeasurePingPongTest, RefusesACpuThatIsNotThere) {
  const absl::StatusOr<PingPongRun> run =
      MeasurePingPong({PairKind::kOtherCore, 0, 1 << 20}, 10, 0);
  EXPECT_FALSE(run.ok());
}

// The line itself: each thread's writes, and what the count reads after.
TEST(PingPongLineTest, EachWriteFollowsExactlyOneOfTheOther) {
  PingPongLine line;
  alloclab::TeamOptions options;
  const absl::StatusOr<std::vector<int>> allowed = alloclab::AllowedCpus();
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  options.cpus = {allowed->front(), allowed->back()};
  options.iterations = 500;
  options.warmup_iterations = 50;
  options.clock_budget_ns = 0;
  int64_t handoffs[2] = {0, 0};
  const absl::StatusOr<alloclab::TeamResult> team =
      alloclab::RunTeam(options, [&](int thread, int64_t iterations) {
        handoffs[thread] += line.Play(thread, iterations);
      });
  ASSERT_TRUE(team.ok()) << team.status();
  EXPECT_EQ(handoffs[0], 550);
  EXPECT_EQ(handoffs[1], 550);
  EXPECT_EQ(line.writes(), 1100u);
}

}  // namespace
}  // namespace counter_contention
