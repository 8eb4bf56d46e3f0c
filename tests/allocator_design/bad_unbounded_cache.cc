// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a thread cache without a bound. Free() keeps every block in
// the freeing thread's cache, as the reference's does, but never drains it
// back to the spans: a thread that frees what another allocated (a
// consumer of messages, lab jemalloc_adoption's msgsend) piles up every
// block it ever freed, and the producer, finding nothing free, takes new
// spans for every batch. Only thread exit gives it back. The reference's
// own Free() is this one with its Drain(), and the reference does the
// rest. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its Free() renamed out of the way.
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Free

namespace allocator_design {

void Free(void* block) {
  if (block == nullptr) return;
  Span* s = LookupSpan(block);
  if (s == nullptr) return;
  CountCall();
  const int c = s->size_class;
  if (c == kLargeClass) return FreeLarge(s);
  ClassCache& cc = tc.classes[c];
  NextOf(block) = cc.list;
  cc.list = block;
  ++cc.count;  // the mistake: no `if (cc.count > cc.limit) Drain(c);`
}

}  // namespace allocator_design
