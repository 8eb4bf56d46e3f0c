// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: rounds every size up to kMinAlignment without checking for
// overflow: `(size + 15) & ~15` wraps to 0 for the largest sizes, so
// Allocate(SIZE_MAX) succeeds with a block of no bytes at all, where
// task.h asks for nullptr. The reference does the rest. The suite must
// reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  const size_t rounded = (size + kMinAlignment - 1) & ~(kMinAlignment - 1);
  return ReferenceAllocate(rounded, alignment, zero);
}

}  // namespace allocator_design
