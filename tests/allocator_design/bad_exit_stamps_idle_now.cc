// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ThreadExit() gives the exiting thread's cache back as idle
// from the exit ("the thread lets go of it now"), not from when its blocks
// were freed: the reference as it was before issue 34. A thread that frees
// 26 MB and exits 0.9 x kDecayNs later has them held 1.1 x kDecayNs after
// the free. The reference does the rest. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its ThreadExit() renamed out of the way.
#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef ThreadExit

namespace allocator_design {

void ThreadExit() {
  tc.flushed_ns = NowNs();  // the mistake: the cache counted as freed now
  ReferenceThreadExit();
}

}  // namespace allocator_design
