// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: prepares the buffer right, reports it wrong. It tries
// MADV_POPULATE_WRITE and, when the kernel refuses it, falls back to writing
// every page, as it should; but it reports the method it meant to use, not
// the one that worked. Where the advice is refused, it says
// MADV_POPULATE_WRITE while its own writes made every page present. The
// suite checks the report against what was done and must reject it
// (PrepareBufferMethod.FallsBackWhereThePopulateIsRefused).

#include <sys/mman.h>

#include <cstddef>

#include "absl/status/statusor.h"
#include "labs/first_call/task.h"

// The reference, with its PrepareBuffer() renamed out of the way.
#define PrepareBuffer ReferencePrepareBuffer
#include "solutions/first_call/task.cc"
#undef PrepareBuffer

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  if (madvise(memory->data(), MappedBytes(bytes), MADV_POPULATE_WRITE) != 0) {
    WriteEveryPage(*memory);
  }
  return PreparedBuffer{*memory, PrefaultMethod::kMadvisePopulateWrite};
}

}  // namespace first_call
