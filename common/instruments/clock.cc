// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/clock.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <vector>

namespace alloclab {

int64_t NowNs() {
  timespec ts;
  // CLOCK_MONOTONIC cannot fail with a valid pointer; its vDSO path makes no
  // system call on the usual clock sources (tsc, arch_sys_counter).
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double TimerOverheadNs() {
  // One read pair costs tens of nanoseconds, close to the clock's 1 ns
  // resolution, so a sample times a run of back-to-back reads and divides:
  // the interval between two consecutive reads is exactly what `TimeNs()`
  // adds around an empty region, now with sub-nanosecond resolution.
  constexpr int kReadsPerSample = 16;
  constexpr int kSamples = 1001;
  std::vector<double> samples;
  samples.reserve(kSamples);
  std::array<int64_t, kReadsPerSample + 1> reads;
  for (int s = 0; s < kSamples; ++s) {
    for (int64_t& r : reads) r = NowNs();
    samples.push_back(static_cast<double>(reads.back() - reads.front()) /
                      kReadsPerSample);
  }
  // The median, not the mean: an interrupt or a preemption inside one sample
  // would otherwise be charged to every read.
  auto middle = samples.begin() + samples.size() / 2;
  std::nth_element(samples.begin(), middle, samples.end());
  return *middle;
}

}  // namespace alloclab
