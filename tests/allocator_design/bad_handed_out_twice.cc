// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a one-block cache in front of the reference that forgets to
// empty itself. The last block a thread freed is kept for its next request
// that fits, and handed out; the slot still points at it, so the request
// after that gets the same block again, while the first caller still
// uses it. (A block freed while it sits in the slot is already "free", and
// ignored, so the reference never sees a double free.) The suite must
// reject it.

#include <cstdint>
#include <cstring>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() and Free() renamed out of the way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free

namespace allocator_design {
namespace {

__attribute__((tls_model(
    "initial-exec"))) constinit thread_local void* last_freed = nullptr;

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  void* p = last_freed;
  const size_t align = alignment > kMinAlignment ? alignment : kMinAlignment;
  if (p != nullptr && UsableSize(p) >= size &&
      reinterpret_cast<uintptr_t>(p) % align == 0) {
    // The mistake: `last_freed = nullptr;` is missing.
    if (zero) std::memset(p, 0, size);
    return p;
  }
  return ReferenceAllocate(size, alignment, zero);
}

void Free(void* block) {
  if (block == nullptr || block == last_freed) return;
  if (last_freed == nullptr) {
    last_freed = block;
    return;
  }
  ReferenceFree(block);
}

}  // namespace allocator_design
