// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a size-class lookup that rounds down (`size / 16` where it
// should be `(size + 15) / 16`). A 17-byte request gets a 16-byte block;
// UsableSize() says so truthfully, and the caller's 17th byte is the next
// block's first. The reference does the rest. The suite must reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  const bool looked_up = size > 16 && size <= 1024;
  return ReferenceAllocate(looked_up ? size / 16 * 16 : size, alignment, zero);
}

}  // namespace allocator_design
