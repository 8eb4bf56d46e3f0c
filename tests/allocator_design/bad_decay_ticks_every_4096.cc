// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the decay reads the clock once per 4096 calls, "clock_gettime
// is a vDSO call, but 4096 is a page and cheaper still". task.h's
// kDecayCheckOps is 1024: a thread's next 1024 calls after kDecayNs must
// give the memory back, and a tick every 4096 misses them three times in
// four. The suite's decay tests each made their calls in one phase, where
// this one happened to tick. The reference does the rest. The suite must
// reject it.

#include "labs/allocator_design/task.h"

// The reference, with its tick period replaced for it alone (task.h is
// included already, so its own kDecayCheckOps keeps its value).
#define kDecayCheckOps (4 * ::allocator_design::kDecayCheckOps)
#include "solutions/allocator_design/task.cc"
#undef kDecayCheckOps
