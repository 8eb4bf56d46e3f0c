// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "the kernel maps whole pages anyway, so give the caller all of
// them". The buffer is then larger than asked for wherever the size is not
// a multiple of the page size, and task.h promises exactly the bytes asked
// for. The rest is a correct solution (the reference's write to every
// page). The suite must reject it.

#include "labs/first_call/task.h"

// The reference, with its PrepareBuffer() renamed out of the way.
#define PrepareBuffer ReferencePrepareBuffer
#include "solutions/first_call/task.cc"
#undef PrepareBuffer

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  const absl::Span<uint8_t> pages(memory->data(), MappedBytes(bytes));
  WriteEveryPage(pages);
  return PreparedBuffer{pages, PrefaultMethod::kTouch};
}

}  // namespace first_call
