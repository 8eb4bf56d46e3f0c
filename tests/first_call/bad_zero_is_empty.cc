// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "nothing to prepare for 0 bytes, so hand back an empty
// buffer". A request for no memory is the caller's mistake, and task.h
// promises InvalidArgument for it; an empty success hides the mistake. The
// rest is the reference's. The suite must reject it.

#include "labs/first_call/task.h"

// The reference, with its PrepareBuffer() renamed out of the way.
#define PrepareBuffer ReferencePrepareBuffer
#include "solutions/first_call/task.cc"
#undef PrepareBuffer

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  if (bytes == 0) return PreparedBuffer{};  // the mistake
  return ReferencePrepareBuffer(bytes);
}

}  // namespace first_call
