// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The parser on lines in the kernel's format (a file, an anonymous mapping,
// the heap, a line without its newline, lines that are not mappings), and
// the reader on this process: a mapping it makes itself is listed, with its
// exact range, and disappears once unmapped.

#include "common/instruments/proc_maps.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

TEST(ParseMappingTest, FileMapping) {
  const std::optional<Mapping> m = ParseMapping(
      "7f12a4e00000-7f12a4e28000 r--p 00000000 08:01 1835028"
      "                    /usr/lib/x86_64-linux-gnu/libc.so.6\n");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->start, uintptr_t{0x7f12a4e00000});
  EXPECT_EQ(m->end, uintptr_t{0x7f12a4e28000});
  EXPECT_EQ(m->name, "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

TEST(ParseMappingTest, AnonymousMappingHasNoName) {
  const std::optional<Mapping> m =
      ParseMapping("7f12a4c00000-7f12a4d00000 rw-p 00000000 00:00 0 \n");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->end - m->start, uintptr_t{0x100000});
  EXPECT_EQ(m->name, "");
}

TEST(ParseMappingTest, HeapWithoutNewline) {
  const std::optional<Mapping> m = ParseMapping(
      "55d0c1a2b000-55d0c1a4c000 rw-p 00000000 00:00 0          [heap]");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->start, uintptr_t{0x55d0c1a2b000});
  EXPECT_EQ(m->name, "[heap]");
}

TEST(ParseMappingTest, NotAMapping) {
  EXPECT_FALSE(ParseMapping("").has_value());
  EXPECT_FALSE(ParseMapping("\n").has_value());
  EXPECT_FALSE(ParseMapping("long/path/rest of a line\n").has_value());
  EXPECT_FALSE(ParseMapping("7f12a4c00000 rw-p\n").has_value());
  EXPECT_FALSE(ParseMapping("7f12a4c00000-\n").has_value());
}

// Counts the listed mappings that cover [start, end) exactly.
int ExactMappings(uintptr_t start, uintptr_t end) {
  int found = 0;
  const absl::Status read = ForEachMapping([&](const Mapping& m) {
    if (m.start == start && m.end == end) ++found;
  });
  EXPECT_TRUE(read.ok()) << read;
  return found;
}

TEST(ForEachMappingTest, SeesAMappingOfItsOwnAndItsRemoval) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // The middle page of three, made PROT_NONE, is a mapping of its own: its
  // neighbours have another protection, so the kernel cannot merge it.
  void* region = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  const auto base = reinterpret_cast<uintptr_t>(region);
  ASSERT_EQ(mprotect(reinterpret_cast<void*>(base + page), page, PROT_NONE), 0);
  EXPECT_EQ(ExactMappings(base + page, base + 2 * page), 1);
  ASSERT_EQ(munmap(region, 3 * page), 0);
  EXPECT_EQ(ExactMappings(base + page, base + 2 * page), 0);
}

TEST(ForEachMappingTest, ListsByAddressWithNonEmptyRanges) {
  uintptr_t last_end = 0;
  int mappings = 0;
  const absl::Status read = ForEachMapping([&](const Mapping& m) {
    EXPECT_LT(m.start, m.end);
    EXPECT_LE(last_end, m.start);
    last_end = m.end;
    ++mappings;
  });
  ASSERT_TRUE(read.ok()) << read;
  EXPECT_GT(mappings, 0);
}

}  // namespace
}  // namespace alloclab
