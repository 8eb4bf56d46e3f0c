// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: alloc_counter.h
// -----------------------------------------------------------------------------
//
// A counting allocator. Linking `//common/instruments:alloc_counter` into a
// program makes it count every request for heap memory, from either door:
//
//   - the C functions: malloc, calloc, realloc, reallocarray, posix_memalign,
//     aligned_alloc, memalign, valloc, pvalloc, and free;
//   - every form of the global `operator new` (plain, array, nothrow,
//     aligned, and their combinations) and `operator delete`.
//
// Each call is counted once and then forwarded to the allocator that would
// have served it without this library: glibc's, or one preloaded with
// LD_PRELOAD (jemalloc, tcmalloc, mimalloc). `operator new` goes straight to
// that allocator, not through the counted malloc, so `new` counts once.
//
// What counts as what:
//
//   allocation    every call that asks for memory, whether or not it
//                 succeeds: each malloc, calloc, posix_memalign,
//                 aligned_alloc, memalign, valloc, pvalloc, operator new;
//                 realloc(NULL, n) and reallocarray(NULL, ...) like malloc;
//                 realloc(p, n) with n > 0 (it may move the block).
//   deallocation  every call that hands a block back: free(p) and delete p
//                 with p non-null; realloc(p, n) that returned a block (the
//                 old one is gone, even at the same address); realloc(p, 0)
//                 that returned null (glibc frees p and returns null; jemalloc
//                 and mimalloc return a minimal block instead, which counts
//                 as allocation + deallocation like any resize).
//
// So, for calls that succeed, allocations - deallocations = blocks live.
// free(NULL) and delete nullptr count nothing.
//
// Under AddressSanitizer, ThreadSanitizer, MemorySanitizer or HWASan this
// library does not define the C functions: those runtimes replace malloc
// themselves and must see every call from the first one on. Under ASan (and
// MSan, HWASan) it counts them instead through the hooks the runtime calls
// on each allocation and deallocation it serves
// (`__sanitizer_install_malloc_and_free_hooks`), with two differences: calls
// that fail are not counted (the runtime calls no hook for them), nor are
// calls made before this library's constructor ran. Under TSan the C
// functions are not counted at all (its runtime reports only some forms to
// the hooks); every form of operator new still is. `CountsMallocFamily()`
// and `MallocCountingNote()` say which way this build counts.
//
// How the count is kept is itself a lesson (the allocator article, "a
// counter that lied"; lab counter_contention), so the mode is chosen at run
// time:
//
//   kOff        counts nothing: the baseline.
//   kShared     one atomic counter for the whole process. Correct, but every
//               allocation of every thread writes the same cache line.
//   kPerThread  one counter per thread, written only by its owner. Counts of
//               threads that have exited are folded into a retired total, so
//               `TotalAllocations()` stays exact.
//   kCustom     allocations go to a counter written elsewhere (a learner's,
//               see `UseCustomCounter()`); deallocations to the per-thread
//               records, which cost the owner one uncontended store.
//
// Counts are never reset; measure differences (see `AllocationScope`).
//
// Example:
//
//   alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
//   alloclab::AllocationScope scope;
//   std::string s(100, 'x');          // operator new: 1
//   free(strdup("a C string"));       // malloc inside strdup: 1
//   assert(scope.Count() == 2);

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_ALLOC_COUNTER_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_ALLOC_COUNTER_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace alloclab {

// CountingMode
//
// How allocations are counted. See the file comment.
enum class CountingMode { kOff, kShared, kPerThread, kCustom };

// CountingModeName()
//
// "off", "shared", "per_thread" or "custom": the names used in tables and
// JSON.
absl::string_view CountingModeName(CountingMode mode);

// SetCountingMode()
//
// Switches the mode for all threads. Allocations already counted stay counted.
// The default, at program start, is kPerThread. kCustom without a counter
// installed (`UseCustomCounter()`) counts in the per-thread records.
void SetCountingMode(CountingMode mode);

// GetCountingMode()
CountingMode GetCountingMode();

// AllocationCounter
//
// The plug-in point: a counter of allocations written outside this library
// (lab counter_contention's task). Both functions may be called from any
// thread at any time, including while a thread starts or exits, from inside
// malloc. `count` must not allocate: an allocation it makes anyway is
// counted by the per-thread records instead of recursing into it.
struct AllocationCounter {
  // Called once per allocation, on the allocating thread.
  void (*count)();
  // Every `count()` so far, by any thread, including threads that exited.
  uint64_t (*total)();
};

// UseCustomCounter()
//
// Installs `counter` (it must live until the program ends) and switches to
// kCustom. A scope that spans a change of counter measures nothing useful.
void UseCustomCounter(const AllocationCounter& counter);

// TotalAllocations()
//
// Every allocation counted so far, in any mode, by any thread, including
// threads that have exited, plus the installed custom counter's total. Exact
// once the counting threads are joined.
uint64_t TotalAllocations();

// TotalDeallocations()
//
// The same for deallocations (counted in kShared, kPerThread and kCustom).
uint64_t TotalDeallocations();

// ThreadAllocations()
//
// The allocations that the calling thread made while the mode was
// kPerThread (or kCustom without a counter installed).
uint64_t ThreadAllocations();

// AllocationScope
//
// Counts the allocations and deallocations made, process-wide, between its
// construction and `Count()` / `Deallocations()`.
class AllocationScope {
 public:
  AllocationScope()
      : allocations_(TotalAllocations()),
        deallocations_(TotalDeallocations()) {}
  uint64_t Count() const { return TotalAllocations() - allocations_; }
  uint64_t Deallocations() const {
    return TotalDeallocations() - deallocations_;
  }

 private:
  uint64_t allocations_;
  uint64_t deallocations_;
};

// CountsMallocFamily()
//
// True when this build counts the C allocation functions: always, except
// under ThreadSanitizer (see the file comment).
bool CountsMallocFamily();

// CountsFailedMallocCalls()
//
// True when a C allocation call that fails is counted too, as operator new's
// always are; false under a sanitizer.
bool CountsFailedMallocCalls();

// MallocCountingNote()
//
// One line for a machine description: which library the counted malloc is
// forwarded to (e.g. "malloc counted, forwarded to libjemalloc.so.2"), or why
// the C functions are not counted in this build.
std::string MallocCountingNote();

// CounterCostNs()
//
// What counting adds to one small `operator new` + `operator delete` pair in
// `mode`, in nanoseconds (median over repetitions, single thread, minus the
// kOff cost; may be slightly negative from noise). Restores the mode it found.
double CounterCostNs(CountingMode mode);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_ALLOC_COUNTER_H_
