// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The team is checked for what is exact: where each thread ran, how many
// iterations its body got, that no loop starts before every thread is
// pinned and warm, the placement label, the medians, and the errors.
// Nothing here asserts a time or a speed.

#include "common/instruments/thread_team.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "common/stats/stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;

// The first `n` CPUs this test may run on (fewer if it may run on fewer).
std::vector<int> FirstAllowed(size_t n) {
  absl::StatusOr<std::vector<int>> allowed = AllowedCpus();
  EXPECT_TRUE(allowed.ok()) << allowed.status();
  if (!allowed.ok()) return {};
  if (allowed->size() > n) allowed->resize(n);
  return *allowed;
}

TEST(RunTeamTest, EachThreadRunsItsIterationsOnItsCpu) {
  TeamOptions options;
  options.cpus = FirstAllowed(2);
  ASSERT_FALSE(options.cpus.empty());
  options.iterations = 1000;
  options.warmup_iterations = 10;
  options.clock_budget_ns = 0;
  const size_t n = options.cpus.size();
  std::vector<int64_t> timed(n, 0);
  std::vector<int64_t> warm(n, 0);
  std::vector<int> wrong_cpu(n, 0);
  absl::StatusOr<TeamResult> team =
      RunTeam(options, [&](int thread, int64_t iterations) {
        const size_t t = static_cast<size_t>(thread);
        (iterations == options.iterations ? timed : warm)[t] += iterations;
        for (int64_t i = 0; i < iterations; ++i) {
          if (sched_getcpu() != options.cpus[t]) ++wrong_cpu[t];
        }
      });
  ASSERT_TRUE(team.ok()) << team.status();
  ASSERT_EQ(team->threads.size(), n);
  for (size_t t = 0; t < n; ++t) {
    EXPECT_EQ(team->threads[t].cpu, options.cpus[t]);
    EXPECT_EQ(timed[t], 1000);
    EXPECT_EQ(warm[t], 10);
    EXPECT_EQ(wrong_cpu[t], 0) << "thread " << t;
    EXPECT_DOUBLE_EQ(team->threads[t].ns_per_iteration,
                     static_cast<double>(team->threads[t].elapsed_ns) / 1000);
    // A thread cannot run longer than the wall time it was timed for.
    EXPECT_GT(team->threads[t].cpu_ns_per_iteration, 0);
    EXPECT_LE(team->threads[t].cpu_ns_per_iteration,
              team->threads[t].ns_per_iteration);
  }
  EXPECT_FALSE(team->oversubscribed);
  EXPECT_EQ(team->placement(), "one thread per CPU");
  // Each thread's CPU time is within its wall time, which is within the
  // team's span: never more threads at once than there are.
  EXPECT_GT(team->concurrency, 0);
  EXPECT_LE(team->concurrency, static_cast<double>(n));
}

// The release: when any thread starts its timed loop, every thread has been
// pinned and has finished its warm-up.
TEST(RunTeamTest, NoLoopStartsBeforeEveryThreadIsWarm) {
  TeamOptions options;
  options.cpus = FirstAllowed(1);
  ASSERT_FALSE(options.cpus.empty());
  options.cpus.resize(4, options.cpus[0]);  // 4 threads on one CPU
  options.iterations = 2;
  options.warmup_iterations = 1;
  options.clock_budget_ns = 0;
  std::atomic<int> warmed{0};
  std::atomic<int> early{0};
  absl::StatusOr<TeamResult> team =
      RunTeam(options, [&](int, int64_t iterations) {
        if (iterations == 1) {
          // Give the others every chance to start too soon.
          std::this_thread::yield();
          warmed.fetch_add(1);
        } else if (warmed.load() != 4) {
          early.fetch_add(1);
        }
      });
  ASSERT_TRUE(team.ok()) << team.status();
  EXPECT_EQ(warmed.load(), 4);
  EXPECT_EQ(early.load(), 0);
}

TEST(RunTeamTest, MoreThreadsThanCpusIsOversubscribed) {
  TeamOptions options;
  options.cpus = FirstAllowed(1);
  ASSERT_FALSE(options.cpus.empty());
  options.cpus.resize(3, options.cpus[0]);
  options.iterations = 100;
  options.clock_budget_ns = 0;
  std::vector<int> ran_elsewhere(3, 0);
  absl::StatusOr<TeamResult> team =
      RunTeam(options, [&](int thread, int64_t iterations) {
        for (int64_t i = 0; i < iterations; ++i) {
          if (sched_getcpu() != options.cpus[0]) {
            ++ran_elsewhere[static_cast<size_t>(thread)];
          }
        }
      });
  ASSERT_TRUE(team.ok()) << team.status();
  EXPECT_EQ(team->threads.size(), 3u);
  EXPECT_TRUE(team->oversubscribed);
  EXPECT_EQ(team->placement(), "oversubscribed");
  EXPECT_THAT(ran_elsewhere, ::testing::Each(0));
}

