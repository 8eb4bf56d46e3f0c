// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a page at least for every block, and every size rounded up to
// a power of two ("sizes are simpler that way"). Every block is correct,
// the fast path is the reference's, and a 24-byte block holds 4 KiB: a
// program of small objects needs a hundred times the memory it uses. The
// suite must reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  size_t rounded = 4096;
  while (rounded < size && rounded <= SIZE_MAX / 2) rounded *= 2;
  if (rounded < size) return nullptr;
  return ReferenceAllocate(rounded, alignment, zero);
}

}  // namespace allocator_design
