// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/counter_contention/ping_pong.h"

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/instruments/thread_team.h"
#include "common/machine/topology.h"

namespace counter_contention {
namespace {

// Spins before a waiting thread gives its CPU away: long enough for a line
// to come over from any other CPU (a few hundred ns), short beside a
// scheduler slice, so that two threads on one CPU take turns quickly.
constexpr int kSpinsBeforeYield = 256;

// One spin of a wait loop: tells an SMT core that this thread is waiting.
inline void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// How far apart two distinct CPUs are.
PairKind KindOf(const alloclab::Cpu &a, const alloclab::Cpu &b) {
  if (a.package_id != b.package_id) return PairKind::kOtherPackage;
  if (a.core_id != b.core_id) return PairKind::kOtherCore;
  return PairKind::kSmtSiblings;
}

}  // namespace

absl::string_view PairKindName(PairKind kind) {
  switch (kind) {
    case PairKind::kSameCpu:
      return "same_cpu";
    case PairKind::kSmtSiblings:
      return "smt_siblings";
    case PairKind::kOtherCore:
      return "other_core";
    case PairKind::kOtherPackage:
      return "other_package";
  }
  return "unknown";
}

std::optional<PairKind> PairKindOf(const alloclab::Topology &topology,
                                   int first, int second) {
  const alloclab::Cpu *a = nullptr;
  const alloclab::Cpu *b = nullptr;
  for (const alloclab::Cpu &cpu : topology.cpus) {
    if (cpu.id == first) a = &cpu;
    if (cpu.id == second) b = &cpu;
  }
  if (a == nullptr || b == nullptr) return std::nullopt;
  if (first == second) return PairKind::kSameCpu;
  return KindOf(*a, *b);
}

std::vector<CpuPair> PingPongPairs(const alloclab::Topology &topology,
                                   const std::vector<int> &usable) {
  std::vector<const alloclab::Cpu *> cpus;  // usable, known, by id
  for (const alloclab::Cpu &cpu : topology.cpus) {
    for (int id : usable) {
      if (id == cpu.id) {
        cpus.push_back(&cpu);
        break;
      }
    }
  }
  std::vector<CpuPair> pairs;
  if (cpus.empty()) return pairs;
  pairs.push_back({PairKind::kSameCpu, cpus[0]->id, cpus[0]->id});
  for (PairKind kind : {PairKind::kSmtSiblings, PairKind::kOtherCore,
                        PairKind::kOtherPackage}) {
    std::optional<CpuPair> found;
    for (size_t i = 0; i < cpus.size() && !found; ++i) {
      for (size_t j = i + 1; j < cpus.size() && !found; ++j) {
        if (KindOf(*cpus[i], *cpus[j]) == kind) {
          found = CpuPair{kind, cpus[i]->id, cpus[j]->id};
        }
      }
    }
    if (found) pairs.push_back(*found);
  }
  return pairs;
}

int64_t PingPongLine::Play(int thread, int64_t round_trips) {
  const uint64_t mine = thread == 0 ? 0 : 1;  // count % 2 on my turn
  uint64_t &expected = sides_[thread].expected;
  int64_t handoffs = 0;
  for (int64_t i = 0; i < round_trips; ++i) {
    uint64_t seen = count_.load(std::memory_order_acquire);
    for (int spins = 0; seen % 2 != mine;
         seen = count_.load(std::memory_order_acquire)) {
      if (++spins < kSpinsBeforeYield) {
        Relax();
      } else {
        spins = 0;
        sched_yield();
      }
    }
    handoffs += seen == expected;
    count_.store(seen + 1, std::memory_order_release);
    expected = seen + 2;  // the other thread's one write, then my turn
  }
  return handoffs;
}

absl::StatusOr<PingPongRun> MeasurePingPong(const CpuPair &pair,
                                            int64_t round_trips,
                                            int64_t warmup) {
  PingPongLine line;
  alloclab::TeamOptions options;
  options.cpus = {pair.first, pair.second};
  options.iterations = round_trips;
  options.warmup_iterations = warmup;
  options.clock_budget_ns = 0;  // the time of a handoff, not the clock
  // Each thread's handoffs in its last call: the timed one.
  struct alignas(kCacheLineBytes) Handoffs {
    int64_t n = 0;
  };
  Handoffs handoffs[2];
  absl::StatusOr<alloclab::TeamResult> team =
      alloclab::RunTeam(options, [&](int thread, int64_t iterations) {
        handoffs[thread].n = line.Play(thread, iterations);
      });
  if (!team.ok()) return team.status();
  PingPongRun run;
  run.pair = pair;
  run.team = *std::move(team);
  run.transfers = static_cast<uint64_t>(handoffs[0].n + handoffs[1].n);
  run.ns_per_round_trip = run.team.ns_per_iteration.median;
  run.ns_per_transfer = run.ns_per_round_trip / 2;
  return run;
}

}  // namespace counter_contention
