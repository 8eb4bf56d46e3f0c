// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/thread_team.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/instruments/clock.h"
#include "common/instruments/effective_clock.h"
#include "common/machine/topology.h"
#include "common/stats/stats.h"

namespace alloclab {
namespace {

// Waits until `arrived` reaches `n`. Yielding, not blocking: a blocked
// thread's core may clock down or go idle, and on a time-shared CPU a pure
// spin would burn the slice the thread it waits for needs.
void WaitFor(const std::atomic<int>& arrived, int n) {
  while (arrived.load(std::memory_order_acquire) < n) {
    std::this_thread::yield();
  }
}

// The calling thread's CPU time. CLOCK_THREAD_CPUTIME_ID cannot fail for
// the calling thread on Linux; 0 if it ever did, which reads as "no time".
int64_t ThreadCpuNs() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// What one thread reports back; written by it alone, read after join.
struct Slot {
  absl::Status status;
  ThreadResult result;
  std::string clock_error;
};

// SummarizeTeam()
//
// The team's result from its threads' slots: the first thread's error, if
// any; else every thread's result, their medians, the clock and how much of
// the round they ran at once.
absl::StatusOr<TeamResult> SummarizeTeam(const TeamOptions& options,
                                         const std::vector<Slot>& slots) {
  TeamResult team;
  std::vector<double> ns;
  std::vector<double> cpu_ns;
  std::vector<double> ghz;
  for (const Slot& slot : slots) {
    if (!slot.status.ok()) {
      return absl::Status(slot.status.code(),
                          absl::StrCat("thread team: ", slot.status.message()));
    }
    ns.push_back(slot.result.ns_per_iteration);
    cpu_ns.push_back(slot.result.cpu_ns_per_iteration);
    if (slot.result.effective_ghz) ghz.push_back(*slot.result.effective_ghz);
    if (!slot.clock_error.empty() && team.clock_note.empty()) {
      team.clock_note = slot.clock_error;
    }
    team.threads.push_back(slot.result);
  }
  team.ns_per_iteration = Summarize(ns);
  team.cpu_ns_per_iteration = Summarize(cpu_ns);
  if (options.clock_budget_ns == 0) {
    team.clock_note = "effective clock not measured (clock budget 0)";
  } else if (!ghz.empty()) {
    team.median_effective_ghz = Summarize(ghz).median;
  }
  team.oversubscribed =
      std::set<int>(options.cpus.begin(), options.cpus.end()).size() <
      options.cpus.size();
  double cpu_total = 0;
  int64_t first_start = team.threads.front().start_ns;
  int64_t last_end = first_start;
  for (const ThreadResult& t : team.threads) {
    cpu_total +=
        t.cpu_ns_per_iteration * static_cast<double>(options.iterations);
    first_start = std::min(first_start, t.start_ns);
    last_end = std::max(last_end, t.start_ns + t.elapsed_ns);
  }
  if (last_end > first_start) {
    team.concurrency = cpu_total / static_cast<double>(last_end - first_start);
  }
  return team;
}

}  // namespace

absl::string_view TeamResult::placement() const {
  return oversubscribed ? "oversubscribed" : "one thread per CPU";
}

absl::Status ValidateTeamCpus(const Topology& topology,
                              const std::vector<int>& allowed,
                              const std::vector<int>& cpus) {
  if (cpus.empty()) {
    return absl::InvalidArgumentError("a thread team needs at least one CPU");
  }
  if (absl::Status online = ValidateCpus(topology, cpus); !online.ok()) {
    return online;
  }
  for (int cpu : cpus) {
    if (!std::binary_search(allowed.begin(), allowed.end(), cpu)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "CPU %d is online but outside this thread's affinity mask "
          "(allowed CPUs: %s; taskset, a cgroup cpuset or --cpu narrowed it)",
          cpu, FormatCpuList(allowed)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<TeamResult> RunTeam(
    const TeamOptions& options,
    absl::FunctionRef<void(int thread, int64_t iterations)> body) {
  if (options.iterations < 1 || options.warmup_iterations < 0 ||
      options.clock_budget_ns < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "thread team: iterations must be at least 1 (got %d), warm-up "
        "iterations and the clock budget not negative (got %d, %d ns)",
        options.iterations, options.warmup_iterations,
        options.clock_budget_ns));
  }
  absl::StatusOr<Topology> topology = ReadTopology(options.sys_root);
  if (!topology.ok()) return topology.status();
  absl::StatusOr<std::vector<int>> allowed = AllowedCpus();
  if (!allowed.ok()) return allowed.status();
  if (absl::Status valid = ValidateTeamCpus(*topology, *allowed, options.cpus);
      !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("thread team: ", valid.message()));
  }

  const int n = static_cast<int>(options.cpus.size());
  std::vector<Slot> slots(static_cast<size_t>(n));
  std::atomic<int> pinned{0};      // step 1's release
  std::atomic<bool> abort{false};  // set before `pinned` reaches n
  std::atomic<int> clocked{0};     // step 4's release

  auto run = [&](int thread) {
    Slot& slot = slots[static_cast<size_t>(thread)];
    slot.result.cpu = options.cpus[static_cast<size_t>(thread)];
    slot.status = PinCurrentThread(slot.result.cpu);
    if (!slot.status.ok()) abort.store(true, std::memory_order_relaxed);
    pinned.fetch_add(1, std::memory_order_acq_rel);
    WaitFor(pinned, n);
    if (abort.load(std::memory_order_relaxed)) return;

    if (options.warmup_iterations > 0) body(thread, options.warmup_iterations);
    if (options.clock_budget_ns > 0) {
      absl::StatusOr<double> ghz = MeasureEffectiveGhz(options.clock_budget_ns);
      if (ghz.ok()) {
        slot.result.effective_ghz = *ghz;
      } else {
        slot.clock_error = std::string(ghz.status().message());
      }
    }
    clocked.fetch_add(1, std::memory_order_acq_rel);
    WaitFor(clocked, n);

    // The CPU-time reads inside the wall-clock ones: the CPU time is then
    // never more than the wall time.
    const int64_t start = NowNs();
    const int64_t cpu_start = ThreadCpuNs();
    body(thread, options.iterations);
    const int64_t cpu_ns = ThreadCpuNs() - cpu_start;
    slot.result.start_ns = start;
    slot.result.elapsed_ns = NowNs() - start;
    const double iterations = static_cast<double>(options.iterations);
    slot.result.ns_per_iteration =
        static_cast<double>(slot.result.elapsed_ns) / iterations;
    slot.result.cpu_ns_per_iteration = static_cast<double>(cpu_ns) / iterations;
  };

  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) threads.emplace_back(run, i);
  for (std::thread& t : threads) t.join();

  return SummarizeTeam(options, slots);
}

}  // namespace alloclab
