// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "MADV_POPULATE_WRITE does it all in one call". It does, on
// Linux 5.14 and later. This preparation never looks at madvise's answer,
// so where the kernel is older (or a sandbox refuses the advice) it gets
// EINVAL, prepares nothing, and still reports MADV_POPULATE_WRITE: the first
// call pays every fault. The suite must reject it where the advice is
// refused (PrepareBufferMethod.FallsBackWhereThePopulateIsRefused).

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
  (void)madvise(memory->data(), MappedBytes(bytes), MADV_POPULATE_WRITE);
  return PreparedBuffer{*memory, PrefaultMethod::kMadvisePopulateWrite};
}

}  // namespace first_call
