// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the first small blocks come from a static arena in .bss, "for
// the calls that come before the allocator is set up", as dlsym()'s early
// calloc() is often served. But task.h's allocator gets memory only from
// the page source: a block from anywhere else is memory its counters never
// see, and one it hands out when the page source refuses. The reference
// does the rest. The suite must reject it.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "labs/allocator_design/task.h"

// The reference, with its entry points renamed out of the way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#define UsableSize ReferenceUsableSize
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free
#undef UsableSize

namespace allocator_design {
namespace {

constexpr size_t kArenaBytes = 64 << 10;
constexpr size_t kArenaBlock = 256;  // every arena block, whatever its size
alignas(4096) constinit char arena[kArenaBytes] = {};
constinit std::atomic<size_t> arena_next{0};

bool InArena(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t begin = reinterpret_cast<uintptr_t>(arena);
  return a >= begin && a < begin + kArenaBytes;
}

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  if (size <= kArenaBlock && alignment <= kArenaBlock) {
    const size_t at = arena_next.fetch_add(kArenaBlock);
    if (at + kArenaBlock <= kArenaBytes) {  // the mistake: never mapped
      char* p = arena + at;
      if (zero) std::memset(p, 0, size);
      return p;
    }
  }
  return ReferenceAllocate(size, alignment, zero);
}

void Free(void* block) {
  if (InArena(block)) return;  // a bump arena: its blocks stay used
  ReferenceFree(block);
}

size_t UsableSize(const void* block) {
  return InArena(block) ? kArenaBlock : ReferenceUsableSize(block);
}

}  // namespace allocator_design
