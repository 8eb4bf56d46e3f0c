// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "tell the kernel we will need it" with MADV_WILLNEED. For a
// file or swapped-out memory it starts reading ahead; for fresh anonymous
// memory there is nothing to read, and it makes no page present. The suite
// must reject it.

#include <sys/mman.h>

#include "labs/first_call/task.h"

// The reference, with its PrepareBuffer() renamed out of the way.
#define PrepareBuffer ReferencePrepareBuffer
#include "solutions/first_call/task.cc"
#undef PrepareBuffer

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  madvise(memory->data(), MappedBytes(bytes), MADV_WILLNEED);
  return PreparedBuffer{*memory, PrefaultMethod::kMadvisePopulateWrite};
}

}  // namespace first_call
