// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a large over-aligned block skips its memset, "a large block is
// a mapping of its own, and a fresh mapping reads as zeroes". So it does,
// the first time; from the cache of recently freed mappings it holds its
// last owner's bytes. The suite's zeroed requests were all at alignment 1.
// The reference does the rest. The suite must reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  // The mistake: above kSmallMax, an aligned request never zeroes.
  const bool aligned_large = size > kSmallMax && alignment > kMinAlignment;
  return ReferenceAllocate(size, alignment, zero && !aligned_large);
}

}  // namespace allocator_design
