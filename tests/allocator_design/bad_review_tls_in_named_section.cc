// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad (review34): a per-thread table of per-size call counts, 256 KiB,
// thread-local in a section of its own naming (".tbss.stats": "not the
// thread cache's"), over kMaxThreadLocalBytes. The reference does the rest.

#include "labs/allocator_design/task.h"

#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {
namespace {

constexpr size_t kStatSteps = size_t{1} << 15;
__attribute__((
    section(".tbss.stats"),
    tls_model("initial-exec"))) thread_local uint64_t calls_of_size[kStatSteps];

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  const size_t step = size / 16;
  if (step < kStatSteps) ++calls_of_size[step];
  return ReferenceAllocate(size, alignment, zero);
}

}  // namespace allocator_design
