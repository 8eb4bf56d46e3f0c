// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/testing/message_matchers.h"

#include <string>

#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::Not;

TEST(SaysCountTest, AWholeNumberInAnySentence) {
  EXPECT_THAT("asked for 2 pairs, but 1 core has two threads", SaysCount(1));
  EXPECT_THAT("asked for 2 pairs but only 1 core has two threads",
              SaysCount(1));
  EXPECT_THAT("1 cores", SaysCount(1));  // grammar is not the fact
  EXPECT_THAT("(3)", SaysCount(3));
  EXPECT_THAT(absl::string_view("3 of them"), SaysCount(3));
  EXPECT_THAT(std::string("cores: 12,345 of them"), SaysCount(12345));
}

TEST(SaysCountTest, NotADigitOfAnotherNumber) {
  EXPECT_THAT("13 cores", Not(SaysCount(3)));
  EXPECT_THAT("31 cores", Not(SaysCount(3)));
  EXPECT_THAT("3.5 cores", Not(SaysCount(3)));
  EXPECT_THAT("glibc 2.3", Not(SaysCount(3)));
  EXPECT_THAT("x86_64", Not(SaysCount(64)));
  EXPECT_THAT("3rd core", Not(SaysCount(3)));
  EXPECT_THAT("CPUs 0,100 allowed", Not(SaysCount(100000)));
  EXPECT_THAT("not enough cores", Not(SaysCount(3)));
}

TEST(SaysCountTest, InWords) {
  EXPECT_THAT("only one core is allowed", SaysCount(1));
  EXPECT_THAT("Three cores", SaysCount(3));
  EXPECT_THAT("No core has two threads", SaysCount(0));
  EXPECT_THAT("none of the cores has two threads", SaysCount(0));
  EXPECT_THAT("someone", Not(SaysCount(1)));
  EXPECT_THAT("nothing to pick", Not(SaysCount(0)));
}

TEST(MentionsTest, WholeWordsInAnyCase) {
  EXPECT_THAT("No SMT on this machine", Mentions("no SMT"));
  EXPECT_THAT("Jemalloc serves malloc", Mentions("jemalloc"));
  EXPECT_THAT("glibc's rows", Mentions("glibc"));
  EXPECT_THAT("GLIBC_TUNABLES sets glibc.malloc.mmap_threshold=1",
              Mentions("mmap_threshold"));
  EXPECT_THAT("jemallocx", Not(Mentions("jemalloc")));
  EXPECT_THAT("no SMTs", Not(Mentions("no SMT")));
  EXPECT_THAT("", Not(Mentions("")));
}

TEST(LargestSizeNamedTest, NumbersWithTheirUnits) {
  EXPECT_EQ(LargestSizeNamed("no size"), 0);
  EXPECT_EQ(LargestSizeNamed("malloc(67108864) grew the heap"), 67108864);
  EXPECT_EQ(LargestSizeNamed("nothing mapped up to 64 MiB"), 64 << 20);
  EXPECT_EQ(LargestSizeNamed("up to 64MiB, tried 3 times"), 64 << 20);
  EXPECT_EQ(LargestSizeNamed("1.5 GiB"), 1.5 * (1 << 30));
  EXPECT_EQ(LargestSizeNamed("64 MB"), 64e6);
  EXPECT_EQ(LargestSizeNamed("67,108,864 bytes"), 67108864);
  EXPECT_EQ(LargestSizeNamed("2 GiB or 3 KiB"), 2.0 * (1 << 30));
}

}  // namespace
}  // namespace alloclab
