// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: internal/pages_testing.h
// -----------------------------------------------------------------------------
//
// The page source's test hooks, for the suite only (an allocator must not
// use them): a clock the test moves by hand, so that a decay of a second is
// checked without waiting for one; a gate that stops the next thread
// that asks the page source for memory, inside the allocator, until the
// test lets it go, so that "another thread stopped inside the allocator
// never stops this one" is driven, not hoped for; and a refusal, so that
// "nullptr when the page source refuses" is checked without exhausting the
// machine's memory; and an observer of every map, so that the suite sees
// which locks (lock.h) a thread holds when it asks the kernel for memory.
//
// Example:
//
//   allocator_design::internal::ScopedFakeClock clock;
//   clock.Advance(2 * allocator_design::kDecayNs);
//
//   allocator_design::internal::CloseMapGate();
//   std::thread t([] { allocator_design::Allocate(64 << 20, 16, false); });
//   allocator_design::internal::WaitUntilParkedAtMapGate();
//   // ... t is stopped inside Allocate(); this thread goes on ...
//   allocator_design::internal::OpenMapGate();
//   t.join();
//
//   {
//     allocator_design::internal::ScopedMapRefusal refusal;
//     // Allocate(64 << 20, 16, false) == nullptr; refusal.refused() >= 1
//   }

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_PAGES_TESTING_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_PAGES_TESTING_H_

#include <cstdint>

namespace allocator_design {
namespace internal {

// ScopedFakeClock
//
// While it lives, NowNs() returns a value that starts where the real clock
// was and moves only by Advance().
class ScopedFakeClock {
 public:
  ScopedFakeClock();
  ~ScopedFakeClock();
  ScopedFakeClock(const ScopedFakeClock&) = delete;
  ScopedFakeClock& operator=(const ScopedFakeClock&) = delete;

  void Advance(uint64_t ns);
};

// CloseMapGate() / WaitUntilParkedAtMapGate() / OpenMapGate()
//
// After CloseMapGate(), the next MapPages() or MapAlignedPages() call, on
// any thread, waits at the gate before it maps. WaitUntilParkedAtMapGate()
// returns once a thread waits there; OpenMapGate() lets it (and any later
// one) through.
void CloseMapGate();
void WaitUntilParkedAtMapGate();
void OpenMapGate();

// ScopedMapRefusal
//
// While it lives, every MapPages() and MapAlignedPages() call, on any
// thread, fails as a kernel out of memory would: nullptr, nothing mapped,
// nothing counted in PageSourceCounts. `refused()` says how many calls it
// refused, so a test knows the allocator asked.
class ScopedMapRefusal {
 public:
  ScopedMapRefusal();
  ~ScopedMapRefusal();
  ScopedMapRefusal(const ScopedMapRefusal&) = delete;
  ScopedMapRefusal& operator=(const ScopedMapRefusal&) = delete;
  uint64_t refused() const;

 private:
  uint64_t refused_before_;
};

// SetMapObserver()
//
// From now on, every MapPages() and MapAlignedPages() call, on any thread,
// first calls `observer` on that thread (nullptr: none), before the gate
// and the refusal. It runs inside the allocator: it must not call it.
void SetMapObserver(void (*observer)());

}  // namespace internal
}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_PAGES_TESTING_H_
