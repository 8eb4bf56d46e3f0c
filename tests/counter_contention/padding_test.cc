// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// What the padded slot must be on the machines learners have: each
// fixture's cache line (coherency_line_size in its /sys tree) against
// kCacheLineBytes as the lab sets it for that machine's architecture, and
// how many 8-byte slots of kPacked share one line there. On this machine,
// kCacheLineBytes is the one this table gives for its architecture and
// covers the line this machine reports. Addresses and sizes only.

#include <cstddef>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "common/machine/cpu_facts.h"
#include "common/machine/topology_fixtures.h"
#include "gtest/gtest.h"
#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace {

// task.h's kCacheLineBytes for each architecture the course is built for.
const std::map<std::string, size_t>& PaddingFor() {
  static const auto* const padding =
      new std::map<std::string, size_t>{{"x86_64", 64}, {"aarch64", 128}};
  return *padding;
}

// kPacked's slot (counters.h): one 8-byte count per thread.
constexpr size_t kPackedSlotBytes = 8;

TEST(PaddingTest, ThisBuildPadsAsTheTableSays) {
  const std::string arch = alloclab::Architecture();
  const auto it = PaddingFor().find(arch);
  if (it == PaddingFor().end())
    GTEST_SKIP() << "no padding listed for " << arch;
  EXPECT_EQ(kCacheLineBytes, it->second) << arch;
}

TEST(PaddingTest, CoversThisMachinesLine) {
  const absl::StatusOr<alloclab::CacheLine> line = alloclab::ReadCacheLine();
  if (!line.ok()) GTEST_SKIP() << line.status();
  EXPECT_GE(kCacheLineBytes, line->bytes)
      << "promise 4 (slots never in one cache line) needs kCacheLineBytes "
      << "of at least this machine's line: " << line->bytes << " bytes ("
      << line->source << ")";
}

struct Shape {
  const char* machine;
  const char* arch;
  size_t line_bytes;       // the fixture's coherency_line_size
  size_t packed_per_line;  // kPacked's slots that share one line there
  size_t lines_per_slot;   // lines one padded slot spans there
};

class ShapeTest : public ::testing::TestWithParam<Shape> {};

TEST_P(ShapeTest, ThePaddedSlotCoversTheLine) {
  const Shape& shape = GetParam();
  const absl::StatusOr<alloclab::CacheLine> line =
      alloclab::ReadCacheLine(alloclab::TopologyFixtureRoot(shape.machine));
  ASSERT_TRUE(line.ok()) << line.status();
  ASSERT_EQ(line->bytes, shape.line_bytes);
  const size_t padding = PaddingFor().at(shape.arch);
  EXPECT_GE(padding, line->bytes)
      << shape.machine << ": a padded slot of " << padding
      << " bytes would share a " << line->bytes << "-byte line";
  EXPECT_EQ(padding % line->bytes, 0u);
  EXPECT_EQ(padding / line->bytes, shape.lines_per_slot);
  EXPECT_EQ(line->bytes / kPackedSlotBytes, shape.packed_per_line);
}

// The fixture's answer: 128-byte lines on Apple Silicon, where the x86-64
// padding of 64 would put two threads' slots in one line; 64-byte lines on
// Graviton, where arm64's 128 spends two lines per slot.
INSTANTIATE_TEST_SUITE_P(
    Shapes, ShapeTest,
    ::testing::Values(Shape{"asahi_m2", "aarch64", 128, 16, 1},
                      Shape{"graviton3_vm", "aarch64", 64, 8, 2}),
    [](const ::testing::TestParamInfo<Shape>& info) {
      return std::string(info.param.machine);
    });

// x86-64's padding is too small for Apple Silicon's line: the reason
// arm64 builds pad to 128.
TEST(PaddingTest, X86PaddingIsTooSmallForApplesLine) {
  const absl::StatusOr<alloclab::CacheLine> line =
      alloclab::ReadCacheLine(alloclab::TopologyFixtureRoot("asahi_m2"));
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_LT(PaddingFor().at("x86_64"), line->bytes);
}

}  // namespace
}  // namespace counter_contention
