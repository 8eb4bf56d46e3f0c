// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a class's slow path makes sure of a span while it holds the
// class's lock ("so that two threads that find the class empty do not
// both map a span for it"). Every block is still right, and it may even
// map less. But a thread that waits for the kernel inside GetSpans() now
// holds its class's lock, and every other thread that needs a batch of
// that class, or to give one back, waits with it: promise 1's "another
// thread stopped inside the allocator never stops it" broken for every
// size in turn. A thread parked in a 64 MiB allocation holds no class lock,
// so DesignFastPath.OtherThreadStoppedInsideDoesNotStopThisOne passes;
// DesignFastPath.NoLockIsHeldWhileThePageSourceMaps sees the lock held at
// the map. Here each refill first gets its class a span, the class's lock
// held (known_bad_common.h's BeforeRefill()); the reference does the rest.
// The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate
#include "tests/allocator_design/known_bad_common.h"

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  known_bad::BeforeRefill(size, alignment, [](int c, Central& cl) {
    ++cl.visits;
    if (cl.partial.head == nullptr) {
      // The mistake: GetSpans() may map, with the class's lock held.
      if (Span* s = GetSpans(c, 1)) cl.partial.PushFront(s);
    }
  });
  return ReferenceAllocate(size, alignment, zero);
}

}  // namespace allocator_design
