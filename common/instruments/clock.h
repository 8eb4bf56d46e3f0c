// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: clock.h
// -----------------------------------------------------------------------------
//
// The course's stopwatch. `NowNs()` reads a monotonic clock; `TimeNs()` times
// one call; `TimerOverheadNs()` measures what a pair of reads costs on this
// machine, so that an experiment can report its own instrument's cost next to
// the numbers it measures (a 20 ns call timed with a 20 ns timer is a lesson,
// not a result).
//
// Example:
//
//   int64_t ns = alloclab::TimeNs([&] { Work(); });
//   double overhead = alloclab::TimerOverheadNs();

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_CLOCK_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_CLOCK_H_

#include <cstdint>
#include <utility>

namespace alloclab {

// NowNs()
//
// Nanoseconds on CLOCK_MONOTONIC (vDSO: no system call). Only differences mean
// anything.
int64_t NowNs();

// TimeNs()
//
// Runs `fn` once and returns the nanoseconds between two `NowNs()` reads
// around it. The reads themselves are included: see `TimerOverheadNs()`.
template <typename Fn>
int64_t TimeNs(Fn&& fn) {
  const int64_t start = NowNs();
  std::forward<Fn>(fn)();
  return NowNs() - start;
}

// TimerOverheadNs()
//
// The median cost, in nanoseconds, of timing an empty region (two `NowNs()`
// reads back to back), over many samples. Measured on each call.
double TimerOverheadNs();

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_CLOCK_H_
