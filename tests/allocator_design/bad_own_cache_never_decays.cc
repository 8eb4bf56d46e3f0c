// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a thread's own cache goes back only when the thread exits,
// "while a thread runs, its cache is in use". The decay releases the
// central pool's idle spans, but the blocks a long-lived thread freed into
// its own cache, and the spans they keep from being whole free, stay held
// for as long as the thread lives, however long ago it freed them. The
// reference flushes a thread's cache every kDecayNs / 2 of its ticks; here
// its tick never sees the time for it. The reference does the rest. The
// suite must reject it.

#include <cstdint>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() and Free() renamed out of the way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free

namespace allocator_design {
namespace {

// The mistake: to the reference's tick, this thread is never idle.
void NeverIdle() {
  if (tc.armed) tc.flushed_ns = UINT64_MAX - kDecayNs;
}

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  void* block = ReferenceAllocate(size, alignment, zero);
  NeverIdle();
  return block;
}

void Free(void* block) {
  ReferenceFree(block);
  NeverIdle();
}

}  // namespace allocator_design
