// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "the program ends soon anyway: ReleaseBuffer() just forgets
// the buffer". The struct is emptied but the pages stay mapped and
// resident, where task.h promises the memory back. The rest is a correct
// solution (a write to every page). The suite must reject it.

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

void ReleaseBuffer(PreparedBuffer& buffer) { buffer = PreparedBuffer{}; }

}  // namespace first_call
