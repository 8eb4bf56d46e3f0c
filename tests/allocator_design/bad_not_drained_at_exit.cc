// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ThreadExit() does nothing. Each thread's cache dies with the
// thread, and the blocks in it with it: nobody can use them again, and the
// spans they sit in can never be given back. A program that starts and
// ends threads (a thread pool that resizes, a server's thread per
// connection) grows without end. The reference does the rest. The suite
// must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its ThreadExit() renamed out of the way.
#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef ThreadExit

namespace allocator_design {

void ThreadExit() {}

}  // namespace allocator_design
