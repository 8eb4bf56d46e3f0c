// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: slots in thread-local storage
// (bad_slot_in_thread_local_storage.cc), and "a thread's exit is its
// thread_local's destructor": the slot is retired by the destructor of a
// thread_local touched when the slot is set up, instead of by a pthread key's.
// Exact for every thread that counts before it starts to exit; but a
// thread_local's destructor is armed on the thread's first touch, and glibc
// runs a thread's thread_local destructors before its key destructors. A thread
// whose first count comes in a key destructor (task.h, promise 3: it "may
// allocate") arms one that never runs: its slot stays in the registry after the
// thread is gone, the next thread on the same storage links the same node
// again, and the list points to itself: TotalAllocations() never returns. The
// suite must reject it.
//
// The rest is bad_slot_in_thread_local_storage.cc's: its Link(), and its
// Retire() run from the thread_local's destructor; its own exit key is never
// armed.

#include "labs/counter_contention/task.h"

// Slots in thread-local storage, with the functions that set a slot up
// renamed out of the way.
#define CountAllocation ReferenceCountAllocation
#define ThisThreadSlot ReferenceThisThreadSlot
#include "tests/counter_contention/bad_slot_in_thread_local_storage.cc"
#undef ThisThreadSlot
#undef CountAllocation

namespace counter_contention {
namespace {

struct RetireWhenDestroyed {
  ~RetireWhenDestroyed() { Retire(&t_slot); }
};

thread_local RetireWhenDestroyed t_retire;

// The mistake: the exit armed as a thread_local's destructor, which is
// armed too late for a thread that first counts as it exits.
void SetUpSlot() {
  ThreadSlot& t = t_slot;
  if (t.state != State::kNew) return;
  Link(t);
  static_cast<void>(t_retire);  // its first touch arms its destructor
}

}  // namespace

void CountAllocation() {
  SetUpSlot();
  ReferenceCountAllocation();
}

const void* ThisThreadSlot() {
  SetUpSlot();
  return ReferenceThisThreadSlot();
}

}  // namespace counter_contention
