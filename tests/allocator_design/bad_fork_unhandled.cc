// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a lock with no fork handler ("the shim calls pthread_atfork(),
// my allocator has nothing to do there"). The reference, behind one lock
// that is held while a thread asks the page source for memory, and fork
// handlers that forget that lock: fork() while another thread waits inside
// Allocate(), and the child inherits the lock held by a thread it does not
// have; its first Allocate() never returns.
// ValidatorFork.ChildOfAThreadedProcessAllocates finds this only when a
// busy thread happens to hold the lock at the fork;
// ValidatorFork.ChildForkedWhileAThreadWaitsInsideAllocates parks one
// there first. The suite must reject it.

#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/task.h"

// The reference, with the entry points the lock wraps renamed out of the
// way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#define UsableSize ReferenceUsableSize
#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free
#undef UsableSize
#undef ThreadExit

namespace allocator_design {
namespace {

constinit Lock lock;

// The one lock, held for the whole call: also while the page source maps.
template <typename F>
auto Locked(F f) {
  lock.Acquire();
  auto result = f();
  lock.Release();
  return result;
}

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  return Locked([&] { return ReferenceAllocate(size, alignment, zero); });
}

void Free(void* block) {
  Locked([&] {
    ReferenceFree(block);
    return 0;
  });
}

size_t UsableSize(const void* block) {
  return Locked([&] { return ReferenceUsableSize(block); });
}

void ThreadExit() {
  Locked([] {
    ReferenceThreadExit();
    return 0;
  });
}

// The mistake: the reference's own ForkPrepare(), ForkParent() and
// ForkChild() run as they are, and nothing takes or resets `lock`.

}  // namespace allocator_design
