// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: lock.h
// -----------------------------------------------------------------------------
//
// The lock of the lab's allocators: every lock an allocator of task.h takes
// is one of these (task.h's rules). A pthread mutex, constant-initialised,
// that never allocates, as an allocator's lock must be; and, for the suite
// only, an observer (internal/lock_testing.h) that sees each one taken and
// given back. With it the suite can stop a thread inside any critical
// section of yours, whichever locks your design has, and fork while it is
// there; and it can see whether a thread holds a lock while the page source
// maps. Without an observer, taking a lock costs one load more than the
// mutex alone.
//
// Example:
//
//   constinit allocator_design::Lock central_lock;
//
//   central_lock.Acquire();
//   // ... the central lists ...
//   central_lock.Release();

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_LOCK_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_LOCK_H_

#include <pthread.h>

namespace allocator_design {

class Lock;
namespace internal {
int HolderTid(const Lock& lock);
}  // namespace internal

// Lock
//
// Not recursive: a thread that holds it and takes it again waits forever.
// Constant-initialised (`constinit Lock lock;`), so it may be used before
// any constructor has run.
class Lock {
 public:
  constexpr Lock() = default;
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

  // Acquire()
  //
  // Waits until no other thread holds it, and takes it.
  void Acquire();

  // Release()
  //
  // Gives it back: by the thread that took it, or, in a forked child, by
  // its one thread for a lock that thread took in ForkPrepare().
  void Release();

 private:
  friend int internal::HolderTid(const Lock& lock);

  // glibc's adaptive mutex: a thread that finds it taken spins a while
  // before it sleeps in the kernel. An allocator holds its locks for a few
  // hundred nanoseconds, and a sleep and a wake-up cost several
  // microseconds or more: with a plain mutex, two threads that refill often
  // took turns sleeping and ran no faster than one (the experiment's
  // two_threads rows).
  pthread_mutex_t mutex_ = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
};

}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_LOCK_H_
