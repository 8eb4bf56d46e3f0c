// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_design: the reference (being written).

#include "labs/allocator_design/task.h"

namespace allocator_design {

void* Allocate(size_t, size_t, bool) { return nullptr; }
void Free(void*) {}
size_t UsableSize(const void*) { return 0; }
void ThreadExit() {}
void ForkPrepare() {}
void ForkParent() {}
void ForkChild() {}
Counters ReadCounters() { return {}; }

}  // namespace allocator_design
