// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: no decay time at all, "give memory back the moment it is
// free" (jemalloc's dirty_decay_ms:0). Memory held falls as low as it can,
// and the price is paid on the fast path: every span that a burst of frees
// empties goes back to the kernel at the next check, and the next burst
// takes it back, a system call each way. Here the reference's decay
// reads kDecayNs as 0. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its decay time replaced for it alone.
#define kDecayNs 0
#include "solutions/allocator_design/task.cc"
#undef kDecayNs
