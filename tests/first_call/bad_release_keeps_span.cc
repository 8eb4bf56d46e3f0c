// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "ReleaseBuffer() unmaps the memory; that is the release". The
// pages go back, but the buffer still names them and its method, where
// task.h promises an empty buffer after the release (and a second release
// of it that does nothing). The rest is a correct solution (a write to
// every page). The suite must reject it.

#include "labs/first_call/task.h"

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  volatile uint8_t* const data = memory->data();
  for (size_t offset = 0; offset < memory->size(); offset += PageBytes()) {
    data[offset] = 0;
  }
  return PreparedBuffer{*memory, PrefaultMethod::kTouch};
}

void ReleaseBuffer(PreparedBuffer& buffer) { UnmapBuffer(buffer.memory); }

}  // namespace first_call
