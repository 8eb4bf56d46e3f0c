// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: every call to the page source made under the page heap's
// lock ("maps are rare, and one lock around them keeps two threads from
// each mapping a chunk when one would do"). Every block is still right.
// But a thread that waits for the kernel now holds the page heap's lock,
// and every other thread that needs a span, a large block, or to give its
// idle spans back waits with it. The warm pairs of DesignFastPath.
// OtherThreadStoppedInsideDoesNotStopThisOne need none of these, so it
// passes; DesignFastPath.NoLockIsHeldWhileThePageSourceMaps sees the lock
// held at the map. The reference does the rest. The suite must reject it.

#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
void* MapPagesUnderHeapLock(size_t bytes);
void* MapAlignedPagesUnderHeapLock(size_t bytes, size_t alignment);
}  // namespace allocator_design

// The reference, its maps sent through the two functions above (pages.h,
// already included, keeps the real names).
#define MapPages MapPagesUnderHeapLock
#define MapAlignedPages MapAlignedPagesUnderHeapLock
#include "solutions/allocator_design/task.cc"
#undef MapPages
#undef MapAlignedPages

namespace allocator_design {

// The mistake: the page heap's lock held while the kernel maps. (The
// reference never holds it at these calls, so this takes it afresh.)
void* MapPagesUnderHeapLock(size_t bytes) {
  heap.lock.Acquire();
  void* p = MapPages(bytes);
  heap.lock.Release();
  return p;
}

void* MapAlignedPagesUnderHeapLock(size_t bytes, size_t alignment) {
  heap.lock.Acquire();
  void* p = MapAlignedPages(bytes, alignment);
  heap.lock.Release();
  return p;
}

}  // namespace allocator_design
