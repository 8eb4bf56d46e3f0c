// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ForkPrepare() takes every class's lock and forgets the page
// heap's ("the page heap is reached from the classes' slow paths, and the
// class locks stop those"). But a large block goes to the page heap with
// no class lock held, and so do the decay and the spans a flush gives
// back: fork() while a thread is inside the page heap, and the child
// inherits its lock held by a thread it does not have; its first call that
// needs the page heap never returns. ValidatorFork.
// ChildOfAThreadedProcessAllocates finds this only when a busy thread
// happens to hold the lock at the fork; ValidatorFork.
// ChildForkedWhileAThreadHoldsEachLock parks a thread inside every lock a
// round of calls takes, the page heap's among them. The reference does the
// rest. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its fork handlers renamed out of the way.
#define ForkPrepare ReferenceForkPrepare
#define ForkParent ReferenceForkParent
#define ForkChild ReferenceForkChild
#include "solutions/allocator_design/task.cc"
#undef ForkPrepare
#undef ForkParent
#undef ForkChild

namespace allocator_design {

// The mistake: heap.lock is neither taken nor given back.
void ForkPrepare() {
  for (Central& cl : central) cl.lock.Acquire();
}

void ForkParent() {
  for (int c = kNumClasses - 1; c >= 0; --c) central[c].lock.Release();
}

void ForkChild() { ForkParent(); }

}  // namespace allocator_design
