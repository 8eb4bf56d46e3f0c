// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/first_call/processes.h"

#include <sys/mman.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/memory.h"
#include "labs/first_call/task.h"

namespace first_call {
namespace {

// Keeps Work()'s result observable.
volatile uint64_t g_sink;

// A program that maps its buffer and calls Work() with nothing prepared.
void ColdFirstCall(alloclab::FreshCall& call) {
  absl::StatusOr<absl::Span<uint8_t>> buffer = MapBuffer(kBufferBytes);
  if (!buffer.ok()) return call.Fail(buffer.status().ToString());
  call.Measure("first_call", [&] { g_sink = Work(1, *buffer); });
  UnmapBuffer(*buffer);
}
ALLOCLAB_FRESH_CALL("first_call_cold", ColdFirstCall);

// A program that prepares its buffer at start-up with the task, then calls.
void PrefaultedFirstCall(alloclab::FreshCall& call) {
  absl::StatusOr<PreparedBuffer> buffer = absl::UnknownError("did not run");
  call.Measure("prefault", [&] { buffer = PrepareBuffer(kBufferBytes); });
  if (!buffer.ok() || buffer->memory.size() != kBufferBytes) {
    return call.Fail(
        absl::StrCat("PrepareBuffer(", kBufferBytes, "): ",
                     buffer.ok() ? absl::StrCat(buffer->memory.size(), " bytes")
                                 : buffer.status().ToString()));
  }
  call.Record("method", static_cast<double>(buffer->method));
  call.Measure("first_call", [&] { g_sink = Work(1, buffer->memory); });
  ReleaseBuffer(*buffer);
}
ALLOCLAB_FRESH_CALL("first_call_prefaulted", PrefaultedFirstCall);

// A program whose buffer lies in memory advised MADV_HUGEPAGE, trimmed to
// exactly one aligned huge page (the argument, in bytes) so that the kernel
// can back it with one.
void HugePageFirstCall(alloclab::FreshCall& call) {
  size_t huge = 0;
  if (!absl::SimpleAtoi(call.arg(), &huge) || huge < kBufferBytes ||
      (huge & (huge - 1)) != 0) {
    return call.Fail(absl::StrCat("bad huge page size '", call.arg(), "'"));
  }
  void* const mapped = mmap(nullptr, 2 * huge, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return call.Fail("mmap of two huge pages failed");
  uint8_t* const base = static_cast<uint8_t*>(mapped);
  uint8_t* const aligned = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(base) + huge - 1) & ~(huge - 1));
  if (aligned > base) munmap(base, static_cast<size_t>(aligned - base));
  munmap(aligned + huge, static_cast<size_t>(base + huge - aligned));
  if (madvise(aligned, huge, MADV_HUGEPAGE) != 0) {
    munmap(aligned, huge);
    return call.Fail("madvise(MADV_HUGEPAGE) refused");
  }
  call.Measure("first_call", [&] {
    g_sink = Work(1, absl::MakeSpan(aligned, kBufferBytes));
  });
  if (absl::StatusOr<int64_t> kib =
          alloclab::SmapsKibAt(aligned, "AnonHugePages");
      kib.ok()) {
    call.Record("anon_huge_kib", static_cast<double>(*kib));
  }
  munmap(aligned, huge);
}
ALLOCLAB_FRESH_CALL("first_call_hugepage", HugePageFirstCall);

}  // namespace
}  // namespace first_call
