// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "ReleaseBuffer() unmaps the memory; that is the release". The
// pages go back, but the buffer still names them and its method, where
// task.h promises an empty buffer after the release (and a second release
// of it that does nothing). The rest is the reference's. The suite must
// reject it.

#include "labs/first_call/task.h"

// The reference, with its ReleaseBuffer() renamed out of the way.
#define ReleaseBuffer ReferenceReleaseBuffer
#include "solutions/first_call/task.cc"
#undef ReleaseBuffer

namespace first_call {

void ReleaseBuffer(PreparedBuffer& buffer) { UnmapBuffer(buffer.memory); }

}  // namespace first_call
