// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference's per-thread slots, registry and retired total,
// but "once a thread's slot is retired the thread is gone": a count that
// arrives after the slot's exit hook (the reference's key destructor) has
// run is dropped. Exact for every thread whose allocations end when its
// function returns; but an exiting thread still runs code that allocates
// after that hook (another pthread key's destructor, later in the round or
// in the next), and promise 3 keeps those counts too (task.h: "at any point
// of its life, also while it exits"). The suite must reject it.

#include "labs/counter_contention/task.h"

// The reference, with its CountAllocation() renamed out of the way.
#define CountAllocation ReferenceCountAllocation
#include "solutions/counter_contention/task.cc"
#undef CountAllocation

namespace counter_contention {

void CountAllocation() {
  // The mistake: the slot is gone, so the count has nowhere to go.
  if (t_hold.state == State::kRetired) return;
  ReferenceCountAllocation();
}

}  // namespace counter_contention
