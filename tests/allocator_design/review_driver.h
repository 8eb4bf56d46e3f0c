// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: review_driver.h
// -----------------------------------------------------------------------------
//
// What the reviews' drivers (rv2_driver.cc, rv3b_driver.cc) share: the line
// they count by, the bytes held as the allocator says, and the verdict each
// scenario prints and exits with (0: the promise kept, 1: broken). A piece
// of each driver's source, inside its anonymous namespace.
//
// Example:
//
//   namespace allocator_design {
//   namespace {
//   #include "tests/allocator_design/review_driver.h"
//   int Scenario() {
//     return Verdict("scenario", Held(), kThreadChurnHeldBytes,
//                    "bytes held once the threads exited");
//   }
//   }  // namespace
//   }  // namespace allocator_design

#ifndef ALLOCLAB_TESTS_ALLOCATOR_DESIGN_REVIEW_DRIVER_H_
#define ALLOCLAB_TESTS_ALLOCATOR_DESIGN_REVIEW_DRIVER_H_

constexpr uintptr_t kLine = 64;  // x86-64's coherency line

// Held()
//
// ReadCounters().bytes_held.
uint64_t Held() { return ReadCounters().bytes_held; }

// Verdict()
//
// Prints `name`: `what` `value` (bound `bound`), kept or BROKEN; returns the
// scenario's exit status, 0 when `value` <= `bound`, else 1.
int Verdict(const char* name, uint64_t value, uint64_t bound,
            const char* what) {
  const bool kept = value <= bound;
  printf("%s: %s %llu (bound %llu): %s\n", name, what,
         static_cast<unsigned long long>(value),
         static_cast<unsigned long long>(bound), kept ? "kept" : "BROKEN");
  return kept ? 0 : 1;
}

#endif  // ALLOCLAB_TESTS_ALLOCATOR_DESIGN_REVIEW_DRIVER_H_
