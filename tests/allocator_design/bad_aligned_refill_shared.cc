// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference, but a request aligned to more than kMinAlignment
// refills its class from any span with a free block, whichever thread's
// blocks are live beside it ("an aligned request is rare: take what is
// there"); requests of the default alignment keep to the thread's own spans,
// as the reference's do. The class is the same for both: a thread asking
// for 64 bytes aligned to 64 takes the free blocks of another thread's span
// of 64-byte blocks, beside that thread's live ones. Every block is still
// right, and two threads that ask only for the default alignment (the fixed
// DesignOwnLines test) never see it. The reference does the rest. The suite
// must reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  if (alignment > kMinAlignment && size <= kSmallMax &&
      (alignment & (alignment - 1)) == 0) {
    // The class the reference's AllocateSlow() takes for it.
    int c = ClassOf(size);
    while (c < kNumClasses && kClass.alignment[c] < alignment) ++c;
    if (c < kNumClasses && tc.classes[c].list == nullptr &&
        tc.classes[c].run_left == 0) {
      Central& cl = central[c];
      cl.lock.Acquire();
      // The mistake: any span with a free block refills this thread.
      for (Span* s = cl.partial.head; s != nullptr; s = s->next) {
        s->owner = &tc;
      }
      cl.lock.Release();
    }
  }
  return ReferenceAllocate(size, alignment, zero);
}

}  // namespace allocator_design
