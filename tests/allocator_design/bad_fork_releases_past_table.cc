// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the fork handlers give back the class locks from one past the
// last (an off-by-one in the loop's start, `c = kNumClasses`). Every lock
// ForkPrepare() took is given back, so the parent and the child both go on
// allocating; but the first Release() is of a "lock" past the end of the
// table, never taken. In a plain build nothing shows it; lock.h says
// Release() is for a lock the thread took. The suite must reject it. (The
// lock past the table is a stray Lock of its own here: indexing past the
// array would be undefined behaviour, which a test cannot rely on.)

#include "labs/allocator_design/task.h"

// The reference, with its fork handlers renamed out of the way.
#define ForkParent ReferenceForkParent
#define ForkChild ReferenceForkChild
#include "solutions/allocator_design/task.cc"
#undef ForkParent
#undef ForkChild

namespace allocator_design {

void ForkParent() {
  heap.lock.Release();
  // The mistake: from kNumClasses, not kNumClasses - 1.
  static constinit Lock past_the_table;
  past_the_table.Release();
  for (int c = kNumClasses - 1; c >= 0; --c) central[c].lock.Release();
}

void ForkChild() { ForkParent(); }

}  // namespace allocator_design
