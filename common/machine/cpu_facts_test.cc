// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The CPU's facts, on the two arm64 shapes learners have (fixtures in
// common/machine/testdata/topology/: asahi_m2, Asahi Linux on an M2 Mac (bare
// metal, hand-made) with 16 KiB pages and 128-byte lines, performance and
// efficiency clusters, no SMT; graviton3_vm, a 4-vCPU Graviton3 instance with
// 64 KiB pages and 64-byte lines, no SMT), on an x86 fixture without cache/
// (most VMs), on broken trees, and on this machine.

#include "common/machine/cpu_facts.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "common/machine/vm_facts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;

// One arm64 shape as its fixture describes it (the fixture's answer: this
// machine cannot show it).
struct Shape {
  const char* machine;
  size_t page_bytes;
  size_t line_bytes;
  int cpus;
  std::vector<int> efficiency;
};

class Arm64ShapeTest : public ::testing::TestWithParam<Shape> {};

TEST_P(Arm64ShapeTest, PageSizeFromSmaps) {
  absl::StatusOr<size_t> page =
      ReadKernelPageBytes(TopologyFixtureProcRoot(GetParam().machine));
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(*page, GetParam().page_bytes);
}

TEST_P(Arm64ShapeTest, CacheLineFromSysfs) {
  absl::StatusOr<CacheLine> line =
      ReadCacheLine(TopologyFixtureRoot(GetParam().machine));
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->bytes, GetParam().line_bytes);
  EXPECT_EQ(line->source, "sysfs");
}

// arm64 has no TSC: its kernels count time with the generic timer.
TEST_P(Arm64ShapeTest, ClockIsTheArchCounterNotTheTsc) {
  absl::StatusOr<std::string> clock =
      ReadClocksource(TopologyFixtureRoot(GetParam().machine));
  ASSERT_TRUE(clock.ok()) << clock.status();
  EXPECT_EQ(*clock, "arch_sys_counter");
}

// The fixture is one machine: its THP tree belongs to its page size. A PMD
// maps one page-table page of 8-byte entries, page / 8 of them.
TEST_P(Arm64ShapeTest, ThpPmdSizeFitsThePageSize) {
  absl::StatusOr<ThpSettings> thp =
      ReadThpSettings(TopologyFixtureRoot(GetParam().machine));
  ASSERT_TRUE(thp.ok()) << thp.status();
  const size_t page = GetParam().page_bytes;
  EXPECT_EQ(thp->pmd_bytes, page * (page / 8));
  for (const ThpSize& size : thp->sizes) {
    EXPECT_GT(size.bytes, page) << "a THP size is larger than a base page";
    EXPECT_EQ(size.bytes % page, 0u);
  }
}

TEST_P(Arm64ShapeTest, NoSmtAndTheEfficiencyCluster) {
  absl::StatusOr<Topology> topo =
      ReadTopology(TopologyFixtureRoot(GetParam().machine));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->logical_cpus(), GetParam().cpus);
  EXPECT_EQ(topo->physical_cores(), GetParam().cpus);
  EXPECT_FALSE(topo->smt());
  EXPECT_EQ(topo->efficiency_cpus, GetParam().efficiency);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Arm64ShapeTest,
    ::testing::Values(Shape{"asahi_m2", 16384, 128, 8, {0, 1, 2, 3}},
                      Shape{"graviton3_vm", 65536, 64, 4, {}}),
    [](const ::testing::TestParamInfo<Shape>& info) {
      return std::string(info.param.machine);
    });

TEST(ReadTopologyTest, AppleClustersAreReadWhereTheKernelGivesThem) {
  absl::StatusOr<Topology> apple =
      ReadTopology(TopologyFixtureRoot("asahi_m2"));
  ASSERT_TRUE(apple.ok()) << apple.status();
  EXPECT_EQ(apple->cpus[0].cluster_id, 0);
  EXPECT_EQ(apple->cpus[7].cluster_id, 1);
  absl::StatusOr<Topology> vm = ReadTopology(TopologyFixtureRoot("vm_2c"));
  ASSERT_TRUE(vm.ok()) << vm.status();
  EXPECT_EQ(vm->cpus[0].cluster_id, -1) << "no cluster_id file";
}

// An x86 VM's tree without cache/: a fixture root never falls back to this
// machine's sysconf.
TEST(ReadCacheLineTest, FixtureWithoutCachesIsNotFound) {
  absl::StatusOr<CacheLine> line = ReadCacheLine(TopologyFixtureRoot("vm_2c"));
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(line.status().message(), HasSubstr("coherency_line_size"));
  EXPECT_THAT(DescribeCacheLine(line), HasSubstr("cache line n/a ("));
}

TEST(ReadCacheLineTest, ThisMachineAnswersOrSaysWhy) {
  absl::StatusOr<CacheLine> line = ReadCacheLine();
  if (!line.ok()) {
    EXPECT_EQ(line.status().code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(line.status().message(), HasSubstr("sysconf"));
    return;
  }
  EXPECT_GE(line->bytes, 16u);
  EXPECT_EQ(line->bytes & (line->bytes - 1), 0u) << "a power of two";
  EXPECT_EQ(DescribeCacheLine(line),
            std::to_string(line->bytes) + "-byte cache lines");
}

// A tree in the test's temporary directory: one CPU, its caches written by
// the test.
class CacheTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/cpu_facts_tree";
    std::filesystem::remove_all(root_);
    Write("online", "0");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void Write(const std::string& file, const std::string& text) {
    const std::filesystem::path path =
        std::filesystem::path(root_) / "devices/system/cpu" / file;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text << "\n";
  }
  void Cache(int index, const std::string& type, const std::string& line) {
    const std::string dir = "cpu0/cache/index" + std::to_string(index) + "/";
    Write(dir + "type", type);
    Write(dir + "coherency_line_size", line);
  }

  std::string root_;
};

TEST_F(CacheTreeTest, TheLargestDataLineCountsAndInstructionLinesDoNot) {
  Cache(0, "Data", "64");
  Cache(1, "Instruction", "256");
  Cache(2, "Unified", "128");
  absl::StatusOr<CacheLine> line = ReadCacheLine(root_);
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->bytes, 128u);
}

TEST_F(CacheTreeTest, AGarbledLineNamesTheFile) {
  Cache(0, "Data", "96");
  absl::StatusOr<CacheLine> line = ReadCacheLine(root_);
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(line.status().message(),
              HasSubstr("cpu0/cache/index0/coherency_line_size"));
}

TEST(ReadKernelPageBytesTest, ThisKernelAgreesWithSysconf) {
  absl::StatusOr<size_t> page = ReadKernelPageBytes();
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(*page, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
}

TEST(ReadKernelPageBytesTest, NoSmapsIsNotFoundNamingIt) {
  absl::StatusOr<size_t> page = ReadKernelPageBytes("/nonexistent/alloclab");
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(page.status().message(), HasSubstr("/self/smaps"));
}

TEST(ArchitectureTest, IsTheOneThisBinaryWasBuiltFor) {
#if defined(__x86_64__)
  EXPECT_EQ(Architecture(), "x86_64");
#elif defined(__aarch64__)
  EXPECT_EQ(Architecture(), "aarch64");
#else
  EXPECT_FALSE(Architecture().empty());
#endif
}

}  // namespace
}  // namespace alloclab
