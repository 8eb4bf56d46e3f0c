// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ThreadExit() gives the thread's cache back but leaves the
// thread marked as armed ("it is exiting: it will not call again"). A
// thread that allocates after its ThreadExit() (another pthread key's
// destructor, run later in the same exit) fills its cache again, and no
// hook is armed to give it back: those blocks are lost with the thread,
// and the spans they sit in can never decay. Threads that only allocate
// before they exit are fine. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its ThreadExit() renamed out of the way.
#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef ThreadExit

namespace allocator_design {

void ThreadExit() {
  FlushCache(0);
  for (ClassCache& cc : tc.classes) cc = ClassCache{};
  // The mistake: tc.armed stays true, so a later call does not arm again.
}

}  // namespace allocator_design
