// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: counts the bytes it holds from a value read before it maps.
// Each map sets bytes_held to what it read just before asking the page
// source, plus what it mapped: as a count kept without the lock around
// the whole update would, it loses whatever other threads mapped or
// unmapped while this one waited for the kernel. One thread alone counts
// exactly; two that map at once do not. The reference does the rest. The
// suite must reject it (ValidatorCounters.
// EveryCallThatReturnedIsCountedWhileOthersMap parks a thread at its map
// while another maps).

#include <cstddef>
#include <cstdint>

#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

// MapAlignedPages(), with `held` put back after the map to the value it
// had before: the reference then adds the map's bytes to it, under its
// lock, as it always does.
void* MapAlignedPagesHeldFromBefore(uint64_t& held, size_t bytes,
                                    size_t alignment) {
  const uint64_t seen = held;
  void* p = MapAlignedPages(bytes, alignment);
  held = seen;
  return p;
}

}  // namespace
}  // namespace allocator_design

// The reference, its maps of spans and large blocks through the above.
#define MapAlignedPages(bytes, alignment) \
  MapAlignedPagesHeldFromBefore(heap.held, bytes, alignment)
#include "solutions/allocator_design/task.cc"
#undef MapAlignedPages
