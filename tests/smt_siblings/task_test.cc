// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The suite of lab smt_siblings, written against task.h only. Placement is
// checked on every topology fixture (common/machine/testdata/topology: Intel
// and adjacent sibling numbering, an offline CPU, two sockets, a VM without
// SMT) and on this machine, and exactly, on every cpuset of those
// machines and of three built here (sockets that interleave, ids and cores
// with gaps, four threads a core), with the refusals' counts; the diagnosis
// on the allocator article's numbers, at and just past every edge task.h
// fixes, on a grid of ratios on both sides of each, for every kind of
// non-ratio in either argument, and by its properties on 20,000 generated
// pairs of ratios (a fixed seed). Nothing here is timed.

#include "labs/smt_siblings/task.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "common/testing/message_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace smt_siblings {

// How GoogleTest prints a Slowdown in a failure: by the table's word, not as
// a 4-byte object. In the lab's namespace, where GoogleTest looks for it.
void PrintTo(Slowdown slowdown, std::ostream* os) {
  *os << SlowdownName(slowdown);
}

namespace {

using ::alloclab::Cpu;
using ::alloclab::Mentions;
using ::alloclab::SaysCount;
using ::alloclab::Topology;
using ::testing::ElementsAre;
using ::testing::Not;
using ::testing::Pair;

const Cpu* Find(const Topology& topo, int id) {
  for (const Cpu& cpu : topo.cpus) {
    if (cpu.id == id) return &cpu;
  }
  return nullptr;
}

std::vector<int> AllOnline(const Topology& topo) {
  std::vector<int> ids;
  for (const Cpu& cpu : topo.cpus) ids.push_back(cpu.id);
  return ids;
}

bool Lists(const Cpu& cpu, int other) {
  return std::find(cpu.siblings.begin(), cpu.siblings.end(), other) !=
         cpu.siblings.end();
}

// How many cores have at least 1 (or 2) of the `allowed` online CPUs.
int CoresWith(const Topology& topo, const std::vector<int>& allowed,
              size_t at_least) {
  std::multiset<std::pair<int, int>> threads;
  for (const Cpu& cpu : topo.cpus) {
    if (std::find(allowed.begin(), allowed.end(), cpu.id) != allowed.end()) {
      threads.emplace(cpu.package_id, cpu.core_id);
    }
  }
  int cores = 0;
  for (auto it = threads.begin(); it != threads.end();
       it = threads.upper_bound(*it)) {
    if (threads.count(*it) >= at_least) ++cores;
  }
  return cores;
}

// The checks of a distinct-core pick, whatever the machine.
void ExpectDistinctCores(const Topology& topo, const std::vector<int>& allowed,
                         const std::vector<int>& picked, int n) {
  ASSERT_EQ(static_cast<int>(picked.size()), n)
      << "PickDistinctCores() returns `n` CPUs";
  EXPECT_TRUE(std::is_sorted(picked.begin(), picked.end()))
      << "PickDistinctCores() returns its CPUs in increasing order";
  std::set<std::pair<int, int>> cores;
  for (int id : picked) {
    const Cpu* cpu = Find(topo, id);
    ASSERT_NE(cpu, nullptr) << "CPU " << id << " is not online";
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), id), allowed.end())
        << "PickDistinctCores() picks only allowed CPUs; CPU " << id
        << " is not allowed";
    EXPECT_TRUE(cores.emplace(cpu->package_id, cpu->core_id).second)
        << "PickDistinctCores() picks each CPU on a different core (package, "
        << "core id); CPU " << id << " shares a core with an earlier pick";
    for (int other : picked) {
      if (other != id) {
        EXPECT_FALSE(Lists(*cpu, other))
            << "PickDistinctCores(): no two CPUs in each other's "
            << "thread_siblings_list; CPUs " << id << " and " << other
            << " are siblings";
      }
    }
  }
}

// The checks of a sibling-pair pick, whatever the machine.
void ExpectSiblingPairs(const Topology& topo, const std::vector<int>& allowed,
                        const std::vector<std::pair<int, int>>& pairs, int n) {
  ASSERT_EQ(static_cast<int>(pairs.size()), n)
      << "PickSiblingPairs() returns `n` pairs";
  std::set<std::pair<int, int>> cores;
  for (const auto& [a, b] : pairs) {
    EXPECT_LT(a, b) << "PickSiblingPairs(): each pair in increasing order";
    const Cpu* ca = Find(topo, a);
    const Cpu* cb = Find(topo, b);
    ASSERT_NE(ca, nullptr) << "CPU " << a << " is not online";
    ASSERT_NE(cb, nullptr) << "CPU " << b << " is not online";
    for (int id : {a, b}) {
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), id), allowed.end())
          << "PickSiblingPairs() picks only allowed CPUs; CPU " << id
          << " is not allowed";
    }
    EXPECT_TRUE(Lists(*ca, b) && Lists(*cb, a))
        << "PickSiblingPairs(): the two CPUs of a pair are in each other's "
        << "thread_siblings_list; CPUs " << a << " and " << b << " are not";
    EXPECT_EQ(ca->package_id, cb->package_id)
        << "PickSiblingPairs(): a pair is on one core; CPUs " << a << " and "
        << b << " are in different packages";
    EXPECT_EQ(ca->core_id, cb->core_id)
        << "PickSiblingPairs(): a pair is on one core; CPUs " << a << " and "
        << b << " have different core ids";
    EXPECT_TRUE(cores.emplace(ca->package_id, ca->core_id).second)
        << "PickSiblingPairs(): the pairs are on `n` different cores; two "
        << "pairs on the core of CPU " << a;
  }
}

// Every fixture, and this machine ("this_machine": the real /sys and this
// process's affinity mask).
class PlacementTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const bool real = GetParam() == "this_machine";
    absl::StatusOr<Topology> topo = alloclab::ReadTopology(
        real ? "/sys" : alloclab::TopologyFixtureRoot(GetParam()));
    ASSERT_TRUE(topo.ok()) << topo.status();
    topo_ = *topo;
    if (real) {
      absl::StatusOr<std::vector<int>> allowed = alloclab::AllowedCpus();
      ASSERT_TRUE(allowed.ok()) << allowed.status();
      allowed_ = *allowed;
    } else {
      allowed_ = AllOnline(topo_);
    }
  }

  Topology topo_;
  std::vector<int> allowed_;
};

TEST_P(PlacementTest, DistinctCoresAreOnDistinctCores) {
  const int cores = CoresWith(topo_, allowed_, 1);
  ASSERT_GE(cores, 1) << "setup: no core with an allowed CPU";
  for (int n = 1; n <= cores; ++n) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    absl::StatusOr<std::vector<int>> picked =
        PickDistinctCores(topo_, allowed_, n);
    ASSERT_TRUE(picked.ok()) << picked.status();
    ExpectDistinctCores(topo_, allowed_, *picked, n);
  }
  absl::StatusOr<std::vector<int>> too_many =
      PickDistinctCores(topo_, allowed_, cores + 1);
  EXPECT_EQ(too_many.status().code(), absl::StatusCode::kInvalidArgument)
      << "PickDistinctCores(n) is InvalidArgument when fewer than n cores "
      << "have an allowed CPU: " << cores << " have, n = " << cores + 1;
}

