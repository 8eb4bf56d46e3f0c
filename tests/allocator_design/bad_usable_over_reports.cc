// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: UsableSize() says a little more than the block has ("the
// header is 16 bytes, so the block is 16 bytes longer"). Nothing breaks
// while callers use the size they asked for; a caller that uses what
// UsableSize() promised (realloc() growing in place, malloc_usable_size())
// writes into the next block. The reference does the rest. The suite must
// reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its UsableSize() renamed out of the way.
#define UsableSize ReferenceUsableSize
#include "solutions/allocator_design/task.cc"
#undef UsableSize

namespace allocator_design {

size_t UsableSize(const void* block) {
  const size_t usable = ReferenceUsableSize(block);
  return usable == 0 ? 0 : usable + kMinAlignment;
}

}  // namespace allocator_design
