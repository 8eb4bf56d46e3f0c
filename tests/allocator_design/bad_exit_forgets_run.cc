// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ThreadExit() gives back each class's list of freed blocks and
// forgets the run of never-used blocks the last refill carved ("those were
// never handed out, so they are not the thread's"). They were taken from
// their span all the same: the span counts them live, can never become
// whole free, and neither it nor its pages can go back. Every thread that
// exits strands a few. The reference does the rest. The suite must reject
// it.

#include "labs/allocator_design/task.h"

// The reference, with its ThreadExit() renamed out of the way.
#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef ThreadExit

namespace allocator_design {

void ThreadExit() {
  for (int c = 0; c < kNumClasses; ++c) {
    ClassCache& cc = tc.classes[c];
    // The mistake: cc.run and cc.run_left are left out.
    if (cc.list != nullptr) ReturnBlocks(c, cc.list, nullptr, 0, 0);
  }
  for (ClassCache& cc : tc.classes) cc = ClassCache{};
  tc.armed = false;
}

}  // namespace allocator_design
