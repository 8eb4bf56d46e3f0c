// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a per-thread cache of freed blocks without a bound. Free()
// only links the block into the thread's own list; the list goes back to
// the allocator in one go when the thread next allocates (or exits), "to
// take the allocator's locks once for many frees". A thread that only
// frees, as the consumer of lab jemalloc_adoption's msgsend does, never
// allocates: it keeps every block it was ever handed, and the producer,
// finding nothing free, takes new memory for every message. The reference
// does the rest. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with the entry points the cache wraps renamed out of the
// way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free
#undef ThreadExit

namespace allocator_design {
namespace {

// The blocks this thread freed, linked through their first word.
__attribute__((tls_model(
    "initial-exec"))) constinit thread_local void* freed_here = nullptr;

void GiveBackFreed() {
  while (freed_here != nullptr) {
    void* block = freed_here;
    freed_here = *static_cast<void**>(block);
    ReferenceFree(block);
  }
}

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  GiveBackFreed();
  return ReferenceAllocate(size, alignment, zero);
}

void Free(void* block) {
  if (block == nullptr) return;
  // The mistake: no bound on the list, and no drain when it grows.
  *static_cast<void**>(block) = freed_here;
  freed_here = block;
}

void ThreadExit() {
  GiveBackFreed();
  ReferenceThreadExit();
}

}  // namespace allocator_design
