// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// What first_call's 256 KiB buffer is on the arm64 machines learners have,
// from their fixtures (common/machine/testdata/topology/): the page size the
// kernel reports (KernelPageSize in smaps), the buffer in those pages (the
// faults the cold call pays, one per page: MapBuffer asks for base pages), and
// whether any enabled THP size could fit in the buffer at all. The
// fixture's answer: this machine's own pages are checked by the suite.

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "common/machine/cpu_facts.h"
#include "common/machine/topology_fixtures.h"
#include "common/machine/vm_facts.h"
#include "gtest/gtest.h"
#include "labs/first_call/baseline.h"

namespace first_call {
namespace {

struct Shape {
  const char* machine;
  size_t page_bytes;
  size_t buffer_pages;  // kBufferBytes in those pages
};

class ShapeTest : public ::testing::TestWithParam<Shape> {};

TEST_P(ShapeTest, TheBufferInThatMachinesPages) {
  const Shape& shape = GetParam();
  const absl::StatusOr<size_t> page = alloclab::ReadKernelPageBytes(
      alloclab::TopologyFixtureProcRoot(shape.machine));
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(*page, shape.page_bytes);
  EXPECT_EQ(alloclab::PagesIn(kBufferBytes, *page), shape.buffer_pages);
  EXPECT_EQ(kBufferBytes % *page, 0u) << "the buffer is whole pages there";
}

// Every enabled THP size there is larger than the buffer: even without
// MapBuffer's MADV_NOHUGEPAGE, each fault of the cold call maps one base
// page, so its fault count is the page count above.
TEST_P(ShapeTest, NoEnabledThpSizeFitsInTheBuffer) {
  const absl::StatusOr<alloclab::ThpSettings> thp = alloclab::ReadThpSettings(
      alloclab::TopologyFixtureRoot(GetParam().machine));
  ASSERT_TRUE(thp.ok()) << thp.status();
  ASSERT_FALSE(thp->EnabledSizes().empty());
  for (const alloclab::ThpSize& size : thp->EnabledSizes()) {
    EXPECT_GT(size.bytes, kBufferBytes) << size.bytes << " " << size.mode;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ShapeTest,
                         ::testing::Values(Shape{"asahi_m2", 16384, 16},
                                           Shape{"graviton3_vm", 65536, 4}),
                         [](const ::testing::TestParamInfo<Shape>& info) {
                           return std::string(info.param.machine);
                         });

// And here: the same buffer in this machine's pages.
TEST(ThisMachineTest, TheBufferInThisMachinesPages) {
  EXPECT_EQ(PagesIn(kBufferBytes),
            alloclab::PagesIn(kBufferBytes, alloclab::PageBytes()));
  EXPECT_EQ(PagesIn(kBufferBytes) * PageBytes(), kBufferBytes);
}

}  // namespace
}  // namespace first_call
