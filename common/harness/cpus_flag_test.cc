// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/cpus_flag.h"

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(std::string, cpus);

namespace alloclab {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

class CpusFlagTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Topology> topo = ReadTopology();
    ASSERT_TRUE(topo.ok()) << topo.status();
    topo_ = *topo;
    absl::StatusOr<std::vector<int>> allowed = AllowedCpus();
    ASSERT_TRUE(allowed.ok()) << allowed.status();
    allowed_ = *allowed;
  }

  absl::FlagSaver saver_;  // every test's --cpus is put back
  Topology topo_;
  std::vector<int> allowed_;
};

TEST_F(CpusFlagTest, EmptyMeansTheAffinityMask) {
  absl::StatusOr<std::vector<int>> cpus = UsableCpus(topo_);
  ASSERT_TRUE(cpus.ok()) << cpus.status();
  EXPECT_THAT(*cpus, ElementsAreArray(allowed_));
}

TEST_F(CpusFlagTest, AListIsCheckedAndSorted) {
  absl::SetFlag(&FLAGS_cpus, FormatCpuList(allowed_));
  absl::StatusOr<std::vector<int>> cpus = UsableCpus(topo_);
  ASSERT_TRUE(cpus.ok()) << cpus.status();
  EXPECT_THAT(*cpus, ElementsAreArray(allowed_));
}

TEST_F(CpusFlagTest, BadListsNameTheFlagAndTheProblem) {
  const struct {
    const char* value;
    const char* why;
  } cases[] = {
      {"abc", "not a CPU number"},
      {"3-1", "runs backwards"},
      {"0,,1", "empty entry"},
      {"4095", "CPU 4095 is not online"},
  };
  for (const auto& c : cases) {
    absl::SetFlag(&FLAGS_cpus, c.value);
    const absl::Status status = UsableCpus(topo_).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.value;
    EXPECT_THAT(status.message(), HasSubstr(std::string("--cpus=") + c.value));
    EXPECT_THAT(status.message(), HasSubstr(c.why));
  }
}

// On a fixture: CPU 5 is online there, and outside any mask given here.
TEST_F(CpusFlagTest, OnlineButNotAllowedIsRefused) {
  absl::StatusOr<Topology> desktop =
      ReadTopology(TopologyFixtureRoot("desktop_4c8t"));
  ASSERT_TRUE(desktop.ok()) << desktop.status();
  int outside = -1;
  for (int cpu = 0; cpu < 8 && outside < 0; ++cpu) {
    bool in = false;
    for (int a : allowed_) in = in || a == cpu;
    if (!in) outside = cpu;
  }
  if (outside < 0) GTEST_SKIP() << "this process may run on CPUs 0-7 all";
  absl::SetFlag(&FLAGS_cpus, std::to_string(outside));
  const absl::Status status = UsableCpus(*desktop).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("outside this thread's affinity"));
}

}  // namespace
}  // namespace alloclab
