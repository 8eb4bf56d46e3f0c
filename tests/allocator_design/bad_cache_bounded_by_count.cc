// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a thread cache bounded in blocks, not in bytes: every class
// may keep 128 freed blocks before it drains, "128 is plenty and cheap".
// For 64-byte blocks that is 8 KiB; for 256 KiB blocks it is 32 MiB in one
// thread's cache, and a consumer that frees large messages keeps them all
// while the producer maps new ones. (The reference bounds each class's
// cache to at most 512 KiB of blocks in a batch.) The reference does the
// rest. The suite must reject it.

#include <cstdint>

#include "labs/allocator_design/task.h"

// The reference, with its Free() renamed out of the way.
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Free

namespace allocator_design {
namespace {

constexpr uint32_t kBlocksPerClass = 128;

}  // namespace

void Free(void* block) {
  const uintptr_t code = LookupEntry(block) & kClassBits;
  if (code != 0) {
    // The mistake: the same count for every class, whatever its size.
    ClassCache& cc = tc.classes[code - 1];
    if (cc.limit != 0 && cc.limit < kBlocksPerClass) {
      cc.room += kBlocksPerClass - cc.limit;
      cc.limit = kBlocksPerClass;
    }
  }
  ReferenceFree(block);
}

}  // namespace allocator_design
