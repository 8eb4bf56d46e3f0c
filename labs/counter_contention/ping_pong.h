// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: ping_pong.h
// -----------------------------------------------------------------------------
//
// The cost of moving one cache line between two CPUs, measured without
// hardware counters: two pinned threads bounce one line, each waiting for
// the other's write before it writes its own. Each write must first fetch
// the line from the other CPU, so a round trip (one write by each) is two
// transfers of the line, and the time per round trip, halved, is what one
// transfer costs: what a shared atomic counter pays on every count that
// another thread's count preceded.
//
// The cost depends on how far apart the two CPUs are, so the experiment
// measures one pair of each kind the machine has (PingPongPairs(), from the
// topology of common/machine/topology.h): the same CPU (two threads
// time-sharing it: every handoff is a switch by the scheduler), the two SMT
// siblings of one core (they share its L1, the line hardly moves), two cores of
// one package, and two packages. The threads run as a team of
// common/instruments/thread_team.h, like the experiment's other rows.
//
// Example:
//
//   absl::StatusOr<alloclab::Topology> topo = alloclab::ReadTopology();
//   for (const counter_contention::CpuPair& pair :
//        counter_contention::PingPongPairs(*topo, {0, 1})) {
//     absl::StatusOr<counter_contention::PingPongRun> run =
//         counter_contention::MeasurePingPong(pair, 20'000, 2'000);
//     // run->transfers == 40'000; run->ns_per_transfer: ~15-40 within a die
//   }

#ifndef ALLOCLAB_LABS_COUNTER_CONTENTION_PING_PONG_H_
#define ALLOCLAB_LABS_COUNTER_CONTENTION_PING_PONG_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/instruments/thread_team.h"
#include "common/machine/topology.h"
#include "labs/counter_contention/task.h"

namespace counter_contention {

// PairKind
//
// How far apart two CPUs are, nearest first.
enum class PairKind {
  kSameCpu,      // one CPU, two threads taking turns on it
  kSmtSiblings,  // two hardware threads of one core
  kOtherCore,    // two cores of one package
  kOtherPackage  // two packages (sockets)
};

// PairKindName()
//
// "same_cpu", "smt_siblings", "other_core", "other_package": the row names'
// suffixes.
absl::string_view PairKindName(PairKind kind);

// PairKindOf()
//
// The kind of the pair (`first`, `second`) in `topology`: kSameCpu when
// they are one CPU. nullopt when either is not in `topology`.
std::optional<PairKind> PairKindOf(const alloclab::Topology &topology,
                                   int first, int second);

// CpuPair
struct CpuPair {
  PairKind kind = PairKind::kSameCpu;
  int first = 0;
  int second = 0;
};

// PingPongPairs()
//
// One pair of CPUs of each kind that `usable` (the CPUs this process may
// use, all online in `topology`) has, in PairKind order: the pair of
// lowest ids (first, then second) of that kind. kSameCpu is always there
// (the lowest usable CPU twice) when `usable` is not empty; the others only
// where two usable CPUs are that far apart. CPUs of `usable` missing from
// `topology` are left out.
std::vector<CpuPair> PingPongPairs(const alloclab::Topology &topology,
                                   const std::vector<int> &usable);

// PingPongLine
//
// The bounced line: a counter of writes, alone in its cache line. Thread 0
// writes when the count is even, thread 1 when it is odd.
class PingPongLine {
 public:
  // Play()
  //
  // Body of a team of two (thread 0 and 1): `round_trips` writes by the
  // calling thread, each after waiting for the other's. Spins, and yields
  // its CPU after a short spin, so that two threads on one CPU take turns.
  // Returns the handoffs it saw: its writes that came right after exactly
  // one write of the other thread (`round_trips`, unless the protocol
  // broke).
  int64_t Play(int thread, int64_t round_trips);

  // The writes of both threads so far.
  uint64_t writes() const { return count_.load(std::memory_order_acquire); }

 private:
  alignas(kCacheLineBytes) std::atomic<uint64_t> count_{0};
  // What each thread expects to find on its next turn, on a line of its
  // own: thread 0 starts at 0, thread 1 at 1.
  struct alignas(kCacheLineBytes) Side {
    uint64_t expected;
  };
  Side sides_[2] = {{0}, {1}};
};

// PingPongRun
//
// What MeasurePingPong() measured.
struct PingPongRun {
  CpuPair pair;
  alloclab::TeamResult team;  // one iteration = one round trip
  // Transfers of the line in the timed call: the handoffs both threads saw
  // (PingPongLine::Play()), 2 per round trip when the protocol held.
  uint64_t transfers = 0;
  double ns_per_round_trip = 0;  // median of the two threads
  double ns_per_transfer = 0;    // half a round trip
};

// MeasurePingPong()
//
// Two threads pinned to `pair`, `warmup` untimed round trips, then
// `round_trips` timed ones (at least 1). The errors of RunTeam() (a CPU
// that is not online or not allowed).
absl::StatusOr<PingPongRun> MeasurePingPong(const CpuPair &pair,
                                            int64_t round_trips,
                                            int64_t warmup);

}  // namespace counter_contention

#endif  // ALLOCLAB_LABS_COUNTER_CONTENTION_PING_PONG_H_
