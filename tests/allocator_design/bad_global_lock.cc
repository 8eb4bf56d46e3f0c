// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: one mutex around every call, "to be safe". The reference's
// design is all there, but no two threads are ever inside it at once: a
// thread that waits inside the allocator (for the kernel to map a large
// block, here) stops every other thread's malloc and free with it. The
// suite must reject it.

#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/task.h"

// The reference, with every entry point renamed out of the way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#define UsableSize ReferenceUsableSize
#define ThreadExit ReferenceThreadExit
#define ForkPrepare ReferenceForkPrepare
#define ForkParent ReferenceForkParent
#define ForkChild ReferenceForkChild
#define ReadCounters ReferenceReadCounters
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free
#undef UsableSize
#undef ThreadExit
#undef ForkPrepare
#undef ForkParent
#undef ForkChild
#undef ReadCounters

namespace allocator_design {
namespace {

constinit Lock global_lock;

// Holds the global lock for its scope.
class Locked {
 public:
  Locked() { global_lock.Acquire(); }
  ~Locked() { global_lock.Release(); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;
};

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  Locked locked;
  return ReferenceAllocate(size, alignment, zero);
}

void Free(void* block) {
  Locked locked;
  ReferenceFree(block);
}

size_t UsableSize(const void* block) {
  Locked locked;
  return ReferenceUsableSize(block);
}

void ThreadExit() {
  Locked locked;
  ReferenceThreadExit();
}

// Around fork() the lock is taken first and given back last, so that the
// child never inherits it held.
void ForkPrepare() {
  global_lock.Acquire();
  ReferenceForkPrepare();
}

void ForkParent() {
  ReferenceForkParent();
  global_lock.Release();
}

void ForkChild() {
  ReferenceForkChild();
  global_lock.Release();
}

Counters ReadCounters() {
  Locked locked;
  return ReferenceReadCounters();
}

}  // namespace allocator_design
