// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Topology is checked against fixture trees of machines this one is not
// (common/machine/testdata/topology/: a 4-core/8-thread desktop, a 2-socket
// server with SMT, a 2-vCPU VM with two hot-pluggable CPUs offline, arm64 VMs
// on Apple Silicon and Graviton), against the real /sys, and against broken
// trees built in a temporary directory.

#include "common/machine/topology.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/topology_fixtures.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

struct Expected {
  const char* machine;
  int logical;
  int physical;
  int packages;
  bool smt;
  std::vector<int> one_per_core;
};

class FixtureTest : public ::testing::TestWithParam<Expected> {};

TEST_P(FixtureTest, ReadsTheMachine) {
  const Expected& want = GetParam();
  absl::StatusOr<Topology> topo =
      ReadTopology(TopologyFixtureRoot(want.machine));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->logical_cpus(), want.logical);
  EXPECT_EQ(topo->physical_cores(), want.physical);
  EXPECT_EQ(topo->packages(), want.packages);
  EXPECT_EQ(topo->smt(), want.smt);
  EXPECT_THAT(topo->OnePerCore(), ElementsAreArray(want.one_per_core));
  for (size_t i = 1; i < topo->cpus.size(); ++i) {
    EXPECT_LT(topo->cpus[i - 1].id, topo->cpus[i].id) << "CPUs come by id";
  }
}

const Expected kMachines[] = {
    // Asahi Linux on an M2 Mac, bare metal (hand-made, in the shape of
    // Asahi's t8112 device tree): 4 efficiency then 4 performance cores in
    // two clusters, the efficiency ones with a lower cpu_capacity, one
    // thread each. A Linux VM on the same Mac shows neither: its vCPUs all
    // look alike, and macOS runs each on whichever kind of core it picks.
    {"asahi_m2", 8, 8, 1, false, {0, 1, 2, 3, 4, 5, 6, 7}},
    // Intel numbering: CPU n and n+4 are the two threads of core n.
    {"desktop_4c8t", 8, 4, 1, true, {0, 1, 2, 3}},
    // Adjacent numbering: CPUs 2k and 2k+1 are the two threads of core k,
    // so "CPUs 0..n-1" are n/2 cores, not n.
    {"desktop_4c8t_adjacent", 8, 4, 1, true, {0, 2, 4, 6}},
    // desktop_4c8t with CPU 5 offline: CPU 1 is alone on core 1, and the
    // kernel drops CPU 5 from its siblings.
    {"desktop_4c8t_cpu5_offline", 7, 4, 1, true, {0, 1, 2, 3}},
    // A hybrid desktop: 2 P-cores with two threads each (adjacent
    // numbering), 4 E-cores with one.
    {"desktop_hybrid_2p4e", 8, 6, 1, true, {0, 2, 4, 5, 6, 7}},
    // A 4-vCPU Graviton3 instance: every vCPU a core of its own.
    {"graviton3_vm", 4, 4, 1, false, {0, 1, 2, 3}},
    // Core ids 0,1,4,5 in both packages: 8 cores, not 4.
    {"server_2s", 16, 8, 2, true, {0, 1, 2, 3, 4, 5, 6, 7}},
    // The usual 2-vCPU x86 cloud instance: one core's two threads.
    {"vm_1c2t", 2, 1, 1, true, {0}},
    // CPUs 2-3 exist but are offline, without topology/.
    {"vm_2c", 2, 2, 1, false, {0, 1}},
    // A 4-vCPU cloud instance: two cores, numbered n and n+2.
    {"vm_2c4t", 4, 2, 1, true, {0, 1}},
};

INSTANTIATE_TEST_SUITE_P(Machines, FixtureTest, ::testing::ValuesIn(kMachines),
                         [](const ::testing::TestParamInfo<Expected>& info) {
                           return std::string(info.param.machine);
                         });

// Each fixture in the directory is described above: tests elsewhere loop
// over all of them, so a new one must say what it is here first.
TEST(FixtureListTest, EveryFixtureIsDescribed) {
  std::vector<std::string> described;
  for (const Expected& e : kMachines) described.push_back(e.machine);
  EXPECT_THAT(TopologyFixtures(), ElementsAreArray(described));
}

TEST(ReadTopologyTest, OfflineCpuLeavesItsSiblingAlone) {
  absl::StatusOr<Topology> topo =
      ReadTopology(TopologyFixtureRoot("desktop_4c8t_cpu5_offline"));
  ASSERT_TRUE(topo.ok()) << topo.status();
  ASSERT_EQ(topo->cpus.size(), 7u);
  EXPECT_THAT(topo->cpus[1].siblings, ElementsAre(1));
  EXPECT_EQ(topo->cpus[5].id, 6);  // CPU 5 is not in the list at all
  EXPECT_THAT(topo->cpus[5].siblings, ElementsAre(2, 6));
}

