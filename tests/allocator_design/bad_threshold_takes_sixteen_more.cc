// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the large threshold compared with the kMinAlignment slack
// taken off, "a request is rounded to 16 bytes anyway", so that sizes
// kSmallMax + 1 to kSmallMax + 16 count as small, and the class look-up,
// which has no class above kSmallMax, gives them its last one: a block of
// 256 KiB for a request of up to 16 bytes more. UsableSize() says so
// truthfully, and the caller writes past the block's end into the next.
// No test of the suite asked for a size just above the threshold. The
// reference does the rest. The suite must reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  // The mistake: `size - kMinAlignment <= kSmallMax`, then the last class.
  if (size > kSmallMax && size - kMinAlignment <= kSmallMax &&
      alignment <= kMinAlignment) {
    return AllocateSmall(kNumClasses - 1, size, zero);
  }
  return ReferenceAllocate(size, alignment, zero);
}

}  // namespace allocator_design
