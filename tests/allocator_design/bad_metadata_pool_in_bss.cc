// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: its metadata comes first from a pool in .bss, 4 MiB "so that
// a small program maps none": the first sixteen pieces its span
// descriptors and page-map leaves are carved from are static, and only
// later ones come from the page source. But metadata grows with use, and
// task.h lets only fixed state of a known size be static, at most
// kMaxStaticBytes: the pool, beside the reference's 1 MiB page-map root,
// is more. Its counters leave the pool out, so that bytes_held still says
// what the page source counted, and no call ever sees the difference: only
// the objects do, whose .bss is over the bound. The reference does the
// rest. The suite must reject it.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

constexpr size_t kPieceBytes = size_t{256} << 10;  // the reference's piece
constexpr size_t kPoolPieces = 16;
alignas(4096) constinit char pool[kPoolPieces][kPieceBytes] = {};
constinit std::atomic<size_t> pool_next{0};
// Pool bytes the reference counts held, and those it counts returned (a
// piece another thread beat it to, which it "unmaps").
constinit std::atomic<uint64_t> pool_taken{0};
constinit std::atomic<uint64_t> pool_dropped{0};

bool InPool(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t begin = reinterpret_cast<uintptr_t>(pool);
  return a >= begin && a < begin + sizeof(pool);
}

// The reference maps nothing but its metadata pieces with MapPages().
void* MapPiece(size_t bytes) {
  if (bytes == kPieceBytes) {
    const size_t i = pool_next.fetch_add(1);
    if (i < kPoolPieces) {  // the mistake: growing metadata, static
      pool_taken.fetch_add(bytes);
      return pool[i];
    }
  }
  return MapPages(bytes);
}

void UnmapMaybePooled(void* p, size_t bytes) {
  if (InPool(p)) {
    pool_dropped.fetch_add(bytes);  // a static piece is lost, never unmapped
    return;
  }
  UnmapPages(p, bytes);
}

}  // namespace
}  // namespace allocator_design

// The reference, its metadata maps and every unmap through the above, its
// ReadCounters() renamed out of the way.
#define MapPages(bytes) MapPiece(bytes)
#define UnmapPages(p, bytes) UnmapMaybePooled(p, bytes)
#define ReadCounters ReferenceReadCounters
#include "solutions/allocator_design/task.cc"
#undef ReadCounters
#undef UnmapPages
#undef MapPages

namespace allocator_design {

static_assert(kPieceBytes == kMetaChunk,
              "the pool's pieces are the reference's");

Counters ReadCounters() {
  Counters c = ReferenceReadCounters();
  // A dropped piece was never counted held, and is counted returned. A
  // piece taken and not yet counted held (the reference counts it once it
  // has the heap lock again) may make this read low by a piece.
  const uint64_t dropped = pool_dropped.load();
  const uint64_t pooled = pool_taken.load() - dropped;
  c.bytes_held = c.bytes_held > pooled ? c.bytes_held - pooled : 0;
  c.bytes_returned -= dropped;
  return c;
}

}  // namespace allocator_design
