// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "nothing to prepare for 0 bytes, so hand back an empty
// buffer". A request for no memory is the caller's mistake, and task.h
// promises InvalidArgument for it; an empty success hides the mistake. The
// rest is a correct solution (a write to every page). The suite must reject
// it.

#include "labs/first_call/task.h"

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  if (bytes == 0) return PreparedBuffer{};
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  volatile uint8_t* const data = memory->data();
  for (size_t offset = 0; offset < memory->size(); offset += PageBytes()) {
    data[offset] = 0;
  }
  return PreparedBuffer{*memory, PrefaultMethod::kTouch};
}

void ReleaseBuffer(PreparedBuffer& buffer) {
  UnmapBuffer(buffer.memory);
  buffer = PreparedBuffer{};
}

}  // namespace first_call
