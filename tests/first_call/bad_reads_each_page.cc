// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad where the kernel has a zero page: touches every page, but by
// reading it. A read of a fresh anonymous page is a fault too, yet such a
// kernel answers it with its one shared page of zeros, read-only; the first
// write then faults again to get a page of its own. The preparation pays a
// fault per page and the first call still pays another. The suite must
// reject it there; on a kernel without the zero page the read allocates the
// page and this preparation works (tests/first_call/BUILD:
// known_bad_only_if).

#include "labs/first_call/task.h"

// The reference, with its PrepareBuffer() renamed out of the way.
#define PrepareBuffer ReferencePrepareBuffer
#include "solutions/first_call/task.cc"
#undef PrepareBuffer

namespace first_call {

namespace {
volatile uint8_t g_sink;  // keeps the reads
}  // namespace

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  const volatile uint8_t* const p = memory->data();
  uint8_t sum = 0;
  for (size_t offset = 0; offset < bytes; offset += PageBytes()) {
    sum = static_cast<uint8_t>(sum + p[offset]);
  }
  g_sink = sum;
  return PreparedBuffer{*memory, PrefaultMethod::kTouch};
}

}  // namespace first_call
