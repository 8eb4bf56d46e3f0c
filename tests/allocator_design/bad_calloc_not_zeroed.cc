// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: takes "memory fresh from the kernel is already zero" for
// "every block is zero", and ignores `zero`. Right for a block carved from
// a new mapping, wrong for a recycled one: calloc() then hands back the
// bytes of the block freed before it. The reference does the rest. The
// suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool /*zero*/) {
  return ReferenceAllocate(size, alignment, false);
}

}  // namespace allocator_design
