// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference as it was before promise 6, a refill that takes
// the first span of its class with a free block, whichever thread's blocks
// are live beside it ("a freed block is a freed block: hand it to whoever
// asks"). Every block is still right, every batch still one central visit,
// and what it holds is no more. But blocks one thread drained go, one by
// one, to the next thread that refills: blocks of 16 bytes, four to a
// 64-byte line, come back to thread B beside thread A's live ones, and
// both threads write one line (mimalloc-bench's glibc-thread ran no faster
// on two cores than on one). Here each refill first makes every span of
// its class with a free block the refilling thread's own (known_bad_common.h's
// BeforeRefill()); the reference does the rest.
// DesignOwnLines.TwoThreadsNeverShareALineOfLiveBlocks counts the lines; the
// suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate
#include "tests/allocator_design/known_bad_common.h"

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  known_bad::BeforeRefill(size, alignment, [](int, Central& cl) {
    // The mistake: any span with a free block refills this thread.
    for (Span* s = cl.partial.head; s != nullptr; s = s->next) {
      s->owner = &tc;
    }
  });
  return ReferenceAllocate(size, alignment, zero);
}

}  // namespace allocator_design
