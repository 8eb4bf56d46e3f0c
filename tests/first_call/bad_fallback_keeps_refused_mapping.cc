// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: falls back as task.h asks where the kernel refuses the advice
// (EINVAL, EPERM, ENOSYS), and fails with the kernel's reason otherwise,
// but forgets the first mapping on the way: the buffer madvise refused to
// populate stays mapped for the life of the process, a leak of the whole
// buffer per call that no byte of the returned buffer shows. The fallback
// is the reference's (MapPopulated()). The suite must reject it.

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
  if (!AdviceUnsupported(advice_error)) {
    UnmapBuffer(*memory);
    return KernelRefused("madvise(MADV_POPULATE_WRITE)", bytes, advice_error);
  }
  // The mistake: the refused mapping is not unmapped before the new one.
  return MapPopulated(bytes);
}

}  // namespace first_call
