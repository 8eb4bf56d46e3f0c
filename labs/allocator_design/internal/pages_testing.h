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
// which locks (lock.h) a thread holds when it asks the kernel for memory;
// and the bytes of the page source's live mappings that are resident now,
// so that bytes held is judged by what the kernel says too, not by the
// allocator's word alone; and an observer of the page source's table of
// live mappings, so that a test stops a thread between two steps of an
// unmap or of the check of a release, and drives the race between them.
//
// Example:
//
//   allocator_design::internal::ScopedFakeClock clock;
//   clock.Advance(2 * allocator_design::kDecayNs);
//
//   allocator_design::internal::CloseMapGate();
//   std::thread t([] { allocator_design::Allocate(64 << 20, 16, false); });
//   while (!allocator_design::internal::ParkedAtMapGate()) sched_yield();
//   // ... t is stopped inside Allocate(); this thread goes on ...
//   allocator_design::internal::OpenMapGate();
//   t.join();
//
//   {
//     allocator_design::internal::ScopedMapRefusal refusal;
//     // Allocate(64 << 20, 16, false) == nullptr; refusal.refused() >= 1
//   }
//
//   std::optional<uint64_t> resident =
//       allocator_design::internal::ResidentMappedBytes();
//   // when known: *resident <= ReadCounters().bytes_held

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_PAGES_TESTING_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_PAGES_TESTING_H_

#include <cstdint>
#include <optional>

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

// CloseMapGate() / ParkedAtMapGate() / OpenMapGate()
//
// After CloseMapGate(), the next MapPages() or MapAlignedPages() call, on
// any thread, waits at the gate before it maps; later calls pass while it
// waits (what a test runs meanwhile may map). ParkedAtMapGate() says
// whether one waits there now; OpenMapGate() lets it (and any later one)
// through.
void CloseMapGate();
bool ParkedAtMapGate();
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

// TableStep / SetTableObserver()
//
// From now on, every step below of the page source's table of live
// mappings, on any thread, calls `observer` on that thread with the step
// and the slot it concerns (nullptr: none):
//   kSplitAdded: an unmap that splits a mapping has put the part right of
//     the hole in slot `slot` (-1: in none, the table is lost), and not
//     yet shrunk the mapping's own slot: that part is in two slots.
//   kWalkRead: the check of an UnmapPages() or ReleasePages() call has read
//     slot `slot`, and reads the next one after.
// It runs inside the allocator: it must not call it, nor the page source.
enum class TableStep { kSplitAdded, kWalkRead };
void SetTableObserver(void (*observer)(TableStep step, int slot));

// ResidentMappedBytes()
//
// The bytes of the page source's live mappings (mapped by MapPages() or
// MapAlignedPages() and not unmapped) that are resident now, by mincore(2)
// page by page: a page is resident once touched, until released or
// unmapped. No allocator holds less (pages.h: a released range touched
// again is resident again, so held again), and none can make it less by
// what it says about itself; an allocator's pages never touched are held
// but not resident. std::nullopt when the page source no longer knows
// every live mapping (more live at once than its fixed table holds).
//
// Each call makes system calls (one mincore per mapping, at least): call
// it where no thread maps or unmaps, and outside a count of system calls.
std::optional<uint64_t> ResidentMappedBytes();

}  // namespace internal
}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_PAGES_TESTING_H_
