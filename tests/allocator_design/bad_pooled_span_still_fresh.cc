// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a span whose blocks are all free goes back to the pool still
// marked fresh ("it reads as zeroes": it did when it was mapped). The next
// class to take it carves a run from it that it believes zeroed, and a
// zeroed request served from that run skips its memset and reads the old
// blocks' bytes. The suite's zeroed requests recycled memory only within
// one class. Here the pool's spans are marked fresh after every call,
// which is what a PutSpans() that never clears the mark leaves. The
// reference does the rest. The suite must reject it.

#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with the entry points that may fill the pool renamed out
// of the way.
#define Allocate ReferenceAllocate
#define Free ReferenceFree
#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef Free
#undef ThreadExit

namespace allocator_design {
namespace {

// The mistake: every whole-free span of the pool is "fresh".
void MarkPoolFresh() {
  heap.lock.Acquire();
  for (SpanList& list : heap.cached) {
    for (Span* s = list.head; s != nullptr; s = s->next) s->zeroed = true;
  }
  heap.lock.Release();
}

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  void* block = ReferenceAllocate(size, alignment, zero);
  MarkPoolFresh();
  return block;
}

void Free(void* block) {
  ReferenceFree(block);
  MarkPoolFresh();
}

void ThreadExit() {
  ReferenceThreadExit();
  MarkPoolFresh();
}

}  // namespace allocator_design
