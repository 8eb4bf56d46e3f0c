// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: fall back only where madvise(MADV_POPULATE_WRITE) answers
// EINVAL, "the answer of kernels before 5.14, as task.h says"; any other
// error is returned, with the kernel's reason. ENOMEM is rightly an error;
// but a sandbox that forbids the advice (EPERM) or a kernel without it
// behind a filter (ENOSYS) refuses it too, and task.h promises a fall back
// when the kernel refuses it. The suite must reject it.

#include <sys/mman.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "labs/first_call/task.h"

// The reference, with its PrepareBuffer() renamed out of the way.
#define PrepareBuffer ReferencePrepareBuffer
#include "solutions/first_call/task.cc"
#undef PrepareBuffer

namespace first_call {

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  const size_t mapped_bytes = PagesIn(bytes) * PageBytes();
  if (madvise(memory->data(), mapped_bytes, /*MADV_POPULATE_WRITE=*/23) == 0) {
    return PreparedBuffer{*memory, PrefaultMethod::kMadvisePopulateWrite};
  }
  const int error = errno;
  UnmapBuffer(*memory);
  // The mistake: EPERM and ENOSYS are refusals of the advice too.
  if (error != EINVAL) {
    return absl::ResourceExhaustedError(
        absl::StrCat("madvise(MADV_POPULATE_WRITE) of ", bytes,
                     " bytes: ", strerror(error)));
  }
  // Writing every page, so that the method is right even where
  // MAP_POPULATE would populate silently nothing.
  memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();
  volatile uint8_t* const data = memory->data();
  for (size_t offset = 0; offset < bytes; offset += PageBytes()) {
    data[offset] = 0;
  }
  return PreparedBuffer{*memory, PrefaultMethod::kTouch};
}

}  // namespace first_call
