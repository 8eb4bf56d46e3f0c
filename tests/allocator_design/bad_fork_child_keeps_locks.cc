// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ForkChild() does nothing ("the child starts afresh"). The
// reference's ForkPrepare() takes every lock so that no other thread holds
// one at the fork, and the parent gives them back in ForkParent(); the
// child, a copy taken with all of them held, never does: its first visit
// to the central pool waits forever for a lock that no thread of it will
// release. The reference does the rest. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its ForkChild() renamed out of the way.
#define ForkChild ReferenceForkChild
#include "solutions/allocator_design/task.cc"
#undef ForkChild

namespace allocator_design {

void ForkChild() {}

}  // namespace allocator_design
