// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: falls back as task.h asks where the kernel refuses the advice
// (EINVAL, EPERM, ENOSYS), and fails with the kernel's reason otherwise,
// but forgets the first mapping on the way: the buffer madvise refused to
// populate stays mapped for the life of the process, a leak of the whole
// buffer per call that no byte of the returned buffer shows. The suite
// must reject it.

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

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
  if (error != EINVAL && error != EPERM && error != ENOSYS) {
    UnmapBuffer(*memory);
    return absl::ResourceExhaustedError(
        absl::StrCat("madvise(MADV_POPULATE_WRITE): ", strerror(error)));
  }
  // The mistake: the refused mapping is not unmapped before the new one.
  void* const mapped = mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (mapped == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("mmap(MAP_POPULATE): ", strerror(errno)));
  }
  return PreparedBuffer{absl::MakeSpan(static_cast<uint8_t*>(mapped), bytes),
                        PrefaultMethod::kMapPopulate};
}

}  // namespace first_call
