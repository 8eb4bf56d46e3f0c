// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: task.h
// -----------------------------------------------------------------------------
//
// Lab first_call, your task: prepare the program's working buffer at
// start-up, so that the first real call (`Work()` in baseline.h) makes no
// page fault, and release it at the end.
//
// Memory that was only mapped has no page behind it: the kernel provides
// each page on its first write, one page fault at a time, inside whatever
// call writes first. `PrepareBuffer()` must pay those faults itself, before
// the first call, with one of the methods of `PrefaultMethod`, and say which
// one it used. The starter (task.cc) maps the memory and prepares nothing,
// so its first call still pays every fault (docs/labs/first_call.md).
// `bazel test //tests/first_call:starter_test` checks your task.cc.
//
// Example:
//
//   // At start-up, before the first request:
//   absl::StatusOr<first_call::PreparedBuffer> buffer =
//       first_call::PrepareBuffer(first_call::kBufferBytes);
//   if (!buffer.ok()) return buffer.status();
//   std::cout << "buffer prepared with "
//             << first_call::PrefaultMethodName(buffer->method) << "\n";
//   // Later: the first call costs what every other call costs.
//   uint64_t sum = first_call::Work(seed, buffer->memory);
//   first_call::ReleaseBuffer(*buffer);

#ifndef ALLOCLAB_LABS_FIRST_CALL_TASK_H_
#define ALLOCLAB_LABS_FIRST_CALL_TASK_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "labs/first_call/baseline.h"

namespace first_call {

// PrefaultMethod
//
// How the pages of a buffer were made present before its first use:
//
//   kNone                  not at all: the first write faults on every page
//   kTouch                 by writing to one byte of every page (any kernel)
//   kMapPopulate           by mmap(..., MAP_POPULATE) (Linux 2.5.46+, and
//                          for private mappings like this buffer 2.6.23+;
//                          the kernel does not say whether it managed)
//   kMadvisePopulateWrite  by madvise(MADV_POPULATE_WRITE) (Linux 5.14+;
//                          older kernels answer EINVAL)
enum class PrefaultMethod {
  kNone = 0,
  kTouch = 1,
  kMapPopulate = 2,
  kMadvisePopulateWrite = 3,
};

// PrefaultMethodName()
//
// The name the experiment prints: "none", "touch", "MAP_POPULATE" or
// "MADV_POPULATE_WRITE".
constexpr absl::string_view PrefaultMethodName(PrefaultMethod method) {
  switch (method) {
    case PrefaultMethod::kNone:
      return "none";
    case PrefaultMethod::kTouch:
      return "touch";
    case PrefaultMethod::kMapPopulate:
      return "MAP_POPULATE";
    case PrefaultMethod::kMadvisePopulateWrite:
      return "MADV_POPULATE_WRITE";
  }
  return "unknown";
}

// PreparedBuffer
//
// A working buffer of its own (no other PreparedBuffer shares its memory),
// and how it was prepared. Release it with `ReleaseBuffer()` only.
struct PreparedBuffer {
  absl::Span<uint8_t> memory;  // exactly the bytes asked for
  PrefaultMethod method = PrefaultMethod::kNone;
};

// PrepareBuffer()
//
// Returns a new buffer of `bytes` bytes, readable and writable, whose every
// page is already present for writing: a `Work()` on all of it makes no
// page fault. Its content is unspecified (Work() overwrites it). Prefer a
// method that is one system call and says whether it worked, fall back
// when this kernel refuses it, and set `method` to the one that worked:
// the suite checks it against what PrepareBuffer() did (the system calls it
// made, and whether its own writes or the kernel made the pages present),
// also where the kernel refuses MADV_POPULATE_WRITE.
// InvalidArgument for 0 bytes; another error, with the kernel's reason
// (the errno by its name, ENOMEM, or by strerror()'s text), when no memory
// could be had: any size up to SIZE_MAX, so a size no mapping can hold is
// an error, never a crash or a shorter buffer.
absl::StatusOr<PreparedBuffer> PrepareBuffer(size_t bytes);

// ReleaseBuffer()
//
// Gives the memory of `buffer` back and leaves it empty (`memory` empty,
// `method` kNone). Releasing an empty buffer does nothing.
void ReleaseBuffer(PreparedBuffer& buffer);

}  // namespace first_call

#endif  // ALLOCLAB_LABS_FIRST_CALL_TASK_H_