TEST(RunTeamTest, MediansAreThoseOfTheThreads) {
  TeamOptions options;
  options.cpus = FirstAllowed(2);
  ASSERT_FALSE(options.cpus.empty());
  options.cpus.push_back(options.cpus[0]);  // 2 or 3 threads
  options.iterations = 500;
  options.clock_budget_ns = 1'000'000;
  std::vector<uint64_t> sums(options.cpus.size(), 0);
  absl::StatusOr<TeamResult> team =
      RunTeam(options, [&](int thread, int64_t iterations) {
        for (int64_t i = 0; i < iterations; ++i) {
          sums[static_cast<size_t>(thread)] += static_cast<uint64_t>(i);
        }
      });
  ASSERT_TRUE(team.ok()) << team.status();
  EXPECT_THAT(sums, ::testing::Each(500u * 499u / 2));
  std::vector<double> ns;
  std::vector<double> ghz;
  for (const ThreadResult& t : team->threads) {
    ns.push_back(t.ns_per_iteration);
    if (t.effective_ghz) ghz.push_back(*t.effective_ghz);
  }
  EXPECT_DOUBLE_EQ(team->ns_per_iteration.median, Summarize(ns).median);
  EXPECT_DOUBLE_EQ(team->ns_per_iteration.min, Summarize(ns).min);
  std::vector<double> cpu_ns;
  for (const ThreadResult& t : team->threads) {
    cpu_ns.push_back(t.cpu_ns_per_iteration);
  }
  EXPECT_DOUBLE_EQ(team->cpu_ns_per_iteration.median, Summarize(cpu_ns).median);
  EXPECT_EQ(team->ns_per_iteration.n, team->threads.size());
#if defined(__x86_64__) || defined(__aarch64__)
  ASSERT_EQ(ghz.size(), team->threads.size()) << team->clock_note;
  EXPECT_TRUE(team->clock_note.empty()) << team->clock_note;
  ASSERT_TRUE(team->median_effective_ghz.has_value());
  EXPECT_DOUBLE_EQ(*team->median_effective_ghz, Summarize(ghz).median);
  // A clock, not a time: only the physical upper bound holds whatever the
  // load (see effective_clock_test).
  for (double g : ghz) {
    EXPECT_GT(g, 0.0);
    EXPECT_LT(g, 10.0);
  }
#else
  EXPECT_FALSE(team->median_effective_ghz.has_value());
  EXPECT_THAT(team->clock_note, HasSubstr("architecture"));
#endif
}

TEST(RunTeamTest, NoClockBudgetSaysSo) {
  TeamOptions options;
  options.cpus = FirstAllowed(1);
  ASSERT_FALSE(options.cpus.empty());
  options.clock_budget_ns = 0;
  absl::StatusOr<TeamResult> team = RunTeam(options, [](int, int64_t) {});
  ASSERT_TRUE(team.ok()) << team.status();
  EXPECT_FALSE(team->median_effective_ghz.has_value());
  EXPECT_FALSE(team->threads[0].effective_ghz.has_value());
  EXPECT_THAT(team->clock_note, HasSubstr("not measured"));
}

TEST(RunTeamTest, RefusesBadOptionsBeforeStartingAThread) {
  std::atomic<int> calls{0};
  auto body = [&](int, int64_t) { calls.fetch_add(1); };
  TeamOptions none;
  absl::StatusOr<TeamResult> team = RunTeam(none, body);
  EXPECT_EQ(team.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(team.status().message(), HasSubstr("at least one CPU"));

  TeamOptions zero;
  zero.cpus = FirstAllowed(1);
  zero.iterations = 0;
  team = RunTeam(zero, body);
  EXPECT_EQ(team.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(team.status().message(), HasSubstr("at least 1"));

  TeamOptions offline;
  offline.cpus = {FirstAllowed(1)[0], 4095};
  team = RunTeam(offline, body);
  EXPECT_EQ(team.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(team.status().message(), HasSubstr("CPU 4095 is not online"));
  EXPECT_EQ(calls.load(), 0);
}

// The affinity check on fixtures: the same answer on any machine.
TEST(ValidateTeamCpusTest, RefusesCpusOutsideTheMask) {
  absl::StatusOr<Topology> desktop =
      ReadTopology(TopologyFixtureRoot("desktop_4c8t"));
  ASSERT_TRUE(desktop.ok()) << desktop.status();
  EXPECT_TRUE(ValidateTeamCpus(*desktop, {0, 1, 2, 3}, {0, 3, 3}).ok());
  const absl::Status outside = ValidateTeamCpus(*desktop, {0, 1, 2, 3}, {1, 5});
  EXPECT_EQ(outside.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(outside.message(), HasSubstr("CPU 5 is online but outside"));
  EXPECT_THAT(outside.message(), HasSubstr("allowed CPUs: 0-3"));
  const absl::Status offline = ValidateTeamCpus(*desktop, {0, 1}, {8});
  EXPECT_THAT(offline.message(), HasSubstr("CPU 8 is not online"));
  EXPECT_THAT(ValidateTeamCpus(*desktop, {0}, {}).message(),
              HasSubstr("at least one CPU"));
}

// The affinity check for real: a thread narrows its own mask to one CPU,
// then asks for a team on another.
TEST(RunTeamTest, RefusesACpuOutsideTheCallersMask) {
  const std::vector<int> two = FirstAllowed(2);
  if (two.size() < 2) {
    GTEST_SKIP() << "this test may run on one CPU only; the fixture test "
                    "ValidateTeamCpusTest covers the check";
  }
  absl::Status status;
  std::thread narrowed([&] {
    absl::Status pinned = PinCurrentThread(two[0]);
    if (!pinned.ok()) {
      status = pinned;
      return;
    }
    TeamOptions options;
    options.cpus = {two[1]};
    status = RunTeam(options, [](int, int64_t) {}).status();
  });
  narrowed.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("outside this thread's affinity"));
}

}  // namespace
}  // namespace alloclab
