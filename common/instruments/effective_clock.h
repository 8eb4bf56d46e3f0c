// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: effective_clock.h
// -----------------------------------------------------------------------------
//
// The clock a busy core really runs at. /proc/cpuinfo and cpufreq say what
// the kernel asked for, and in a VM they say nothing true at all. A chain of
// dependent integer adds retires one add per cycle on every x86-64 and arm64
// core the course targets, so adds per nanosecond is the clock in GHz,
// measured by the work itself. Two threads that slow each other down (SMT
// siblings) and a core that clocked down look alike in a timer; this tells
// them apart.
//
// Example:
//
//   absl::StatusOr<double> ghz = alloclab::MeasureEffectiveGhz();
//   if (ghz.ok()) absl::PrintF("%.2f GHz\n", *ghz);

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_EFFECTIVE_CLOCK_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_EFFECTIVE_CLOCK_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace alloclab {

// MeasureEffectiveGhz()
//
// Runs the dependent-add chain on the calling thread for about `budget_ns`
// (in several rounds; the fastest round wins) and returns cycles per
// nanosecond. Unimplemented on architectures without the inline assembly.
absl::StatusOr<double> MeasureEffectiveGhz(int64_t budget_ns = 20'000'000);

// DependentAdds()
//
// Runs `n` dependent adds and returns a value that depends on all of them
// (so the compiler cannot drop the chain). Exposed for tests.
uint64_t DependentAdds(uint64_t n);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_EFFECTIVE_CLOCK_H_
