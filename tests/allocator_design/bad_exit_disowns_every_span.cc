// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ThreadExit() gives the thread's cache back and then makes every
// span of every class nobody's, not only the exiting thread's own
// ("after an exit, let any thread refill from any span": ForkChild()'s rule,
// where the child's other threads are gone, taken for an exit, where they
// are not). The threads that still run keep their live blocks in spans that
// the next refill of any thread may now take: its blocks are carved or
// handed out beside theirs, on their lines. Every block is still right,
// nothing more is held, and two threads that never exit (the fixed
// DesignOwnLines test) never see it; a third thread's exit is what opens
// the others' spans. The reference does the rest. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its ThreadExit() renamed out of the way.
#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef ThreadExit

namespace allocator_design {

void ThreadExit() {
  ReferenceThreadExit();
  for (Central& cl : central) {
    cl.lock.Acquire();
    // The mistake: the spans of the threads that run on become nobody's.
    DisownSpans(cl, &tc, /*keep=*/true);
    cl.lock.Release();
  }
}

}  // namespace allocator_design