TEST_P(PlacementTest, SiblingPairsAreRealSiblings) {
  const int cores = CoresWith(topo_, allowed_, 2);
  for (int n = 1; n <= cores; ++n) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    absl::StatusOr<std::vector<std::pair<int, int>>> pairs =
        PickSiblingPairs(topo_, allowed_, n);
    ASSERT_TRUE(pairs.ok()) << pairs.status();
    ExpectSiblingPairs(topo_, allowed_, *pairs, n);
  }
  absl::StatusOr<std::vector<std::pair<int, int>>> too_many =
      PickSiblingPairs(topo_, allowed_, cores + 1);
  EXPECT_EQ(too_many.status().code(), absl::StatusCode::kInvalidArgument)
      << "PickSiblingPairs(n) is InvalidArgument when fewer than n cores "
      << "have two allowed CPUs: " << cores << " have, n = " << cores + 1;
  if (!topo_.smt()) {
    EXPECT_THAT(too_many.status().message(), Mentions("no SMT"))
        << "PickSiblingPairs()'s message says \"no SMT\" when no core has "
           "two threads";
  }
}

// A container's cpuset: only every other online CPU may be used.
TEST_P(PlacementTest, PicksOnlyAllowedCpus) {
  std::vector<int> half;
  for (size_t i = 0; i < allowed_.size(); i += 2) half.push_back(allowed_[i]);
  const int cores = CoresWith(topo_, half, 1);
  absl::StatusOr<std::vector<int>> picked =
      PickDistinctCores(topo_, half, cores);
  ASSERT_TRUE(picked.ok()) << picked.status();
  ExpectDistinctCores(topo_, half, *picked, cores);
  const int paired = CoresWith(topo_, half, 2);
  if (paired > 0) {
    absl::StatusOr<std::vector<std::pair<int, int>>> pairs =
        PickSiblingPairs(topo_, half, paired);
    ASSERT_TRUE(pairs.ok()) << pairs.status();
    ExpectSiblingPairs(topo_, half, *pairs, paired);
  }
  EXPECT_EQ(PickSiblingPairs(topo_, half, paired + 1).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "PickSiblingPairs(n) is InvalidArgument when fewer than n cores "
      << "have two allowed CPUs: with every other CPU allowed, " << paired
      << " have, n = " << paired + 1;
}

TEST_P(PlacementTest, RefusesNothingToPick) {
  EXPECT_EQ(PickDistinctCores(topo_, allowed_, 0).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "PickDistinctCores(n) is InvalidArgument when n < 1 (n = 0)";
  EXPECT_EQ(PickSiblingPairs(topo_, allowed_, 0).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "PickSiblingPairs(n) is InvalidArgument when n < 1 (n = 0)";
  EXPECT_EQ(PickDistinctCores(topo_, allowed_, -3).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "PickDistinctCores(n) is InvalidArgument when n < 1 (n = -3)";
}

// A count at the top of int: InvalidArgument as any count over the cores
// (task.h), where a count of CPUs computed as 2 * n wraps around and a
// vector sized with n cannot be had.
TEST_P(PlacementTest, RefusesACountAtTheTopOfInt) {
  for (int n : {std::numeric_limits<int>::max(),
                std::numeric_limits<int>::max() / 2 + 1}) {
    EXPECT_EQ(PickDistinctCores(topo_, allowed_, n).status().code(),
              absl::StatusCode::kInvalidArgument)
        << "PickDistinctCores(n) is InvalidArgument when fewer than n cores "
        << "have an allowed CPU: n = " << n;
    EXPECT_EQ(PickSiblingPairs(topo_, allowed_, n).status().code(),
              absl::StatusCode::kInvalidArgument)
        << "PickSiblingPairs(n) is InvalidArgument when fewer than n cores "
        << "have two allowed CPUs: n = " << n;
  }
}

std::vector<std::string> Machines() {
  std::vector<std::string> machines = alloclab::TopologyFixtures();
  machines.push_back("this_machine");
  return machines;
}

INSTANTIATE_TEST_SUITE_P(Machines, PlacementTest,
                         ::testing::ValuesIn(Machines()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           return i.param;
                         });

// The fixtures are there: a suite over an empty list would pass anything.
TEST(FixturesTest, AreThere) {
  EXPECT_GE(alloclab::TopologyFixtures().size(), 5u)
      << "setup: the topology fixtures are missing";
}

// The exact picks, lowest ids first, on machines whose numbering differs.
class ExactPickTest : public ::testing::Test {
 protected:
  static Topology Read(const std::string& machine) {
    absl::StatusOr<Topology> topo =
        alloclab::ReadTopology(alloclab::TopologyFixtureRoot(machine));
    EXPECT_TRUE(topo.ok()) << topo.status();
    return topo.ok() ? *topo : Topology{};
  }
};

// The picks, or nothing (with a failure) on an error: never a crash.
std::vector<int> Cores(const Topology& topo, const std::vector<int>& allowed,
                       int n) {
  absl::StatusOr<std::vector<int>> picked = PickDistinctCores(topo, allowed, n);
  EXPECT_TRUE(picked.ok()) << picked.status();
  return picked.ok() ? *picked : std::vector<int>{};
}

std::vector<std::pair<int, int>> Pairs(const Topology& topo,
                                       const std::vector<int>& allowed, int n) {
  absl::StatusOr<std::vector<std::pair<int, int>>> pairs =
      PickSiblingPairs(topo, allowed, n);
  EXPECT_TRUE(pairs.ok()) << pairs.status();
  return pairs.ok() ? *pairs : std::vector<std::pair<int, int>>{};
}

// Intel numbering: CPU n and n+4 share core n.
TEST_F(ExactPickTest, IntelDesktop) {
  const Topology topo = Read("desktop_4c8t");
  EXPECT_THAT(Cores(topo, AllOnline(topo), 2), ElementsAre(0, 1));
  EXPECT_THAT(Pairs(topo, AllOnline(topo), 2),
              ElementsAre(Pair(0, 4), Pair(1, 5)));
}

// `allowed` as the caller has it: in any order (a cpuset parsed from a
// list, or built by hand), the picks the same as from the sorted list.
TEST_F(ExactPickTest, AllowedInAnyOrder) {
  const Topology topo = Read("desktop_4c8t");
  const std::vector<int> reversed = {7, 6, 5, 4, 3, 2, 1, 0};
  const std::vector<int> shuffled = {5, 0, 7, 2, 4, 1, 6, 3};
  for (const std::vector<int>& allowed : {reversed, shuffled}) {
    EXPECT_THAT(Cores(topo, allowed, 4), ElementsAre(0, 1, 2, 3))
        << "allowed " << testing::PrintToString(allowed);
    EXPECT_THAT(Pairs(topo, allowed, 4),
                ElementsAre(Pair(0, 4), Pair(1, 5), Pair(2, 6), Pair(3, 7)))
        << "allowed " << testing::PrintToString(allowed);
  }
}

// The refusals say what task.h promises, in any words: how many cores have
// two allowed CPUs (none here, in digits or in words), and "no SMT" exactly
// when the machine has none; on a machine without SMT and on a cpuset of one
// thread per core, for one pair and for two.
TEST_F(ExactPickTest, RefusalsSayHowManyCoresHaveTwo) {
  const Topology no_smt = Read("vm_2c");
  const Topology smt = Read("desktop_4c8t");
  for (int n : {1, 2}) {
    const absl::Status none = PickSiblingPairs(no_smt, {0, 1}, n).status();
    EXPECT_THAT(none.message(), SaysCount(0))
        << "PickSiblingPairs(" << n << ") on a machine without SMT: the "
        << "message says how many cores have two allowed CPUs (none)";
    EXPECT_THAT(none.message(), Mentions("no SMT"))
        << "PickSiblingPairs(" << n << ") on a machine without SMT: the "
        << "message says \"no SMT\"";
    const absl::Status few = PickSiblingPairs(smt, {0, 1, 2, 3}, n).status();
    EXPECT_THAT(few.message(), SaysCount(0))
        << "PickSiblingPairs(" << n << ") on a cpuset of one thread per "
        << "core: the message says how many cores have two allowed CPUs "
        << "(none)";
    EXPECT_THAT(few.message(), Not(Mentions("no SMT")))
        << "PickSiblingPairs(" << n << ") on a cpuset of one thread per "
        << "core of a machine with SMT: the message must not say \"no SMT\"";
  }
}

// Adjacent numbering: CPUs 0 and 1 are one core.
TEST_F(ExactPickTest, AdjacentDesktop) {
  const Topology topo = Read("desktop_4c8t_adjacent");
  EXPECT_THAT(Cores(topo, AllOnline(topo), 2), ElementsAre(0, 2));
  EXPECT_THAT(Pairs(topo, AllOnline(topo), 2),
              ElementsAre(Pair(0, 1), Pair(2, 3)));
}

// CPU 5 offline: core 1 has one thread left, so three pairs at most.
TEST_F(ExactPickTest, OfflineCpu) {
  const Topology topo = Read("desktop_4c8t_cpu5_offline");
  EXPECT_THAT(Cores(topo, AllOnline(topo), 4), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(Pairs(topo, AllOnline(topo), 3),
              ElementsAre(Pair(0, 4), Pair(2, 6), Pair(3, 7)));
  const absl::Status four = PickSiblingPairs(topo, AllOnline(topo), 4).status();
  EXPECT_EQ(four.code(), absl::StatusCode::kInvalidArgument)
      << "PickSiblingPairs(4) is InvalidArgument when only 3 cores have two "
         "online CPUs (CPU 5 offline)";
  EXPECT_THAT(four.message(), SaysCount(3))
      << "PickSiblingPairs()'s message says how many cores have two allowed "
         "CPUs: 3";
}

// Two sockets with the same core ids: a core is (package, core id).
TEST_F(ExactPickTest, TwoSocketServer) {
  const Topology topo = Read("server_2s");
  EXPECT_THAT(Cores(topo, AllOnline(topo), 8),
              ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_THAT(Pairs(topo, AllOnline(topo), 2),
              ElementsAre(Pair(0, 8), Pair(1, 9)));
}

TEST_F(ExactPickTest, VmWithoutSmt) {
  const Topology topo = Read("vm_2c");
  EXPECT_THAT(Cores(topo, AllOnline(topo), 2), ElementsAre(0, 1));
  const absl::Status pairs =
      PickSiblingPairs(topo, AllOnline(topo), 1).status();
  EXPECT_EQ(pairs.code(), absl::StatusCode::kInvalidArgument)
      << "PickSiblingPairs() is InvalidArgument on a machine without SMT";
  EXPECT_THAT(pairs.message(), Mentions("no SMT"))
      << "PickSiblingPairs()'s message says \"no SMT\" when no core has two "
         "threads";
  // One allowed CPU: the message counts one core, in digits or in words.
  const absl::Status one = PickDistinctCores(topo, {0}, 2).status();
  EXPECT_EQ(one.code(), absl::StatusCode::kInvalidArgument)
      << "PickDistinctCores(2) is InvalidArgument when only CPU 0 is allowed";
  EXPECT_THAT(one.message(), SaysCount(1))
      << "PickDistinctCores()'s message says how many cores have an allowed "
         "CPU: 1";
}

// The arm64 machines (Asahi Linux on an M2, a Graviton VM): one thread per
// core, so eight and four distinct cores and no pair at all.
TEST_F(ExactPickTest, Arm64MachinesWithoutSmt) {
  for (const auto& [machine, cores] :
       {std::pair<const char*, int>{"asahi_m2", 8}, {"graviton3_vm", 4}}) {
    SCOPED_TRACE(machine);
    const Topology topo = Read(machine);
    EXPECT_EQ(Cores(topo, AllOnline(topo), cores).size(),
              static_cast<size_t>(cores));
    const absl::Status pairs =
        PickSiblingPairs(topo, AllOnline(topo), 1).status();
    EXPECT_EQ(pairs.code(), absl::StatusCode::kInvalidArgument)
        << "PickSiblingPairs() is InvalidArgument on a machine without SMT";
    EXPECT_THAT(pairs.message(), Mentions("no SMT"))
        << "PickSiblingPairs()'s message says \"no SMT\" when no core has "
           "two threads";
  }
}

// Only the second thread of each core may be used: distinct cores, but no
// pair.
TEST_F(ExactPickTest, CpusetWithOneThreadPerCore) {
  const Topology topo = Read("desktop_4c8t");
  EXPECT_THAT(Cores(topo, {4, 5, 6, 7}, 4), ElementsAre(4, 5, 6, 7));
  const absl::Status pairs = PickSiblingPairs(topo, {4, 5, 6, 7}, 1).status();
  EXPECT_EQ(pairs.code(), absl::StatusCode::kInvalidArgument)
      << "PickSiblingPairs() is InvalidArgument when no core has two "
         "allowed CPUs";
  EXPECT_THAT(pairs.message(), Not(Mentions("no SMT")))
      << "the machine has SMT, the cpuset allows one thread per core: the "
         "message must not say \"no SMT\"";
}

// Machines no fixture of common/machine/testdata has, built here: Topology is
// plain data. Each CPU is (id, package, core id); its thread_siblings_list is
// every CPU of its (package, core), itself included, as the kernel writes
// it.
struct CpuAt {
  int id, package, core;
};

Topology Machine(const std::vector<CpuAt>& cpus) {
  Topology topo;
  for (const CpuAt& at : cpus) {
    Cpu cpu;
    cpu.id = at.id;
    cpu.package_id = at.package;
    cpu.core_id = at.core;
    for (const CpuAt& other : cpus) {
      if (other.package == at.package && other.core == at.core) {
        cpu.siblings.push_back(other.id);
      }
    }
    std::sort(cpu.siblings.begin(), cpu.siblings.end());
    topo.cpus.push_back(cpu);
  }
  std::sort(topo.cpus.begin(), topo.cpus.end(),
            [](const Cpu& a, const Cpu& b) { return a.id < b.id; });
  return topo;
}

// Two sockets whose CPUs alternate, as many servers' BIOSes number them:
// even CPUs on package 0, odd on package 1, the second threads from 8 on.
// The cores' lowest CPUs, by id, are not in (package, core) order.
Topology InterleavedSockets() {
  std::vector<CpuAt> cpus;
  for (int id = 0; id < 16; ++id) cpus.push_back({id, id % 2, (id / 2) % 4});
  return Machine(cpus);
}

// Nothing contiguous: CPU ids with gaps (1, 4, 5, 8 offline), core ids 0,
// 4, 8 and 12, packages 0 and 3, and the lowest CPUs on the highest
// (package, core).
Topology NonContiguous() {
  return Machine({{0, 3, 12},
                  {2, 3, 4},
                  {3, 0, 8},
                  {6, 0, 0},
                  {7, 3, 12},
                  {9, 0, 8},
                  {10, 0, 0},
                  {11, 3, 4}});
}

// SMT4 (POWER, Xeon Phi): four threads a core, numbered adjacently.
Topology FourThreadsACore() {
  std::vector<CpuAt> cpus;
  for (int id = 0; id < 12; ++id) cpus.push_back({id, 0, id / 4});
  return Machine(cpus);
}

// The machines every cpuset is tried on: the fixtures and the three above.
std::vector<std::pair<std::string, Topology>> EveryMachine() {
  std::vector<std::pair<std::string, Topology>> machines = {
      {"interleaved_sockets", InterleavedSockets()},
      {"non_contiguous", NonContiguous()},
      {"four_threads_a_core", FourThreadsACore()},
  };
  for (const std::string& name : alloclab::TopologyFixtures()) {
    absl::StatusOr<Topology> topo =
        alloclab::ReadTopology(alloclab::TopologyFixtureRoot(name));
    EXPECT_TRUE(topo.ok()) << name << ": " << topo.status();
    if (topo.ok()) machines.emplace_back(name, *topo);
  }
  return machines;
}

// What task.h's words give, computed the plain way, for a cpuset: each
// core's allowed online CPUs, lowest id first.
std::map<std::pair<int, int>, std::vector<int>> AllowedByCore(
    const Topology& topo, const std::vector<int>& allowed) {
  std::map<std::pair<int, int>, std::vector<int>> cores;
  for (const Cpu& cpu : topo.cpus) {
    if (std::find(allowed.begin(), allowed.end(), cpu.id) != allowed.end()) {
      cores[{cpu.package_id, cpu.core_id}].push_back(cpu.id);
    }
  }
  return cores;
}

// The distinct-core pick task.h asks for, all of it: the lowest allowed CPU
// of each core, lowest ids first.
std::vector<int> ExpectedCores(const Topology& topo,
                               const std::vector<int>& allowed) {
  std::vector<int> firsts;
  for (const auto& [core, ids] : AllowedByCore(topo, allowed)) {
    firsts.push_back(*std::min_element(ids.begin(), ids.end()));
  }
  std::sort(firsts.begin(), firsts.end());
  return firsts;
}

// The pairs: on each core with two allowed threads, its two lowest allowed
// CPUs (lowest ids first), in order of their first CPU.
std::vector<std::pair<int, int>> ExpectedPairs(
    const Topology& topo, const std::vector<int>& allowed) {
  std::vector<std::pair<int, int>> pairs;
  for (auto [core, ids] : AllowedByCore(topo, allowed)) {
    std::sort(ids.begin(), ids.end());
    if (ids.size() >= 2) pairs.emplace_back(ids[0], ids[1]);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// The cpusets tried on a machine: every subset of its online CPUs when
// there are at most 8, else 300 drawn with a fixed seed, and all of them.
std::vector<std::vector<int>> Cpusets(const Topology& topo) {
  const std::vector<int> ids = AllOnline(topo);
  std::vector<std::vector<int>> sets;
  auto subset = [&ids](uint64_t mask) {
    std::vector<int> set;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (mask >> i & 1) set.push_back(ids[i]);
    }
    return set;
  };
  if (ids.size() <= 8) {
    for (uint64_t mask = 1; mask < (uint64_t{1} << ids.size()); ++mask) {
      sets.push_back(subset(mask));
    }
    return sets;
  }
  std::mt19937_64 rng(22);
  for (int i = 0; i < 300; ++i) sets.push_back(subset(rng()));
  sets.push_back(ids);
  return sets;
}

// Every cpuset of every machine, every n from 1 to one past what it has:
// the exact pick task.h describes (each core's lowest allowed CPU, the
// lowest ids first, in increasing order), and past it InvalidArgument with
// the count of cores that have an allowed CPU.
TEST(EveryCpusetTest, DistinctCoresAreTheLowestAndTheRefusalCounts) {
  int wrong = 0;
  for (const auto& [name, topo] : EveryMachine()) {
    for (const std::vector<int>& allowed : Cpusets(topo)) {
      const std::vector<int> all = ExpectedCores(topo, allowed);
      const std::string where =
          absl::StrCat(name, ", allowed ", alloclab::FormatCpuList(allowed));
      for (int n = 1; n <= static_cast<int>(all.size()) + 1; ++n) {
        absl::StatusOr<std::vector<int>> got =
            PickDistinctCores(topo, allowed, n);
        if (n > static_cast<int>(all.size())) {
          if ((got.status().code() != absl::StatusCode::kInvalidArgument ||
               !alloclab::TextSaysCount(got.status().message(), all.size())) &&
              wrong++ < 3) {
            ADD_FAILURE()
                << "PickDistinctCores(n) is InvalidArgument when fewer than "
                << "n cores have an allowed CPU (the message says how many "
                << "do: " << all.size() << "); " << where << ", n = " << n
                << ": " << got.status();
          }
          continue;
        }
        const std::vector<int> want(all.begin(), all.begin() + n);
        if ((!got.ok() || *got != want) && wrong++ < 3) {
          ADD_FAILURE() << "PickDistinctCores(): n CPUs on distinct cores, "
                        << "allowed, in increasing order, lowest ids first; "
                        << where << ", n = " << n << ": want "
                        << testing::PrintToString(want) << ", got "
                        << (got.ok() ? testing::PrintToString(*got)
                                     : got.status().ToString());
        }
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "PickDistinctCores() wrong on " << wrong
                      << " (machine, cpuset, n)";
}

// The same for the pairs: the exact pairs, and past them InvalidArgument
// with the count of cores that have two allowed CPUs ("no SMT" when the
// machine has none).
TEST(EveryCpusetTest, SiblingPairsAreTheLowestAndTheRefusalCounts) {
  int wrong = 0;
  for (const auto& [name, topo] : EveryMachine()) {
    for (const std::vector<int>& allowed : Cpusets(topo)) {
      const std::vector<std::pair<int, int>> all = ExpectedPairs(topo, allowed);
      const std::string where =
          absl::StrCat(name, ", allowed ", alloclab::FormatCpuList(allowed));
      for (int n = 1; n <= static_cast<int>(all.size()) + 1; ++n) {
        absl::StatusOr<std::vector<std::pair<int, int>>> got =
            PickSiblingPairs(topo, allowed, n);
        if (n > static_cast<int>(all.size())) {
          const absl::string_view message = got.status().message();
          const bool says =
              topo.smt() ? alloclab::TextSaysCount(message, all.size()) &&
                               !alloclab::TextMentions(message, "no SMT")
                         : alloclab::TextMentions(message, "no SMT");
          if ((got.status().code() != absl::StatusCode::kInvalidArgument ||
               !says) &&
              wrong++ < 3) {
            ADD_FAILURE()
                << "PickSiblingPairs(n) is InvalidArgument when fewer than n "
                << "cores have two allowed CPUs (the message says how many "
                << "do: " << all.size() << ", and \"no SMT\" only when no "
                << "core has two threads at all); " << where << ", n = " << n
                << ": " << got.status();
          }
          continue;
        }
        const std::vector<std::pair<int, int>> want(all.begin(),
                                                    all.begin() + n);
        if ((!got.ok() || *got != want) && wrong++ < 3) {
          ADD_FAILURE() << "PickSiblingPairs(): n pairs of allowed siblings "
                        << "on n cores, in order of their first CPU, each in "
                        << "increasing order, lowest ids first; " << where
                        << ", n = " << n << ": want "
                        << testing::PrintToString(want) << ", got "
                        << (got.ok() ? testing::PrintToString(*got)
                                     : got.status().ToString());
        }
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "PickSiblingPairs() wrong on " << wrong
                      << " (machine, cpuset, n)";
}

// The machines above, by name, all CPUs allowed: what a reader checks by
// eye.
TEST_F(ExactPickTest, InterleavedSockets) {
  const Topology topo = InterleavedSockets();
  EXPECT_THAT(Cores(topo, AllOnline(topo), 3), ElementsAre(0, 1, 2))
      << "lowest ids first: CPUs 0, 1 and 2 are on three cores (packages 0, "
         "1, 0), whatever the order of (package, core)";
  EXPECT_THAT(Pairs(topo, AllOnline(topo), 2),
              ElementsAre(Pair(0, 8), Pair(1, 9)));
}

TEST_F(ExactPickTest, NonContiguous) {
  const Topology topo = NonContiguous();
  EXPECT_THAT(Cores(topo, AllOnline(topo), 2), ElementsAre(0, 2));
  EXPECT_THAT(Pairs(topo, AllOnline(topo), 2),
              ElementsAre(Pair(0, 7), Pair(2, 11)));
}

TEST_F(ExactPickTest, FourThreadsACore) {
  const Topology topo = FourThreadsACore();
  EXPECT_THAT(Pairs(topo, AllOnline(topo), 3),
              ElementsAre(Pair(0, 1), Pair(4, 5), Pair(8, 9)))
      << "each pair the lowest ids of its core";
  EXPECT_THAT(Pairs(topo, {1, 2, 3, 5, 7, 8}, 1), ElementsAre(Pair(1, 2)))
      << "CPU 0 not allowed: its core's pair is 1 and 2";
}

// The verdicts in task.h's order, mildest first: property 7's order.
int Severity(Slowdown s) { return static_cast<int>(s); }

// ClassifiedAs()
//
// Whether ClassifySlowdown(t, c) is `expected`; a failure names the property
// of task.h (`why`) with the numbers of the case.
testing::AssertionResult ClassifiedAs(double t, double c, Slowdown expected,
                                      absl::string_view why) {
  absl::StatusOr<Slowdown> s = ClassifySlowdown(t, c);
  if (s.ok() && *s == expected) return testing::AssertionSuccess();
  testing::AssertionResult failure = testing::AssertionFailure();
  failure << "ClassifySlowdown(time_ratio " << t << ", clock_ratio " << c
          << ") must be \"" << SlowdownName(expected) << "\": " << why
          << " (task.h, with r = t / c = " << t / c
          << ", tol = kRatioTolerance = " << kRatioTolerance
          << ", B = kSharingBound = " << kSharingBound << "). It returned ";
  if (s.ok()) {
    failure << "\"" << SlowdownName(*s) << "\"";
  } else {
    failure << "an error: " << s.status();
  }
  return failure;
}

// The words of each property of task.h, for the failures.
constexpr absl::string_view kNoneRule =
    "property 2, the noise margin on the time: \"none\" exactly when "
    "t <= 1 + tol";
constexpr absl::string_view kClockRule =
    "property 4: \"clock\" always when the clock explains all of it (r <= 1, "
    "t > 1 + tol), never when it leaves more than the noise (r > 1 + tol)";
constexpr absl::string_view kSharedRule =
    "property 5: \"shared core\" always when 1 + tol < r <= B; never when "
    "r <= 1 or r > B * (1 + tol)";
constexpr absl::string_view kContentionRule =
    "property 6: \"contention\" always when r > B * (1 + tol), never when "
    "r <= B";

// The allocator article, four threads on four cores: 38 -> 47 ns a call
// while the clock fell from 4.6 to 3.8 GHz. Nobody waited.
TEST(ClassifyTest, ArticleFourCoresIsTheClock) {
  EXPECT_TRUE(ClassifiedAs(47.0 / 38.0, 4.6 / 3.8, Slowdown::kClock,
                           "the article's four cores: the clock explains "
                           "1.21x of 1.24x, 1.02x is left, within the noise"));
}

// Eight threads, two per core: 47 -> 82 ns at 3.8 GHz both times.
TEST(ClassifyTest, ArticleSiblingsAreASharedCore) {
  EXPECT_TRUE(
      ClassifiedAs(82.0 / 47.0, 3.8 / 3.8, Slowdown::kSharedCore, kSharedRule));
}

// Two threads time-sharing one CPU: each gets half, at full clock.
TEST(ClassifyTest, TimeSharingOneCpuIsASharedCore) {
  EXPECT_TRUE(ClassifiedAs(2.0, 1.0, Slowdown::kSharedCore, kSharedRule));
}

// A shared atomic counter on two cores of this course's VM: about 200 ns a
// call against 58 ns, on an unchanged clock. More than sharing explains.
TEST(ClassifyTest, SharedCounterIsContention) {
  EXPECT_TRUE(
      ClassifiedAs(200.0 / 58.0, 1.0, Slowdown::kContention, kContentionRule));
}

TEST(ClassifyTest, NoSlowdownIsNone) {
  EXPECT_TRUE(ClassifiedAs(1.0, 1.0, Slowdown::kNone, kNoneRule));
  EXPECT_TRUE(ClassifiedAs(0.9, 1.0, Slowdown::kNone, kNoneRule));
  EXPECT_TRUE(
      ClassifiedAs(1 + kRatioTolerance, 1.3, Slowdown::kNone, kNoneRule));
  EXPECT_TRUE(ClassifiedAs(1.1, 0.8, Slowdown::kNone, kNoneRule));
}

// Just inside and just outside each edge that task.h fixes (not the two
// noise bands, where the choice is the design's).
TEST(ClassifyTest, EdgesOfTheTolerance) {
  const double tol = 1 + kRatioTolerance;
  const double out = tol * 1.01;
  EXPECT_TRUE(ClassifiedAs(tol, 1.0, Slowdown::kNone, kNoneRule));
  EXPECT_TRUE(ClassifiedAs(out, 1.0, Slowdown::kSharedCore, kSharedRule));
  EXPECT_TRUE(ClassifiedAs(out, out, Slowdown::kClock, kClockRule));
  EXPECT_TRUE(
      ClassifiedAs(out * tol * 1.01, out, Slowdown::kSharedCore, kSharedRule));
  EXPECT_TRUE(
      ClassifiedAs(kSharingBound, 1.0, Slowdown::kSharedCore, kSharedRule));
  EXPECT_TRUE(ClassifiedAs(kSharingBound * tol * 1.01, 1.0,
                           Slowdown::kContention, kContentionRule));
  // The clock halves and the time triples: 1.5x beyond the clock.
  EXPECT_TRUE(ClassifiedAs(3.0, 2.0, Slowdown::kSharedCore, kSharedRule));
}

// A faster clock in the row hides nothing: it makes the rest bigger.
TEST(ClassifyTest, FasterClockLeavesMoreToExplain) {
  EXPECT_TRUE(ClassifiedAs(1.2, 0.8, Slowdown::kSharedCore, kSharedRule));
}

// The clock fell more than the time rose (a row that also got better at
// its work, or a noisy clock): the clock still explains all of it.
TEST(ClassifyTest, AClockThatExplainsMoreThanAllIsTheClock) {
  EXPECT_TRUE(ClassifiedAs(1.3, 2.0, Slowdown::kClock, kClockRule));
}

// Property tests: many (time ratio, clock ratio) pairs, drawn with a fixed
// seed (the same pairs on every run and machine: std::mt19937_64 is exactly
// specified, and the mapping to ratios below is this file's own), plus
// pairs on each side of every edge.

// A ratio between `lo` and `hi`, evenly spread in log scale.
double Draw(std::mt19937_64& rng, double lo, double hi) {
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
  return lo * std::pow(hi / lo, u);
}

// The pairs: 20,000 drawn, and each edge's neighbours.
std::vector<std::pair<double, double>> Pairs() {
  std::mt19937_64 rng(20260101);
  std::vector<std::pair<double, double>> pairs;
  for (int i = 0; i < 20000; ++i) {
    const double c = Draw(rng, 0.5, 3.0);
    pairs.emplace_back(Draw(rng, 0.5, 8.0), c);
  }
  const double tol = 1 + kRatioTolerance;
  for (double edge : {1.0, tol, kSharingBound, kSharingBound * tol}) {
    for (double c : {0.7, 1.0, 1.3}) {
      for (double f : {0.999, 0.9999999, 1.0, 1.0000001, 1.001}) {
        if (edge * c * f > tol * 1.0000001) {
          pairs.emplace_back(edge * c * f, c);  // r at the edge
        }
        pairs.emplace_back(edge * f, c);  // t at the edge
      }
    }
  }
  return pairs;
}

// Checks `property(t, c, verdict)` on every pair: an empty string when it
// holds, else what is wrong. Reports the first three counterexamples and
// how many there are.
void ExpectOnEveryPair(absl::string_view rule,
                       const std::function<std::string(double t, double c,
                                                       Slowdown s)>& property) {
  int wrong = 0;
  int pairs = 0;
  for (const auto& [t, c] : Pairs()) {
    ++pairs;
    absl::StatusOr<Slowdown> s = ClassifySlowdown(t, c);
    if (!s.ok()) {
      if (wrong++ < 3) {
        ADD_FAILURE() << "ClassifySlowdown(" << t << ", " << c
                      << ") refused positive finite ratios: " << s.status();
      }
      continue;
    }
    const std::string problem = property(t, c, *s);
    if (!problem.empty() && wrong++ < 3) {
      ADD_FAILURE() << rule << " (task.h): ClassifySlowdown(time_ratio " << t
                    << ", clock_ratio " << c << "), r = " << t / c
                    << ", returned \"" << SlowdownName(*s) << "\": " << problem;
    }
  }
  EXPECT_EQ(wrong, 0) << rule << ": broken on " << wrong << " of " << pairs
                      << " pairs";
}

TEST(ClassifyPropertyTest, NoneExactlyWithinTheTolerance) {
  ExpectOnEveryPair(kNoneRule, [](double t, double, Slowdown s) {
    const bool within = t <= 1 + kRatioTolerance;
    if (within && s != Slowdown::kNone) return "t <= 1 + tol: want \"none\"";
    if (!within && s == Slowdown::kNone) return "t > 1 + tol: not \"none\"";
    return "";
  });
}

TEST(ClassifyPropertyTest, ClockWhenTheClockExplainsIt) {
  ExpectOnEveryPair(kClockRule, [](double t, double c, Slowdown s) {
    if (t <= 1 + kRatioTolerance) return "";
    const double r = t / c;
    if (r <= 1 && s != Slowdown::kClock) return "r <= 1: want \"clock\"";
    if (r > 1 + kRatioTolerance && s == Slowdown::kClock) {
      return "r > 1 + tol: not \"clock\"";
    }
    return "";
  });
}

TEST(ClassifyPropertyTest, SharedCoreWithinTheBound) {
  ExpectOnEveryPair(kSharedRule, [](double t, double c, Slowdown s) {
    if (t <= 1 + kRatioTolerance) return "";
    const double r = t / c;
    const bool shared = s == Slowdown::kSharedCore;
    if (r > 1 + kRatioTolerance && r <= kSharingBound && !shared) {
      return "1 + tol < r <= B: want \"shared core\"";
    }
    if (r <= 1 && shared) return "r <= 1: not \"shared core\"";
    if (r > kSharingBound * (1 + kRatioTolerance) && shared) {
      return "r > B * (1 + tol): not \"shared core\"";
    }
    return "";
  });
}

TEST(ClassifyPropertyTest, ContentionBeyondTheBound) {
  ExpectOnEveryPair(kContentionRule, [](double t, double c, Slowdown s) {
    if (t <= 1 + kRatioTolerance) return "";
    const double r = t / c;
    const bool contention = s == Slowdown::kContention;
    if (r > kSharingBound * (1 + kRatioTolerance) && !contention) {
      return "r > B * (1 + tol): want \"contention\"";
    }
    if (r <= kSharingBound && contention) return "r <= B: not \"contention\"";
    return "";
  });
}

// Property 3: beyond the noise on the time, only r counts. Each drawn r
// (away from the edges, where rounding t / c could cross one) is tried with
// five clock ratios.
TEST(ClassifyPropertyTest, OnlyWhatTheClockLeavesCounts) {
  std::mt19937_64 rng(7);
  const double tol = 1 + kRatioTolerance;
  int wrong = 0;
  for (int i = 0; i < 4000; ++i) {
    const double r = Draw(rng, 0.4, 6.0);
    bool near_edge = false;
    for (double edge : {1.0, tol, kSharingBound, kSharingBound * tol}) {
      near_edge |= std::abs(r / edge - 1) < 1e-6;
    }
    if (near_edge) continue;
    std::optional<Slowdown> first;
    double first_c = 0;
    for (double c : {0.6, 1.0, 1.4, 2.2, 3.5}) {
      const double t = r * c;
      if (t <= tol * (1 + 1e-6)) continue;
      absl::StatusOr<Slowdown> s = ClassifySlowdown(t, c);
      ASSERT_TRUE(s.ok()) << "ClassifySlowdown(" << t << ", " << c
                          << ") refused positive finite ratios: " << s.status();
      if (!first.has_value()) {
        first = *s;
        first_c = c;
      } else if (*s != *first && wrong++ < 3) {
        ADD_FAILURE() << "property 3, the clock is divided out: once t > 1 + "
                      << "tol the verdict depends on r = t / c alone (task.h)"
                      << "; r = " << r << " is \"" << SlowdownName(*first)
                      << "\" at clock ratio " << first_c << " but \""
                      << SlowdownName(*s) << "\" at clock ratio " << c;
      }
    }
  }
  EXPECT_EQ(wrong, 0) << "property 3 broken " << wrong << " times";
}

// Property 7, along lines of the plane: t rising at a fixed c, and c rising
// at a fixed t beyond the noise.
TEST(ClassifyPropertyTest, Monotonic) {
  std::mt19937_64 rng(11);
  int wrong = 0;
  auto verdict = [](double t, double c) {
    absl::StatusOr<Slowdown> s = ClassifySlowdown(t, c);
    EXPECT_TRUE(s.ok()) << "ClassifySlowdown(" << t << ", " << c
                        << ") refused positive finite ratios: " << s.status();
    return s.ok() ? *s : Slowdown::kNone;
  };
  for (int line = 0; line < 200; ++line) {
    const double fixed = Draw(rng, 0.5, 3.0);
    const double tol = 1 + kRatioTolerance;
    const double fixed_t = tol * Draw(rng, 1.001, 6.0);
    std::optional<Slowdown> by_t, by_c;
    double last_t = 0, last_c = 0;
    for (int step = 0; step <= 400; ++step) {
      const double x = 0.5 * std::pow(16.0, step / 400.0);  // 0.5 to 8
      const Slowdown st = verdict(x, fixed);
      if (by_t.has_value() && Severity(st) < Severity(*by_t) && wrong++ < 3) {
        ADD_FAILURE() << "property 7, monotonic: a larger time ratio never "
                      << "gives a milder verdict (task.h); clock ratio "
                      << fixed << ": time ratio " << last_t << " is \""
                      << SlowdownName(*by_t) << "\", " << x << " is \""
                      << SlowdownName(st) << "\"";
      }
      by_t = st;
      last_t = x;
      const double y = 0.25 * std::pow(32.0, step / 400.0);  // 0.25 to 8
      const Slowdown sc = verdict(fixed_t, y);
      if (by_c.has_value() && Severity(sc) > Severity(*by_c) && wrong++ < 3) {
        ADD_FAILURE() << "property 7, monotonic: a slower clock (a larger "
                      << "clock ratio) never gives a harsher verdict "
                      << "(task.h); time ratio " << fixed_t << ": clock ratio "
                      << last_c << " is \"" << SlowdownName(*by_c) << "\", "
                      << y << " is \"" << SlowdownName(sc) << "\"";
      }
      by_c = sc;
      last_c = y;
    }
  }
  EXPECT_EQ(wrong, 0) << "property 7 broken " << wrong << " times";
}

// Property 3 on a grid rather than a draw: r inside each noise band (where
// the design chooses, but must choose by r alone), just past each edge and
// in between, each tried with 90 clock ratios from 0.25 to 8 (both sides of
// 1, every tolerance edge). The r just past an edge are 1e-9 from it, far
// beyond what rounding t / c can move, so that any way of writing the rule
// gives one verdict per r; r exactly at an edge is tried with clock ratios
// that are powers of two, for which t = r * c and t / c are exact.
TEST(ClassifyEdgeTest, OnlyWhatTheClockLeavesCountsOnAGrid) {
  const double tol = 1 + kRatioTolerance;
  const double edges[] = {1.0, tol, kSharingBound, kSharingBound * tol};
  std::vector<double> rs = {0.3, 0.5, 0.8, 1.5, 1.8, 3.0, 5.0};
  for (int k = 1; k < 16; ++k) {
    rs.push_back(1 + kRatioTolerance * k / 16);                    // band 1
    rs.push_back(kSharingBound * (1 + kRatioTolerance * k / 16));  // band 2
  }
  for (double edge : edges) {
    for (double f : {1 - 1e-3, 1 - 1e-9, 1 + 1e-9, 1 + 1e-3}) {
      rs.push_back(edge * f);
    }
  }
  std::vector<double> cs;
  for (int k = -32; k <= 48; ++k) cs.push_back(std::pow(2.0, k / 16.0));
  for (double edge : edges) {
    for (double f : {1 - 1e-9, 1.0, 1 + 1e-9}) cs.push_back(edge * f);
  }
  int wrong = 0;
  auto expect_one_verdict = [&wrong, tol](double r,
                                          const std::vector<double>& clocks) {
    std::optional<Slowdown> first;
    double first_c = 0;
    for (double c : clocks) {
      const double t = r * c;
      if (t <= tol * (1 + 1e-9)) continue;  // property 2's, not 3's
      absl::StatusOr<Slowdown> s = ClassifySlowdown(t, c);
      if (!s.ok()) {
        if (wrong++ < 3) {
          ADD_FAILURE() << "ClassifySlowdown(" << t << ", " << c
                        << ") refused positive finite ratios: " << s.status();
        }
        continue;
      }
      if (!first.has_value()) {
        first = *s;
        first_c = c;
      } else if (*s != *first && wrong++ < 3) {
        ADD_FAILURE() << "property 3, the clock is divided out: once t > 1 + "
                      << "tol the verdict depends on r = t / c alone (task.h)"
                      << "; r = " << r << " is \"" << SlowdownName(*first)
                      << "\" at clock ratio " << first_c << " but \""
                      << SlowdownName(*s) << "\" at clock ratio " << c;
      }
    }
  };
  for (double r : rs) expect_one_verdict(r, cs);
  for (double edge : edges) {
    expect_one_verdict(edge, {0.25, 0.5, 1.0, 2.0, 4.0, 8.0});
  }
  EXPECT_EQ(wrong, 0) << "property 3 broken " << wrong << " times";
}

// Properties 2, 4, 5 and 6 at each edge they fix and just past it: t at
// 1 + tol exactly, r at 1, 1 + tol, B and B * (1 + tol) exactly (clock
// ratios that are powers of two keep t = r * c exact) and 1e-9 to either
// side, with clock ratios below, at and above 1.
TEST(ClassifyEdgeTest, EveryEdgeExactlyAndJustPast) {
  const double tol = 1 + kRatioTolerance;
  const double bound = kSharingBound * tol;
  const double below = 1 - 1e-9, above = 1 + 1e-9;
  for (double c : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    EXPECT_TRUE(ClassifiedAs(tol, c, Slowdown::kNone, kNoneRule));
    EXPECT_TRUE(ClassifiedAs(tol * below, c, Slowdown::kNone, kNoneRule));
    absl::StatusOr<Slowdown> past = ClassifySlowdown(tol * above, c);
    EXPECT_TRUE(past.ok() && *past != Slowdown::kNone)
        << "ClassifySlowdown(" << tol * above << ", " << c << "): " << kNoneRule
        << " (task.h): t is past 1 + tol";
    struct Case {
      double r;
      Slowdown want;
      absl::string_view rule;
    };
    for (const Case& k : std::vector<Case>{
             {1.0, Slowdown::kClock, kClockRule},
             {below, Slowdown::kClock, kClockRule},
             {tol * above, Slowdown::kSharedCore, kSharedRule},
             {kSharingBound * below, Slowdown::kSharedCore, kSharedRule},
             {kSharingBound, Slowdown::kSharedCore, kSharedRule},
             {bound * above, Slowdown::kContention, kContentionRule},
         }) {
      if (k.r * c <= tol) continue;  // t within the noise: property 2's
      EXPECT_TRUE(ClassifiedAs(k.r * c, c, k.want, k.rule));
    }
    // In the bands the design chooses, between two neighbours only.
    for (auto [r, milder, harsher] :
         std::vector<std::tuple<double, Slowdown, Slowdown>>{
             {above, Slowdown::kClock, Slowdown::kSharedCore},
             {tol, Slowdown::kClock, Slowdown::kSharedCore},
             {kSharingBound * above, Slowdown::kSharedCore,
              Slowdown::kContention},
             {bound, Slowdown::kSharedCore, Slowdown::kContention}}) {
      if (r * c <= tol) continue;
      absl::StatusOr<Slowdown> s = ClassifySlowdown(r * c, c);
      EXPECT_TRUE(s.ok() && (*s == milder || *s == harsher))
          << "ClassifySlowdown(" << r * c << ", " << c << "), r = " << r
          << ": in a noise band task.h allows \"" << SlowdownName(milder)
          << "\" or \"" << SlowdownName(harsher) << "\", got "
          << (s.ok() ? std::string(SlowdownName(*s)) : s.status().ToString());
    }
  }
}

// Property 1 for every kind of non-ratio in either argument and in both,
// beside ratios below, at and above 1; and every positive finite number is
// a ratio, the extremes too (the smallest subnormal, the largest double).
TEST(ClassifyEdgeTest, RefusesEveryNonRatioInEitherArgument) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double bad[] = {0.0,  -0.0, -std::numeric_limits<double>::denorm_min(),
                        -1.0, -inf, inf,
                        nan,  -nan};
  const double good[] = {std::numeric_limits<double>::denorm_min(),
                         std::numeric_limits<double>::min(),
                         0.5,
                         1.0,
                         1 + kRatioTolerance,
                         3.0,
                         std::numeric_limits<double>::max()};
  auto refused = [](double t, double c) {
    return ClassifySlowdown(t, c).status().code() ==
           absl::StatusCode::kInvalidArgument;
  };
  for (double b : bad) {
    for (double g : good) {
      EXPECT_TRUE(refused(b, g))
          << "property 1: InvalidArgument when a ratio is not a positive "
          << "finite number (task.h): time ratio " << b << ", clock ratio "
          << g;
      EXPECT_TRUE(refused(g, b))
          << "property 1: InvalidArgument when a ratio is not a positive "
          << "finite number (task.h): time ratio " << g << ", clock ratio "
          << b;
    }
    for (double b2 : bad) {
      EXPECT_TRUE(refused(b, b2))
          << "property 1: InvalidArgument when a ratio is not a positive "
          << "finite number (task.h): time ratio " << b << ", clock ratio "
          << b2;
    }
  }
  for (double t : good) {
    for (double c : good) {
      absl::StatusOr<Slowdown> s = ClassifySlowdown(t, c);
      EXPECT_TRUE(s.ok()) << "every positive finite ratio is a ratio: time "
                          << "ratio " << t << ", clock ratio " << c << ": "
                          << s.status();
      if (s.ok() && t <= 1 + kRatioTolerance) {
        EXPECT_EQ(*s, Slowdown::kNone)
            << kNoneRule << ": t = " << t << ", c = " << c;
      }
    }
  }
}

TEST(ClassifyTest, RefusesRatiosThatAreNotRatios) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (auto [t, c] : std::vector<std::pair<double, double>>{
           {0, 1}, {1, 0}, {-2, 1}, {1, -1}, {nan, 1}, {1, nan}, {inf, 1}}) {
    EXPECT_EQ(ClassifySlowdown(t, c).status().code(),
              absl::StatusCode::kInvalidArgument)
        << "ClassifySlowdown() is InvalidArgument when a ratio is not a "
        << "positive finite number: " << t << ", " << c;
  }
}

TEST(ClassifyTest, NamesAreTheTablesWords) {
  EXPECT_EQ(SlowdownName(Slowdown::kNone), "none")
      << "SlowdownName() gives the table's words";
  EXPECT_EQ(SlowdownName(Slowdown::kClock), "clock")
      << "SlowdownName() gives the table's words";
  EXPECT_EQ(SlowdownName(Slowdown::kSharedCore), "shared core")
      << "SlowdownName() gives the table's words";
  EXPECT_EQ(SlowdownName(Slowdown::kContention), "contention")
      << "SlowdownName() gives the table's words";
}

}  // namespace
}  // namespace smt_siblings
