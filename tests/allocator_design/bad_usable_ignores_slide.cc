// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: an aligned request is cut from a larger block of the ordinary
// 16-byte classes and slid up to its boundary, as the starter does; and
// UsableSize() reports the class's size, forgetting that the block now
// starts `offset` bytes into it. A caller that uses what UsableSize()
// promised (malloc_usable_size(), realloc() growing in place) writes
// `offset` bytes past the end, into the next block. The reference does the
// rest. The suite must reject it.

#include <cstdint>

#include "labs/allocator_design/task.h"

// The reference, with the entry points the slide wraps renamed out of the
// way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#define UsableSize ReferenceUsableSize
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free
#undef UsableSize

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  if (alignment <= kMinAlignment || (alignment & (alignment - 1)) != 0 ||
      size > kSmallMax || alignment > kSmallMax - size) {
    return ReferenceAllocate(size, alignment, zero);
  }
  // Room to slide up to the next multiple of `alignment`.
  char* raw = static_cast<char*>(ReferenceAllocate(
      (size == 0 ? 1 : size) + alignment - kMinAlignment, 1, zero));
  if (raw == nullptr) return nullptr;
  const uintptr_t at = reinterpret_cast<uintptr_t>(raw);
  return raw + (((at + alignment - 1) & ~(alignment - 1)) - at);
}

// A block of a class, back to the start of the block it was slid into.
void Free(void* block) {
  const uintptr_t entry = LookupEntry(block);
  const uintptr_t code = entry & kClassBits;
  if (code != 0) {
    const uintptr_t start = SpanOf(entry)->start;
    const uintptr_t size = kClass.size[code - 1];
    const uintptr_t at = reinterpret_cast<uintptr_t>(block);
    block = reinterpret_cast<void*>(start + (at - start) / size * size);
  }
  ReferenceFree(block);
}

// The mistake: the class's size, from the block's start, not from `block`.
size_t UsableSize(const void* block) { return ReferenceUsableSize(block); }

}  // namespace allocator_design
