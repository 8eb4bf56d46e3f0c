// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: internal/lock_testing.h
// -----------------------------------------------------------------------------
//
// lock.h's test hook, for the suite only (an allocator must not use it): an
// observer called on the thread that takes or gives back any Lock, just
// before it waits for the lock, once it has it, and just before it gives it
// back. The suite learns from it which locks a round of calls takes, parks
// a thread inside any one of them (the observer waits before it returns
// from kAcquired), and knows which locks a thread holds when it asks the
// page source to map (internal/pages_testing.h's SetMapObserver()).
//
// The observer runs inside the allocator, with the allocator's locks held:
// it must not call the allocator.
//
// Example:
//
//   void Observe(const allocator_design::Lock& lock,
//                allocator_design::internal::LockEvent event) {
//     if (event == allocator_design::internal::LockEvent::kAcquired) ...
//   }
//   allocator_design::internal::SetLockObserver(Observe);
//   // ... every Lock::Acquire() and Release() calls Observe ...
//   allocator_design::internal::SetLockObserver(nullptr);

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_LOCK_TESTING_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_LOCK_TESTING_H_

#include "labs/allocator_design/lock.h"

namespace allocator_design {
namespace internal {

enum class LockEvent {
  kAcquiring,  // about to wait for the lock
  kAcquired,   // holds it now
  kReleasing,  // about to give it back
};

using LockObserver = void (*)(const Lock& lock, LockEvent event);

// SetLockObserver()
//
// From now on, every Acquire() and Release() of any Lock calls `observer`
// (nullptr: none). A call already under way keeps the observer it began
// with, so that its events come in pairs.
void SetLockObserver(LockObserver observer);

// HolderTid()
//
// The thread id (gettid(2)) of the thread that holds `lock` now, or 0 when
// none does: glibc's mutex records its owner. In a forked child, a lock
// whose holder is no thread of the child is held for good: a thread that
// waits for it waits forever, and the suite says so at once instead of
// waiting out a bound.
int HolderTid(const Lock& lock);

}  // namespace internal
}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_INTERNAL_LOCK_TESTING_H_
