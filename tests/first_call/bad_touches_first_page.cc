// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "touch the buffer once so the kernel sets it up". One write
// makes one page present, not the buffer: the other pages still fault on
// the first call. The suite must reject it.

#include "labs/first_call/task.h"

// The reference, with its PrepareBuffer() renamed out of the way.
#define PrepareBuffer ReferencePrepareBuffer
#include "solutions/first_call/task.cc"
#undef PrepareBuffer

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  *static_cast<volatile uint8_t*>(memory->data()) = 0;
  return PreparedBuffer{*memory, PrefaultMethod::kTouch};
}

}  // namespace first_call
