// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab first_call: the reference solution. It pays the page faults of the
// whole buffer at start-up, with the first of these the kernel accepts:
//
//   1. madvise(MADV_POPULATE_WRITE): one system call, and it says whether it
//      worked; Linux 5.14 and later;
//   2. mmap(MAP_POPULATE): also one system call, on any Linux since 2.6.23
//      (the first to populate private mappings), but silent about failure,
//      so the result is checked with mincore();
//   3. a write to every page: works everywhere, one fault per page, each a
//      trip into the kernel and back.
//
// The order is about knowing, not speed: on the course's machine
// MAP_POPULATE was a little faster than MADV_POPULATE_WRITE
// (docs/labs/first_call.md), but only madvise reports a populate that
// failed.
//
// Each way, the faults happen here instead of in the first Work().

#include "labs/first_call/task.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

// Linux 5.14's value; C libraries older than glibc 2.35 do not define it.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace first_call {
namespace {

size_t MappedBytes(size_t bytes) { return PagesIn(bytes) * PageBytes(); }

// Whether the kernel answered "I do not know this advice" (or a sandbox
// forbade it) rather than "I could not do it".
bool AdviceUnsupported(int error) {
  return error == EINVAL || error == ENOSYS || error == EPERM;
}

bool AllPagesPresent(absl::Span<uint8_t> memory) {
  std::vector<unsigned char> present(PagesIn(memory.size()));
  if (mincore(memory.data(), MappedBytes(memory.size()), present.data()) != 0) {
    return false;
  }
  for (unsigned char page : present) {
    if ((page & 1) == 0) return false;
  }
  return true;
}

// A write, not a read: reading a fresh page only maps the kernel's shared
// zero page, and the first real write would then fault all the same.
void WriteEveryPage(absl::Span<uint8_t> memory) {
  volatile uint8_t* const bytes = memory.data();
  for (size_t offset = 0; offset < memory.size(); offset += PageBytes()) {
    bytes[offset] = 0;
  }
}

absl::Status KernelRefused(absl::string_view what, size_t bytes, int error) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "PrepareBuffer: ", what, " of ", bytes, " bytes: ", strerror(error)));
}

// The fallback, where the kernel refused the advice: a new mapping that
// mmap(MAP_POPULATE) populates, checked with mincore() since that flag
// does not say whether it managed, and written page by page where it did
// not.
absl::StatusOr<PreparedBuffer> MapPopulated(size_t bytes) {
  void* const mapped = mmap(nullptr, MappedBytes(bytes), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (mapped == MAP_FAILED) {
    return KernelRefused("mmap(MAP_POPULATE)", bytes, errno);
  }
  PreparedBuffer buffer{absl::MakeSpan(static_cast<uint8_t*>(mapped), bytes),
                        PrefaultMethod::kMapPopulate};
  if (!AllPagesPresent(buffer.memory)) {
    WriteEveryPage(buffer.memory);
    buffer.method = PrefaultMethod::kTouch;
  }
  return buffer;
}

}  // namespace

absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes) {
  absl::StatusOr<absl::Span<uint8_t>> memory = MapBuffer(bytes);
  if (!memory.ok()) return memory.status();

  if (madvise(memory->data(), MappedBytes(bytes), MADV_POPULATE_WRITE) == 0) {
    return PreparedBuffer{*memory, PrefaultMethod::kMadvisePopulateWrite};
  }
  const int advice_error = errno;
  UnmapBuffer(*memory);
  if (!AdviceUnsupported(advice_error)) {
    // ENOMEM and friends: the kernel understood and could not find the
    // memory. Writing to the pages one by one would not find it either.
    return KernelRefused("madvise(MADV_POPULATE_WRITE)", bytes, advice_error);
  }
  return MapPopulated(bytes);
}

void ReleaseBuffer(PreparedBuffer& buffer) {
  UnmapBuffer(buffer.memory);
  buffer = PreparedBuffer{};
}

}  // namespace first_call
