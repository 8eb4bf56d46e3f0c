// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad (review34): a table of per-size call counts, 8 MiB, in a
// writable section of its own naming ("not .bss, so not counted"), over
// kMaxStaticBytes. The reference does the rest.

#include "labs/allocator_design/task.h"

#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {
namespace {

// One counter per 16-byte size step up to 16 MiB.
constexpr size_t kStatSteps = size_t{1} << 20;
__attribute__((section("alloc_stats"), used))
uint64_t calls_of_size[kStatSteps];

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  const size_t step = size / 16;
  if (step < kStatSteps) ++calls_of_size[step];
  return ReferenceAllocate(size, alignment, zero);
}

}  // namespace allocator_design
