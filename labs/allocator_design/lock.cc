// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The lock (lock.h) and its observer (internal/lock_testing.h). The
// observer is one atomic pointer, loaded once per call: null outside the
// suite.

#include "labs/allocator_design/lock.h"

#include <pthread.h>

#include <atomic>

#include "labs/allocator_design/internal/lock_testing.h"

namespace allocator_design {
namespace {

constinit std::atomic<internal::LockObserver> observer{nullptr};

}  // namespace

void Lock::Acquire() {
  const internal::LockObserver o = observer.load(std::memory_order_acquire);
  if (o != nullptr) o(*this, internal::LockEvent::kAcquiring);
  pthread_mutex_lock(&mutex_);
  if (o != nullptr) o(*this, internal::LockEvent::kAcquired);
}

void Lock::Release() {
  const internal::LockObserver o = observer.load(std::memory_order_acquire);
  if (o != nullptr) o(*this, internal::LockEvent::kReleasing);
  pthread_mutex_unlock(&mutex_);
}

namespace internal {

void SetLockObserver(LockObserver o) {
  observer.store(o, std::memory_order_release);
}

int HolderTid(const Lock& lock) {
  // Relaxed enough for its one use: a thread about to wait reads who holds
  // the lock it waits for; a holder that changes meanwhile was alive.
  return __atomic_load_n(&lock.mutex_.__data.__owner, __ATOMIC_RELAXED);
}

}  // namespace internal
}  // namespace allocator_design
