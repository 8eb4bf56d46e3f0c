// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "the program ends soon anyway: ReleaseBuffer() just forgets
// the buffer". The struct is emptied but the pages stay mapped and
// resident, where task.h promises the memory back. The rest is the
// reference's. The suite must reject it.

#include "labs/first_call/task.h"

// The reference, with its ReleaseBuffer() renamed out of the way.
#define ReleaseBuffer ReferenceReleaseBuffer
#include "solutions/first_call/task.cc"
#undef ReleaseBuffer

namespace first_call {

void ReleaseBuffer(PreparedBuffer& buffer) { buffer = PreparedBuffer{}; }

}  // namespace first_call
