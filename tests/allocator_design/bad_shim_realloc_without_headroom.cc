// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad, of the shim rather than a task: realloc() moves a block to one
// of exactly the size asked for, as the shim did before issue 26. Correct
// by the C standard, and a near-hang in a real program: a block grown by
// appends moves at every append past its usable size, which for a large
// block (rounded to a page) is every 4 KiB, each move a copy of the whole
// block. The rest of the shim is the lab's. The ABI check must reject it
// (abi_check.cc's count of moves).

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "labs/allocator_design/task.h"

// The lab's shim, with its realloc() renamed out of the way: its headers
// come first, so that only the shim's own definition is renamed.
#define realloc ShimReallocWithHeadroom
#include "labs/allocator_design/shim.cc"
#undef realloc

extern "C" {

__attribute__((visibility("default"))) void* realloc(void* block,
                                                     size_t size) noexcept {
  if (block == nullptr) return malloc(size);
  if (size == 0) {
    free(block);
    return nullptr;
  }
  const size_t usable = allocator_design::UsableSize(block);
  if (size <= usable) return block;
  void* moved = malloc(size);
  if (moved == nullptr) return nullptr;
  memcpy(moved, block, usable);
  free(block);
  return moved;
}

}  // extern "C"
