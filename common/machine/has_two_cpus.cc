// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// has_two_cpus: whether this process may run on two CPUs or more, as a
// condition for tools/xfail.py (lab_tests' known_bad_only_if). Two threads
// lose counts to a counter that is not atomic only when they run at the
// same instant; on one CPU they take turns, and such a counter can pass
// every count check. Prints the verdict and its reason on one line and exits
// 0 with two or more CPUs in the affinity mask, 1 with one, 2 where
// sched_getaffinity(2) fails.

#include <sched.h>

#include <cerrno>
#include <iostream>

#include "common/harness/internal/subprocess.h"

int main() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
    std::cout << "CPUs unknown: sched_getaffinity: "
              << alloclab::internal::ErrnoText(errno) << std::endl;
    return 2;
  }
  const int cpus = CPU_COUNT(&mask);
  std::cout << cpus << " CPU" << (cpus == 1 ? "" : "s")
            << " in this process's affinity mask"
            << (cpus >= 2 ? ": two threads can run at once"
                          : ": threads only take turns")
            << std::endl;
  return cpus >= 2 ? 0 : 1;
}