TEST(ReadTopologyTest, DesktopSiblings) {
  absl::StatusOr<Topology> topo =
      ReadTopology(TopologyFixtureRoot("desktop_4c8t"));
  ASSERT_TRUE(topo.ok()) << topo.status();
  ASSERT_EQ(topo->cpus.size(), 8u);
  EXPECT_THAT(topo->cpus[0].siblings, ElementsAre(0, 4));
  EXPECT_THAT(topo->cpus[5].siblings, ElementsAre(1, 5));
  EXPECT_EQ(topo->cpus[5].core_id, 1);
}

TEST(ReadTopologyTest, ServerCoreIdsRepeatAcrossPackages) {
  absl::StatusOr<Topology> topo =
      ReadTopology(TopologyFixtureRoot("server_2s"));
  ASSERT_TRUE(topo.ok()) << topo.status();
  ASSERT_EQ(topo->cpus.size(), 16u);
  EXPECT_EQ(topo->cpus[0].core_id, topo->cpus[4].core_id);
  EXPECT_NE(topo->cpus[0].package_id, topo->cpus[4].package_id);
  EXPECT_THAT(topo->cpus[13].siblings, ElementsAre(5, 13));
  EXPECT_EQ(topo->cpus[13].package_id, 1);
}

TEST(ReadTopologyTest, IdsAreTheOnlineCpusInOrder) {
  absl::StatusOr<Topology> topo =
      ReadTopology(TopologyFixtureRoot("desktop_4c8t_cpu5_offline"));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_THAT(topo->Ids(), ElementsAre(0, 1, 2, 3, 4, 6, 7));
}

TEST(ReadTopologyTest, HybridDesktopListsItsECores) {
  absl::StatusOr<Topology> topo =
      ReadTopology(TopologyFixtureRoot("desktop_hybrid_2p4e"));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_THAT(topo->efficiency_cpus, ElementsAre(4, 5, 6, 7));
  absl::StatusOr<Topology> vm = ReadTopology(TopologyFixtureRoot("vm_2c4t"));
  ASSERT_TRUE(vm.ok()) << vm.status();
  EXPECT_TRUE(vm->efficiency_cpus.empty()) << "no cpu_atom/: no E-cores";
}

// Threads placed in this order share a core only when there are more
// threads than cores: on every fixture, the first k CPUs are on
// min(k, cores) cores.
TEST(SpreadAcrossCoresTest, FirstKThreadsShareACoreOnlyPastTheCores) {
  for (const std::string& machine : TopologyFixtures()) {
    absl::StatusOr<Topology> topo = ReadTopology(TopologyFixtureRoot(machine));
    ASSERT_TRUE(topo.ok()) << machine << ": " << topo.status();
    const std::vector<int> all = topo->Ids();
    const std::vector<int> order = topo->SpreadAcrossCores(all);
    ASSERT_EQ(order.size(), all.size()) << machine;
    for (size_t k = 1; k <= order.size(); ++k) {
      const std::vector<int> first(order.begin(), order.begin() + k);
      EXPECT_EQ(topo->CoresOf(first),
                std::min(static_cast<int>(k), topo->physical_cores()))
          << machine << ", first " << k << " CPUs: " << FormatCpuList(first);
    }
  }
}

TEST(SpreadAcrossCoresTest, CloudVmsAndAdjacentNumbering) {
  absl::StatusOr<Topology> vm = ReadTopology(TopologyFixtureRoot("vm_2c4t"));
  ASSERT_TRUE(vm.ok()) << vm.status();
  EXPECT_THAT(vm->SpreadAcrossCores({0, 1, 2, 3}), ElementsAre(0, 1, 2, 3));
  absl::StatusOr<Topology> one = ReadTopology(TopologyFixtureRoot("vm_1c2t"));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(one->SpreadAcrossCores({0, 1}), ElementsAre(0, 1));
  EXPECT_EQ(one->CoresOf({0, 1}), 1) << "two vCPUs, one core";
  absl::StatusOr<Topology> adjacent =
      ReadTopology(TopologyFixtureRoot("desktop_4c8t_adjacent"));
  ASSERT_TRUE(adjacent.ok()) << adjacent.status();
  EXPECT_THAT(adjacent->SpreadAcrossCores({0, 1, 2, 3, 4, 5, 6, 7}),
              ElementsAre(0, 2, 4, 6, 1, 3, 5, 7));
  // Only the CPUs asked for, e.g. an affinity mask of 1-3.
  EXPECT_THAT(adjacent->SpreadAcrossCores({1, 2, 3}), ElementsAre(1, 2, 3));
  EXPECT_THAT(adjacent->SpreadAcrossCores({1, 2, 3, 99}), ElementsAre(1, 2, 3));
}

