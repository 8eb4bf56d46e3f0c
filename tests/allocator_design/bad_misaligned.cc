// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: ignores an alignment above kMinAlignment. Every block is
// 16-byte aligned, as malloc's are, so nothing breaks until a caller asks
// for more (posix_memalign, aligned_alloc, an alignas(64) type): then the
// block it gets is not aligned as asked. The reference does the rest. The
// suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {

void* Allocate(size_t size, size_t /*alignment*/, bool zero) {
  return ReferenceAllocate(size, kMinAlignment, zero);
}

}  // namespace allocator_design
