// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the thread-exit hook is armed only when a thread's cache is
// set up in Allocate(), as thread_exit.h's example once said. A thread
// that only frees (a consumer of another thread's messages) fills a cache
// all the same, and when it exits nothing gives that cache back: its
// blocks, and the spans they keep from being whole free, are lost for
// good. The suite's threads all allocated. The reference does the rest.
// The suite must reject it.

#include "labs/allocator_design/task.h"
#include "labs/allocator_design/thread_exit.h"

namespace allocator_design {
namespace {

// Whether this thread is inside Allocate().
__attribute__((
    tls_model("initial-exec"))) constinit thread_local bool allocating = false;

// The mistake: a cache set up by a Free() arms nothing.
void ArmThreadExitWhenAllocating() {
  if (allocating) ArmThreadExit();
}

}  // namespace
}  // namespace allocator_design

// The reference, with its Allocate() renamed out of the way and its arming
// of the hook going through the above (thread_exit.h is included already,
// so its declaration keeps its name).
#define Allocate ReferenceAllocate
#define ArmThreadExit ArmThreadExitWhenAllocating
#include "solutions/allocator_design/task.cc"
#undef Allocate
#undef ArmThreadExit

namespace allocator_design {

void* Allocate(size_t size, size_t alignment, bool zero) {
  allocating = true;
  void* block = ReferenceAllocate(size, alignment, zero);
  allocating = false;
  return block;
}

}  // namespace allocator_design