TEST(ReadTopologyTest, RealSysAgreesWithSysconf) {
  absl::StatusOr<Topology> topo = ReadTopology();
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->logical_cpus(), sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GE(topo->physical_cores(), 1);
  EXPECT_LE(topo->physical_cores(), topo->logical_cpus());
  EXPECT_GE(topo->packages(), 1);
  EXPECT_EQ(static_cast<int>(topo->OnePerCore().size()),
            topo->physical_cores());
}

TEST(ReadTopologyTest, MissingTreeIsNotFoundWithThePath) {
  absl::StatusOr<Topology> topo = ReadTopology("/nonexistent/alloclab");
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(topo.status().message(),
              HasSubstr("/nonexistent/alloclab/devices/system/cpu/online"));
}

// A tree in the test's temporary directory, broken on purpose.
class BrokenTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/broken_topology";
    std::filesystem::remove_all(root_);
    Write("online", "0-1");
    for (int cpu : {0, 1}) {
      const std::string dir = "cpu" + std::to_string(cpu) + "/topology/";
      Write(dir + "core_id", std::to_string(cpu));
      Write(dir + "physical_package_id", "0");
      Write(dir + "thread_siblings_list", std::to_string(cpu));
    }
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Write(const std::string& file, const std::string& text) {
    const std::filesystem::path path =
        std::filesystem::path(root_) / "devices/system/cpu" / file;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text << "\n";
  }
  std::string Path(const std::string& file) const {
    return root_ + "/devices/system/cpu/" + file;
  }

  std::string root_;
};

TEST_F(BrokenTreeTest, IntactTreeReads) {
  absl::StatusOr<Topology> topo = ReadTopology(root_);
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->logical_cpus(), 2);
}

TEST_F(BrokenTreeTest, GarbledCoreId) {
  Write("cpu1/topology/core_id", "one");
  absl::StatusOr<Topology> topo = ReadTopology(root_);
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(topo.status().message(),
              HasSubstr(Path("cpu1/topology/core_id")));
}

TEST_F(BrokenTreeTest, GarbledOnlineList) {
  Write("online", "0-");
  absl::StatusOr<Topology> topo = ReadTopology(root_);
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(topo.status().message(), HasSubstr(Path("online")));
}

TEST_F(BrokenTreeTest, MissingTopologyOfAnOnlineCpu) {
  std::filesystem::remove_all(Path("cpu1/topology"));
  absl::StatusOr<Topology> topo = ReadTopology(root_);
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(topo.status().message(), HasSubstr(Path("cpu1/topology/")));
}

TEST_F(BrokenTreeTest, SiblingsWithoutTheCpuItself) {
  Write("cpu1/topology/thread_siblings_list", "0");
  absl::StatusOr<Topology> topo = ReadTopology(root_);
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(topo.status().message(),
              HasSubstr(Path("cpu1/topology/thread_siblings_list")));
}

struct GoodList {
  const char* text;
  std::vector<int> cpus;
  const char* formatted;  // FormatCpuList of the result
};

class ParseGoodTest : public ::testing::TestWithParam<GoodList> {};

TEST_P(ParseGoodTest, ParsesAndFormatsBack) {
  absl::StatusOr<std::vector<int>> cpus = ParseCpuList(GetParam().text);
  ASSERT_TRUE(cpus.ok()) << cpus.status();
  EXPECT_THAT(*cpus, ElementsAreArray(GetParam().cpus));
  EXPECT_EQ(FormatCpuList(*cpus), GetParam().formatted);
}

INSTANTIATE_TEST_SUITE_P(
    CpuLists, ParseGoodTest,
    ::testing::Values(
        GoodList{"0", {0}, "0"}, GoodList{"0-3", {0, 1, 2, 3}, "0-3"},
        GoodList{"0-3,8,10-11", {0, 1, 2, 3, 8, 10, 11}, "0-3,8,10-11"},
        GoodList{"0,2,4-6", {0, 2, 4, 5, 6}, "0,2,4-6"},
        GoodList{"5-5", {5}, "5"},
        GoodList{"0-1\n", {0, 1}, "0-1"},  // as read from /sys
        GoodList{"3,1,2", {1, 2, 3}, "1-3"},
        GoodList{"0-2,1-3", {0, 1, 2, 3}, "0-3"},
        GoodList{"65535", {65535}, "65535"}));

class ParseBadTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ParseBadTest, IsInvalidArgumentQuotingTheInput) {
  absl::StatusOr<std::vector<int>> cpus = ParseCpuList(GetParam());
  ASSERT_FALSE(cpus.ok()) << "parsed \"" << GetParam() << "\"";
  EXPECT_EQ(cpus.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(cpus.status().message(), HasSubstr("cpu list"));
}

INSTANTIATE_TEST_SUITE_P(CpuLists, ParseBadTest,
                         ::testing::Values("", " ", "3-1", "a", "1,,2", ",1",
                                           "1,", "-1", "1-", "-", "1-2-3", "+1",
                                           "0x1", "1 ,2", "1.5", "0-15:2",
                                           "65536", "99999999999999"));

TEST(ParseCpuListTest, MessageNamesTheBadPart) {
  absl::StatusOr<std::vector<int>> cpus = ParseCpuList("0-3,7-5,9");
  ASSERT_FALSE(cpus.ok());
  EXPECT_THAT(cpus.status().message(), HasSubstr("\"7-5\""));
  EXPECT_THAT(cpus.status().message(), HasSubstr("backwards"));
}

TEST(FormatCpuListTest, EdgeCases) {
  EXPECT_EQ(FormatCpuList({}), "");
  EXPECT_EQ(FormatCpuList({4, 4, 4}), "4");
  EXPECT_EQ(FormatCpuList({1, 2}), "1-2");
  EXPECT_EQ(FormatCpuList({9, 0, 1, 7}), "0-1,7,9");
}

TEST(ValidateCpusTest, AcceptsOnlineRejectsOffline) {
  absl::StatusOr<Topology> topo = ReadTopology(TopologyFixtureRoot("vm_2c"));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_TRUE(ValidateCpus(*topo, {0, 1}).ok());
  EXPECT_TRUE(ValidateCpus(*topo, {}).ok());
  const absl::Status offline = ValidateCpus(*topo, {0, 2, 3});
  EXPECT_EQ(offline.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(offline.message(), HasSubstr("CPU 2 "));
  EXPECT_THAT(offline.message(), HasSubstr("0-1"));
  EXPECT_EQ(ValidateCpus(*topo, {-1}).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(AllowedCpusTest, IncludesTheCpuThisThreadRunsOn) {
  absl::StatusOr<std::vector<int>> allowed = AllowedCpus();
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  ASSERT_FALSE(allowed->empty());
  EXPECT_TRUE(std::is_sorted(allowed->begin(), allowed->end()));
  // Wherever the thread migrates, it stays inside its mask.
  EXPECT_THAT(*allowed, ::testing::Contains(sched_getcpu()));
}

// Pins, checks, and puts the thread's affinity back, so that the rest of
// the test binary runs where it was allowed to.
class PinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CPU_ZERO(&saved_);
    ASSERT_EQ(sched_getaffinity(0, sizeof(saved_), &saved_), 0);
  }
  void TearDown() override {
    ASSERT_EQ(sched_setaffinity(0, sizeof(saved_), &saved_), 0);
  }

  cpu_set_t saved_;
};

TEST_F(PinTest, PinsToAnAllowedCpu) {
  // CPU 0 where this process may run there; a container's cpuset may leave
  // CPU 0 out, and then its first allowed CPU stands in for it.
  int cpu = -1;
  for (int c = 0; c < CPU_SETSIZE && cpu < 0; ++c) {
    if (CPU_ISSET(c, &saved_)) cpu = c;
  }
  ASSERT_GE(cpu, 0);
  const absl::Status pinned = PinCurrentThread(cpu);
  ASSERT_TRUE(pinned.ok()) << pinned;
  cpu_set_t now;
  CPU_ZERO(&now);
  ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
  EXPECT_EQ(CPU_COUNT(&now), 1);
  EXPECT_TRUE(CPU_ISSET(cpu, &now));
  EXPECT_EQ(sched_getcpu(), cpu);
}

TEST_F(PinTest, NonexistentCpuIsAnErrorNamingIt) {
  const absl::Status pinned = PinCurrentThread(100000);
  ASSERT_FALSE(pinned.ok());
  EXPECT_THAT(pinned.message(), HasSubstr("100000"));
  const absl::Status negative = PinCurrentThread(-1);
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.message(), HasSubstr("-1"));
}

TEST_F(PinTest, CpuBeyondTheFixedSetSizeIsRefusedByTheKernel) {
  // 4095 needs the dynamically sized set (cpu_set_t stops at 1023) and is
  // not online here, so the kernel's own error comes back.
  if (sysconf(_SC_NPROCESSORS_CONF) > 4095) {
    GTEST_SKIP() << "this machine has a CPU 4095";
  }
  const absl::Status pinned = PinCurrentThread(4095);
  ASSERT_FALSE(pinned.ok());
  EXPECT_EQ(pinned.code(), absl::StatusCode::kInvalidArgument) << pinned;
  EXPECT_THAT(pinned.message(), HasSubstr("sched_setaffinity(CPU 4095)"));
}

}  // namespace
}  // namespace alloclab
