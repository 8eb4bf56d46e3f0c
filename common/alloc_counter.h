// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: alloc_counter.h
// -----------------------------------------------------------------------------
//
// A counting allocator: linking `//common:alloc_counter` replaces every form
// of the global `operator new` (plain, array, nothrow, aligned, and their
// combinations) with one that counts the call and then allocates with malloc.
// The deletes are replaced too, so that every pair matches.
//
// How the count is kept is itself a lesson (the allocator article, "a counter that lied"),
// so the mode is chosen at run time:
//
//   kOff        counts nothing: the baseline.
//   kShared     one atomic counter for the whole process. Correct, but every
//               allocation of every thread writes the same cache line.
//   kPerThread  one counter per thread, written only by its owner. Counts of
//               threads that have exited are folded into a retired total, so
//               `TotalAllocations()` stays exact.
//
// Counts are never reset; measure differences (see `AllocationScope`).
//
// Example:
//
//   alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
//   alloclab::AllocationScope scope;
//   std::string s(100, 'x');
//   assert(scope.Count() == 1);

#ifndef ALLOCLAB_COMMON_ALLOC_COUNTER_H_
#define ALLOCLAB_COMMON_ALLOC_COUNTER_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace alloclab {

// CountingMode
//
// How `operator new` counts. See the file comment.
enum class CountingMode { kOff, kShared, kPerThread };

// CountingModeName()
//
// "off", "shared" or "per_thread": the names used in tables and JSON.
absl::string_view CountingModeName(CountingMode mode);

// SetCountingMode()
//
// Switches the mode for all threads. Allocations already counted stay counted.
// The default, at program start, is kPerThread.
void SetCountingMode(CountingMode mode);

// GetCountingMode()
CountingMode GetCountingMode();

// TotalAllocations()
//
// Every `operator new` counted so far, in any mode, by any thread, including
// threads that have exited. Exact once the counting threads are joined.
uint64_t TotalAllocations();

// ThreadAllocations()
//
// The calls to `operator new` that the calling thread made while the mode was
// kPerThread.
uint64_t ThreadAllocations();

// AllocationScope
//
// Counts the allocations made, process-wide, between its construction and
// `Count()`.
class AllocationScope {
 public:
  AllocationScope() : start_(TotalAllocations()) {}
  uint64_t Count() const { return TotalAllocations() - start_; }

 private:
  uint64_t start_;
};

// CounterCostNs()
//
// What counting adds to one small `operator new` + `operator delete` pair in
// `mode`, in nanoseconds (median over repetitions, single thread, minus the
// kOff cost; may be slightly negative from noise). Restores the mode it found.
double CounterCostNs(CountingMode mode);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_ALLOC_COUNTER_H_
