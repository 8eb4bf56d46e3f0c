// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a thread cache that is flushed after every free, "so that no
// thread sits on memory another could use". Each block goes straight back
// to the central pool, and each allocation takes one from it: every call
// pays the shared lock and its cache line, the fast path is the central
// one. The reference does the rest (its ThreadExit() is what flushes). The
// suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its Free() renamed out of the way.
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Free

namespace allocator_design {

void Free(void* block) {
  ReferenceFree(block);
  ThreadExit();
}

}  // namespace allocator_design
