// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab first_call: the starter. It hands out memory that is only mapped, as
// malloc would for a block this size, and prepares nothing: the first Work()
// on it still takes one page fault per page. Run
// `bazel run //labs/first_call -- --quick` to see it in the table
// (prefaulted_first_call faults as much as cold_first_call), then make that
// row's page faults 0.

#include "labs/first_call/task.h"

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  // TODO(you): make every page present now, and say how (PrefaultMethod).
  return PreparedBuffer{*memory, PrefaultMethod::kNone};
}

void ReleaseBuffer(PreparedBuffer& buffer) {
  UnmapBuffer(buffer.memory);
  buffer = PreparedBuffer{};
}

}  // namespace first_call
