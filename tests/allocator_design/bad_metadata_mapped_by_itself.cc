// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: maps its metadata by itself. The pieces its span descriptors
// are carved from come from mmap(2) directly, not from the page source,
// and its counters leave them out, so that bytes_held still says what the
// page source counted, to the byte. Nothing the allocator reports shows
// it: only the system calls do, more mmaps than the page source made.
// The reference does the rest. The suite must reject it.

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

// The pieces mapped here, so that an unmap of one (the reference unmaps a
// piece another thread beat it to) goes to the kernel directly too.
constexpr int kPieces = 1024;
constinit std::atomic<uintptr_t> pieces[kPieces] = {};
constinit std::atomic<uint64_t> bytes_by_itself{0};

void* MapPagesByItself(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  for (std::atomic<uintptr_t>& slot : pieces) {
    uintptr_t empty = 0;
    if (slot.compare_exchange_strong(empty, reinterpret_cast<uintptr_t>(p))) {
      break;
    }
  }
  bytes_by_itself.fetch_add(bytes);
  return p;
}

void UnmapPagesMaybeByItself(void* p, size_t bytes) {
  for (std::atomic<uintptr_t>& slot : pieces) {
    uintptr_t mine = reinterpret_cast<uintptr_t>(p);
    if (slot.compare_exchange_strong(mine, 0)) {
      munmap(p, bytes);
      bytes_by_itself.fetch_sub(bytes);
      return;
    }
  }
  UnmapPages(p, bytes);
}

}  // namespace
}  // namespace allocator_design

// The reference, its MapPages() (only its metadata uses it) and every unmap
// through the above, its ReadCounters() renamed out of the way.
#define MapPages(bytes) MapPagesByItself(bytes)
#define UnmapPages(p, bytes) UnmapPagesMaybeByItself(p, bytes)
#define ReadCounters ReferenceReadCounters
#include "solutions/allocator_design/task.cc"
#undef ReadCounters
#undef UnmapPages
#undef MapPages

namespace allocator_design {

Counters ReadCounters() {
  Counters c = ReferenceReadCounters();
  c.bytes_held -= bytes_by_itself.load();
  return c;
}

}  // namespace allocator_design
