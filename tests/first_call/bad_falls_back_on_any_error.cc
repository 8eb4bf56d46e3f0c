// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "if madvise(MADV_POPULATE_WRITE) fails, fall back to
// MAP_POPULATE", whatever its error. Where the kernel does not know the
// advice (EINVAL) that is right, and it says which method worked; but
// ENOMEM means the kernel understood and found no memory, and task.h
// promises an error with the kernel's reason then, not a buffer whose
// silent MAP_POPULATE may have populated nothing. The suite must reject it.

#include <sys/mman.h>

#include <cstddef>

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
  // The mistake: every error is taken for "this kernel lacks the advice".
  UnmapBuffer(*memory);
  void* const mapped = mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (mapped == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("mmap(MAP_POPULATE) of ", bytes, " bytes failed"));
  }
  return PreparedBuffer{absl::MakeSpan(static_cast<uint8_t*>(mapped), bytes),
                        PrefaultMethod::kMapPopulate};
}

}  // namespace first_call
