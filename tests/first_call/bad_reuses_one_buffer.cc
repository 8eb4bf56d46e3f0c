// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "prepare the buffer once and hand the same memory to every
// caller; it is already warm". Two live buffers then share memory, and one
// caller's writes overwrite the other's, where task.h promises each call a
// buffer of its own. The suite must reject it.

#include "labs/first_call/task.h"

// The reference, with its PrepareBuffer() and ReleaseBuffer() renamed out of
// the way.
#define PrepareBuffer ReferencePrepareBuffer
#define ReleaseBuffer ReferenceReleaseBuffer
#include "solutions/first_call/task.cc"
#undef PrepareBuffer
#undef ReleaseBuffer

namespace first_call {

namespace {

// The one prepared mapping, kept for the life of the program.
absl::Span<uint8_t>& Kept() {
  static absl::Span<uint8_t> kept;
  return kept;
}

}  // namespace

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  if (Kept().size() >= bytes && bytes > 0) {
    return PreparedBuffer{Kept().subspan(0, bytes), PrefaultMethod::kTouch};
  }
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  WriteEveryPage(*memory);
  UnmapBuffer(Kept());
  Kept() = *memory;
  return PreparedBuffer{*memory, PrefaultMethod::kTouch};
}

// The kept mapping stays for the next caller; the buffer is emptied.
void ReleaseBuffer(PreparedBuffer& buffer) { buffer = PreparedBuffer{}; }

}  // namespace first_call
