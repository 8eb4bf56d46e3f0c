// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: fall back only where madvise(MADV_POPULATE_WRITE) answers
// EINVAL, "the answer of kernels before 5.14, as task.h says"; any other
// error is returned, with the kernel's reason. ENOMEM is rightly an error;
// but a sandbox that forbids the advice (EPERM) or a kernel without it
// behind a filter (ENOSYS) refuses it too, and task.h promises a fall back
// when the kernel refuses it. The fallback is the reference's
// (MapPopulated()). The suite must reject it.

#include <sys/mman.h>

#include <cerrno>
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
  const int advice_error = errno;
  UnmapBuffer(*memory);
  // The mistake: EPERM and ENOSYS are refusals of the advice too.
  if (advice_error != EINVAL) {
    return KernelRefused("madvise(MADV_POPULATE_WRITE)", bytes, advice_error);
  }
  return MapPopulated(bytes);
}

}  // namespace first_call
