// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "if madvise(MADV_POPULATE_WRITE) fails, fall back to
// MAP_POPULATE", whatever its error. Where the kernel does not know the
// advice (EINVAL) that is right, and it says which method worked (the
// fallback is the reference's, MapPopulated()); but ENOMEM means the
// kernel understood and found no memory, and task.h promises an error with
// the kernel's reason then, not a buffer from a fallback that cannot find
// the memory either. The suite must reject it.

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
  if (madvise(memory->data(), MappedBytes(bytes), MADV_POPULATE_WRITE) == 0) {
    return PreparedBuffer{*memory, PrefaultMethod::kMadvisePopulateWrite};
  }
  // The mistake: every error is taken for "this kernel lacks the advice".
  UnmapBuffer(*memory);
  return MapPopulated(bytes);
}

}  // namespace first_call
