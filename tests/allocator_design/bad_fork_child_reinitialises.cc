// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ForkChild() starts the child afresh ("the child has one
// thread, and whatever the parent's other threads were doing is gone:
// set the central pool and the page heap back as they were at startup,
// locks and all"), as a starter that re-initialises its one mutex in the
// child might grow into. No lock is left held, so a child that only
// allocates works. But the child is a copy of the parent: the blocks live
// at the fork are its own, carved from spans that the emptied lists no
// longer know, and its counters start again from zero while the page
// source's go on. Freeing an inherited block corrupts the lists, and
// bytes_held and bytes_returned no longer say what the page source
// counted. The reference does the rest. The suite must reject it.

#include <new>

#include "labs/allocator_design/task.h"

// The reference, with its ForkChild() renamed out of the way.
#define ForkChild ReferenceForkChild
#include "solutions/allocator_design/task.cc"
#undef ForkChild

namespace allocator_design {

// The mistake: the inherited state is thrown away, not taken over.
void ForkChild() {
  for (Central& cl : central) new (&cl) Central;
  new (&heap) PageHeap;
}

}  // namespace allocator_design
