// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The workloads do the same work under every allocator: the workload
// binary, run under each preloaded allocator with the same flags, reports
// the same checksum, and the allocator it was given.

#include "common/adoption/workloads.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "common/adoption/runs.h"
#include "common/harness/child_run.h"
#include "common/machine/allocator_probe.h"
#include "gtest/gtest.h"

namespace alloclab::adoption {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizer = true;
#else
constexpr bool kSanitizer = false;
#endif

// The iterations a checksum comparison needs: enough calls of every kind,
// never the full work. A tenth of the quick run, at most 2,000; for
// large_blocks (several MiB a block, every page written) that is 25 blocks,
// not 2,000 (about 17 GB of pages per allocator, which took this test past
// its 60 s timeout on a quiet machine).
uint64_t ChecksumIterations(const std::string& workload) {
  return std::max<uint64_t>(
      1, std::min<uint64_t>(2000, DefaultIterations(workload, true) / 10));
}

// The "checksum: N" line of a run.
std::string Checksum(const std::string& output) {
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::StartsWith(line, "checksum: ")) return std::string(line);
  }
  return "";
}

TEST(WorkloadsTest, SameChecksumUnderEveryAllocator) {
  if (kSanitizer) {
    GTEST_SKIP() << "built with a sanitizer: its runtime serves malloc and "
                    "refuses a preloaded allocator";
  }
  absl::StatusOr<std::string> binary = WorkloadBinary();
  ASSERT_TRUE(binary.ok()) << binary.status();
  for (const std::string& workload : WorkloadNames()) {
    std::string expected;
    for (const alloclab::AllocatorSpec& spec : alloclab::KnownAllocators()) {
      absl::StatusOr<alloclab::LocatedAllocator> located =
          alloclab::LocateAllocator(spec.name);
      ASSERT_TRUE(located.ok()) << located.status();
      alloclab::ChildCommand command;
      command.argv = {
          *binary, "--workload=" + workload, "--threads=2",
          "--iterations=" + std::to_string(ChecksumIterations(workload))};
      if (!located->path.empty()) {
        command.env = {{"LD_PRELOAD", located->path}};
      }
      absl::StatusOr<alloclab::ChildRun> run = alloclab::RunChild(command);
      ASSERT_TRUE(run.ok())
          << workload << " " << spec.name << ": " << run.status();
      absl::StatusOr<alloclab::MallocProvider> provider =
          alloclab::ParseProviderLine(run->stdout_text);
      ASSERT_TRUE(provider.ok()) << provider.status();
      EXPECT_EQ(provider->allocator, spec.name) << workload;
      const std::string checksum = Checksum(run->stdout_text);
      ASSERT_FALSE(checksum.empty()) << run->stdout_text;
      if (expected.empty()) expected = checksum;
      EXPECT_EQ(checksum, expected) << workload << " under " << spec.name;
    }
  }
}

TEST(WorkloadsTest, OperationsCountEveryThreadsIterations) {
  EXPECT_EQ(Operations("treemap", 4, 1000), 4000u);
  EXPECT_EQ(Operations("scalability_8", 2, 10), 20u);
  EXPECT_EQ(Operations("scalability_1024", 1, 10), 10u);
  EXPECT_EQ(Operations("msgsend", 4, 1000), 1000u);       // messages in all
  EXPECT_EQ(Operations("churn", 8, 1000), 1000u);         // one thread
  EXPECT_EQ(Operations("large_blocks", 8, 1000), 1000u);  // one thread
}

TEST(WorkloadsTest, EveryWorkloadHasADefaultScale) {
  for (const std::string& workload : WorkloadNames()) {
    EXPECT_GT(DefaultIterations(workload, true), 0u) << workload;
    EXPECT_GT(DefaultIterations(workload, false),
              DefaultIterations(workload, true))
        << workload;
  }
  EXPECT_EQ(DefaultIterations("mandelbrot", false), 0u);
}

TEST(WorkloadsTest, BadParamsAreErrors) {
  EXPECT_EQ(RunWorkload("mandelbrot", {1, 10, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunWorkload("treemap", {0, 10, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunWorkload("treemap", {1, 0, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunWorkload("treemap", {kMaxThreads + 1, 10, 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  // An unknown name is reported as such, whatever else is wrong.
  EXPECT_TRUE(
      absl::StrContains(RunWorkload("mandelbrot", {1, 0, 1}).status().message(),
                        "unknown workload 'mandelbrot'"));
}

TEST(WorkloadsTest, MsgsendDeliversEveryMessageOnce) {
  // Each message carries its size and its index within its producer; the
  // checksum is their sum, whichever consumer freed it.
  absl::StatusOr<uint64_t> one = RunWorkload("msgsend", {2, 1000, 7});
  absl::StatusOr<uint64_t> again = RunWorkload("msgsend", {2, 1000, 7});
  ASSERT_TRUE(one.ok() && again.ok());
  EXPECT_EQ(*one, *again);
  // Index sum 0..999 = 499500, sizes 16..256 each.
  EXPECT_GE(*one, 499500u + 1000u * 16);
  EXPECT_LE(*one, 499500u + 1000u * 256);
}

TEST(WorkloadsTest, LargeBlocksIsTheSameWorkForTheSameSeed) {
  // Each allocation adds its size (kLargeBlocksMinBytes to
  // kLargeBlocksMaxBytes) and the two bytes it wrote at its ends.
  absl::StatusOr<uint64_t> one = RunWorkload("large_blocks", {2, 20, 7});
  absl::StatusOr<uint64_t> again = RunWorkload("large_blocks", {1, 20, 7});
  absl::StatusOr<uint64_t> other = RunWorkload("large_blocks", {1, 20, 8});
  ASSERT_TRUE(one.ok() && again.ok() && other.ok());
  EXPECT_EQ(*one, *again) << "large_blocks runs on one thread";
  EXPECT_NE(*one, *other) << "another seed draws other sizes";
  EXPECT_GE(*one, 20 * kLargeBlocksMinBytes);
  EXPECT_LE(*one, 20 * (kLargeBlocksMaxBytes + 2 * 255) +
                      kLargeBlocksLive * uint64_t{4096});
}

}  // namespace
}  // namespace alloclab::adoption
