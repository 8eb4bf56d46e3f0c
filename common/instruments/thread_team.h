// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: thread_team.h
// -----------------------------------------------------------------------------
//
// N threads, each pinned to a CPU you choose, released together, each timing
// its own loop. When threads slow each other down, the time alone cannot say
// why: they may wait for each other (a shared cache line), share one core
// (SMT siblings, or one CPU time-shared), or all run on a slower clock
// (turbo gives one busy core more GHz than four). So each thread also
// measures its effective clock (common/instruments/effective_clock.h) while the
// whole team is busy, and a time ratio can be set beside a clock ratio.
//
// A run, per thread:
//
//   1. pin to its CPU; wait until every thread is pinned (the release)
//   2. `warmup_iterations` untimed calls of the body
//   3. measure its effective clock, every teammate busy doing the same
//   4. wait until every thread is done with 3 (a second release)
//   5. time one call of the body with `iterations`: its wall and CPU ns
//      per iteration
//
// The clock is measured before the loop, not during it, so that the loop's
// time is the loop's alone. Every CPU of the team is busy while it is
// measured, as during the loop: the clock a core gets depends on how many
// cores are busy. The design assumes that a chain of dependent adds runs one
// add per cycle even beside a busy SMT sibling, so that it reads the clock,
// not the sharing. That is an assumption, not a measurement: the course's
// machines have had no SMT, so it was never measured here. On a machine
// with SMT, compare the smt_siblings row's clock with the distinct-cores
// row's before trusting it.
//
// A CPU may be given to several threads: they time-share it, and the team
// says "oversubscribed". A CPU that is not online, or outside the calling
// thread's affinity mask (taskset, a cgroup cpuset, an earlier pin), is
// refused before any thread starts.
//
// Example:
//
//   alloclab::TeamOptions options;
//   options.cpus = {0, 2};          // two threads, on CPUs 0 and 2
//   options.iterations = 1'000'000;
//   absl::StatusOr<alloclab::TeamResult> team = alloclab::RunTeam(
//       options, [](int thread, int64_t iterations) {
//         for (int64_t i = 0; i < iterations; ++i) Work(thread);
//       });
//   if (!team.ok()) return team.status();  // "CPU 2 is outside ..."
//   double ns = team->ns_per_iteration.median;  // median of the threads
//   double cpu_ns = team->cpu_ns_per_iteration.median;  // time on a CPU
//   std::optional<double> ghz = team->median_effective_ghz;

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_THREAD_TEAM_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_THREAD_TEAM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/machine/topology.h"
#include "common/stats/stats.h"

namespace alloclab {

// TeamOptions
struct TeamOptions {
  // The CPU of each thread, one entry per thread. A CPU may repeat: its
  // threads time-share it (the team is then "oversubscribed").
  std::vector<int> cpus;
  // Timed iterations per thread, passed to the body; at least 1.
  int64_t iterations = 1;
  // Untimed iterations per thread before the clock and the loop; 0: none.
  int64_t warmup_iterations = 0;
  // How long each thread measures its clock; 0 skips it. Short, so that its
  // rounds (a tenth of it) fit in one scheduler slice of a time-shared CPU:
  // a round cut by a teammate's slice would read as a slower clock.
  int64_t clock_budget_ns = 2'000'000;
  // Where /sys is: fixtures in tests.
  std::string sys_root = "/sys";
};

// ThreadResult
struct ThreadResult {
  int cpu = -1;
  int64_t start_ns = 0;    // when the timed call began (NowNs(), clock.h)
  int64_t elapsed_ns = 0;  // the timed call of the body, wall clock
  double ns_per_iteration = 0;
  // The CPU time the thread got during that call (CLOCK_THREAD_CPUTIME_ID)
  // per iteration: the wall time minus the time it waited for its CPU. Two
  // threads time-sharing a CPU double the wall time, not this one; two SMT
  // siblings, which run at once but slower, raise both.
  double cpu_ns_per_iteration = 0;
  // nullopt when not measured; TeamResult::clock_note says why.
  std::optional<double> effective_ghz;
};

// TeamResult
struct TeamResult {
  std::vector<ThreadResult> threads;  // in the order of TeamOptions::cpus
  Summary ns_per_iteration;           // across the threads
  Summary cpu_ns_per_iteration;       // likewise
  std::optional<double> median_effective_ghz;
  std::string clock_note;  // why a clock is missing; empty when all measured
  bool oversubscribed = false;  // some CPU runs more than one thread
  // How many threads ran at once, on average, during the timed loops: their
  // CPU time over the wall time from the first loop's start to the last
  // one's end. At most the thread count; well below it, the threads took
  // turns (a busy machine, or a shared CPU), and threads that take turns
  // never contend for a cache line.
  double concurrency = 0;

  // "oversubscribed" or "one thread per CPU", for a row's text field.
  absl::string_view placement() const;
};

// RunTeam()
//
// Runs `body(thread, iterations)` on one thread per entry of `options.cpus`
// (`thread` is the entry's index), as the header comment describes, and
// returns each thread's timing and clock. The body is called concurrently
// and must be thread-safe; it is called once with `warmup_iterations` (when
// non-zero) and once with `iterations`. InvalidArgument, before any thread
// starts, for no CPUs, `iterations` < 1, a CPU that is not online or one
// outside the calling thread's affinity mask; the error of a failed pin
// otherwise.
absl::StatusOr<TeamResult> RunTeam(
    const TeamOptions& options,
    absl::FunctionRef<void(int thread, int64_t iterations)> body);

// ValidateTeamCpus()
//
// The check RunTeam() makes, on any topology: OK when `cpus` is not empty
// and each of them is online in `topology` and in `allowed` (an affinity
// mask, as AllowedCpus() returns it); else InvalidArgument naming the first
// CPU that is not, and the CPUs that are.
absl::Status ValidateTeamCpus(const Topology& topology,
                              const std::vector<int>& allowed,
                              const std::vector<int>& cpus);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_THREAD_TEAM_H_
