// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: once the heap could not grow, the allocator remembers it,
// "the machine is out of memory: stop asking". But a refusal is a moment,
// not a state: memory comes back when another program exits, or when this
// one frees a large block. task.h: Allocate() returns nullptr only when the
// page source refuses (or the size cannot be rounded up), so once it maps
// again, blocks must be had again. The reference does the rest. The suite
// must reject it.

#include <atomic>
#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {
namespace {

constinit std::atomic<bool> exhausted{false};

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  // Sizes that cannot be rounded up are refused without a mark (the
  // reference refuses them too): only a failed growth counts.
  const bool ordinary = size <= (size_t{1} << 40);
  if (ordinary && exhausted.load(std::memory_order_relaxed)) return nullptr;
  void* p = ReferenceAllocate(size, alignment, zero);
  if (p == nullptr && ordinary) exhausted.store(true);  // the mistake
  return p;
}

}  // namespace allocator_design
