// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: segregated_fit.cc (a second design)
// -----------------------------------------------------------------------------
//
// Lab allocator_design: a correct allocator of task.h that is not the
// reference's design. Where the reference cuts memory into spans of one size
// class each and finds a block's span through a page map, this one keeps a
// heap of variable-sized chunks with boundary tags, the classic scheme of
// general-purpose heaps: every block carries its own size just before it, a
// free chunk carries it at its end too, and a freed chunk is merged with its
// free neighbours at once. Requests are served at their own size, rounded to 16
// bytes, not to one of four classes per doubling.
//
//   chunks          a chunk is an 8-byte header (its size, whether it is in
//                   use, whether the chunk before it is) and the block after
//                   it: a request of n bytes takes max(32, n + 8 rounded up
//                   to 16) bytes. A free chunk repeats its size in its last
//                   word (the footer), so that the chunk after it can find
//                   its start; an in-use chunk needs no footer, and the bit
//                   in its neighbour's header says so.
//   regions         chunks are carved from regions of 1 MiB mapped from the
//                   page source, aligned to their size: a header (the idle
//                   list's links) at the start, a fence (a header that says
//                   "in use") at the end, so that merging stops there.
//   bins            free chunks sit in 104 size-segregated lists: one per
//                   16 bytes below 1 KiB, then four per doubling to 1 MiB,
//                   with a bitmap of the non-empty ones. An allocation takes
//                   the best of the first few chunks of its own list that
//                   fit, else the first chunk of the next non-empty list, and
//                   splits off what it does not need.
//   coalescing      a chunk given back to the heap is merged with the free
//                   chunk before it and the one after it (boundary tags: two
//                   loads, no search), so that no two free chunks are ever
//                   neighbours and a region whose blocks are all free is one
//                   chunk again.
//   thread caches   in front of the heap, per thread, the same bins as LIFO
//                   lists of in-use chunks (the heap sees them as in use:
//                   no merging, no lock). A bin holds chunks of at least its
//                   lower bound; an allocation takes the first one if it is
//                   large enough, or the first of the next bin. Refilled and
//                   drained a batch at a time, under the heap's lock: a batch
//                   starts at two chunks and doubles to 32 for chunks up to
//                   8 KiB (promise 1: a visit per 16 calls); above, to just
//                   what promise 1 asks, ceil(128 KiB / the bin's smallest
//                   request) chunks (a visit per kBytesPerCentralVisit of the
//                   sizes asked for: 9 chunks of 16 KiB, 1 of 256 KiB). A bin
//                   holds at most two batches, and a drain keeps one (at
//                   most one visit per batch of its calls).
//   large budget    the bins of chunks over 8 KiB keep at most
//                   kLargeCacheBytes (2 MiB) together past a free: the free
//                   that would pass it gives them all back in one visit
//                   (promise 4: before other threads' chunks went to the
//                   remote list, a consumer sent messages of 17 sizes from
//                   16 KiB to 256 KiB kept one to two batches of each, up
//                   to 6 MiB). One such bin holds at most 640 KiB:
//                   a thread churning any three sizes over 8 KiB never
//                   reaches it, and keeps promise 1 as the bins alone do.
//                   One churning more sizes at once than the budget holds
//                   makes a visit per 2 MiB freed, and then a refill in
//                   each bin it emptied: with many bins in use, more often
//                   than promise 1 allows (the price of the bound).
//   remote frees    a chunk of a region the freeing thread does not own
//                   (another thread's, or nobody's) is never cached for its
//                   reuse: it waits on the thread's remote list until it
//                   could keep kRemoteBytes (1 MiB) of pages in use, all
//                   threads' lists kAllRemoteBytes (2 MiB), or the thread's
//                   next flush (promise 2: threads that free and then call
//                   no more, however many, may keep nothing of other
//                   threads' blocks back).
//   own regions     a region's free chunks go to one thread only, its
//                   owner, from the first chunk it takes there until the
//                   region is one free chunk again or its owner exits: a
//                   cache line never holds chunks live in two threads
//                   (task.h's promise 6). The price: a search of the bins
//                   passes over other threads' chunks.
//   large blocks    above 256 KiB, or aligned to more than 256 KiB, a
//                   mapping of their own with the same header (its offset
//                   and its length, marked "mapped"), given back whole on
//                   free. No cache of them: promise 1 ends at 256 KiB.
//   exit trim       a thread's exit gives its cache back, its regions become
//                   nobody's, and what no running thread owns goes back at
//                   once, not at the decay (promise 3: threads live at once
//                   each left a region idle, 400 MiB for 400 threads with
//                   the clock standing still): idle regions past the newest
//                   one are released (their range kept: a thread that runs
//                   on takes one again with no system call, promise 1),
//                   released ones past the newest 32 are unmapped, and the
//                   free chunks of 256 KiB or more in regions nobody owns
//                   (an exited thread's blocks still live there) are
//                   released. So once threads have come and gone, what is
//                   held and idle is at most 1 MiB (the newest idle region)
//                   plus 256 KiB (the first and last pages of 32 released
//                   regions), plus, in each region that still holds a live
//                   block, its free chunks under 256 KiB and 8 KiB of each
//                   released one, plus the caches of the threads still
//                   running (each at most 64 chunks a bin to 8 KiB, 5.4 MiB
//                   if it used every one of those 75 bins, and
//                   kLargeCacheBytes above, with what refills brought since
//                   the last free: under 160 KiB a bin).
//   decay           a free chunk of a page or more is stamped with when it
//                   was freed; a region that is one free chunk again is
//                   idle. Each thread reads the clock every kDecayCheckOps
//                   calls, gives its own cache back every kDecayNs / 2 (its
//                   chunks stamped with the flush before: all were freed
//                   since), and a pass then unmaps the regions idle for
//                   kDecayNs and releases the inner pages of the other free
//                   chunks idle as long (and passes again while one is due:
//                   what it files again may have merged with a neighbour
//                   another thread freed meanwhile). Regions alone would
//                   not do: a few small blocks still live, scattered over
//                   many regions by exact fit, would keep every one of them.
//
// One lock (lock.h's), the heap's: it guards the bins, the idle regions and
// the counters. No lock is held while the page source maps, unmaps or
// releases (but in a forked child's ForkChild(), its only thread, which
// finishes what the parent's other threads were giving back: InFlight).
// The accounting rule, exact: bytes_held is what was mapped, less
// what was unmapped or released, plus the released pages of free chunks
// taken into use again (a released chunk is held again whole when it is
// taken or merged, less what of it stays released in a rest split off it).
// bytes_returned is what was unmapped plus what was released.
//
// Example:
//
//   void* p = allocator_design::Allocate(100, 16, /*zero=*/false);
//   // a chunk of 112 bytes: from this thread's cache, or a batch carved
//   // from a free chunk of the heap
//   allocator_design::Free(p);  // back to this thread's cache
//   void* q = allocator_design::Allocate(4 << 20, 16, /*zero=*/true);
//   // a mapping of its own: fresh, so zeroes already
//   allocator_design::Free(q);  // unmapped

#include <string.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/thread_exit.h"

namespace allocator_design {
namespace {

// -----------------------------------------------------------------------------
// The design's numbers.
// -----------------------------------------------------------------------------

// Requests up to this many bytes, at an alignment up to kHeapMaxAlignment,
// are chunks of the heap; larger or more aligned ones are mappings.
constexpr size_t kSmallMax = size_t{256} << 10;
constexpr size_t kHeapMaxAlignment = size_t{256} << 10;

constexpr size_t kRegionBytes = size_t{1} << 20;
constexpr uintptr_t kRegionMask = kRegionBytes - 1;

// A chunk: its header word, then the caller's bytes. Headers sit at 8
// modulo 16, so that the block after each is 16-aligned.
constexpr size_t kHeader = 8;
constexpr size_t kMinChunk = 32;  // header, two links, footer
constexpr uint64_t kInUse = 1;
constexpr uint64_t kPrevInUse = 2;
constexpr uint64_t kMapped = 4;
constexpr uint64_t kReleased = 8;  // a free chunk whose inner pages went back
constexpr uint64_t kFlags = 15;

// A region: its header, the first chunk at kFirstChunk, the fence's header
// at kFence; what lies between is one chunk when all of it is free.
constexpr uintptr_t kFirstChunk = 56;
constexpr uintptr_t kFence = kRegionBytes - 24;
constexpr size_t kWholeRegion = kFence - kFirstChunk;
static_assert(kFirstChunk % 16 == 8 && kFence % 16 == 8, "headers at 8 mod 16");

// ChunkSize()
//
// The chunk a request of `size` bytes (<= kSmallMax) takes.
constexpr size_t ChunkSize(size_t size) {
  const size_t n = (size + kHeader + 15) & ~size_t{15};
  return n < kMinChunk ? kMinChunk : n;
}

// Bins: 64 of 16 bytes each below 1 KiB (those of sizes below kMinChunk
// stay empty), then four per doubling from 1 KiB to 1 MiB.
constexpr int kExactBins = 64;
constexpr int kNumBins = kExactBins + 4 * 10;

constexpr int BinOf(size_t chunk) {
  if (chunk < 1024) return static_cast<int>(chunk >> 4);
  const int lg = 63 - __builtin_clzll(chunk);
  return kExactBins + (lg - 10) * 4 + static_cast<int>((chunk >> (lg - 2)) & 3);
}

// The smallest chunk bin `b` holds.
constexpr size_t BinFloor(int b) {
  if (b < kExactBins) return static_cast<size_t>(b) << 4;
  const int lg = (b - kExactBins) / 4 + 10;
  return (size_t{4} + static_cast<size_t>((b - kExactBins) % 4)) << (lg - 2);
}

constexpr bool BinsAreRight() {
  for (int b = 2; b < kNumBins; ++b) {
    if (BinOf(BinFloor(b)) != b || BinOf(BinFloor(b) - 16) != b - 1) {
      return false;
    }
  }
  return BinOf(kWholeRegion) == kNumBins - 1 &&
         BinOf(ChunkSize(kSmallMax) + kMinChunk) < kNumBins;
}
static_assert(BinsAreRight(), "the bin table is inconsistent");

// A thread cache's batch: it starts at two chunks (or one, below) and
// doubles with use up to MaxBatchOf(b); a bin holds at most two batches and
// a drain keeps one, so that a bin's visits to the heap are at least a
// batch of its calls apart (a refill hands out one chunk and caches
// batch - 1; a drain leaves batch + 1). For chunks up to
// kBytesPerCentralVisit / kOpsPerCentralVisit (8 KiB) the most is
// 2 * kOpsPerCentralVisit (promise 1: a visit per 16 calls). Above, promise
// 1 allows a visit per kBytesPerCentralVisit of the sizes asked for, and a
// call on a chunk of bin b asks for more than BinFloor(b) - 32 bytes (its
// header, and the rounding to 16): a batch of
// ceil(kBytesPerCentralVisit / (BinFloor(b) - 32)) chunks is enough, and no
// more is kept (promise 4: a consumer that only frees keeps one to two
// batches of every bin it was sent, for good). So a bin of chunks of
// 16 KiB moves 9 to a visit, one of 160 KiB and up 1.
constexpr uint32_t kFirstBatch = 2;
constexpr uint32_t kMaxBatch = 2 * kOpsPerCentralVisit;
constexpr uint32_t MaxBatchOf(int b) {
  const size_t floor = BinFloor(b) < kMinChunk ? kMinChunk : BinFloor(b);
  if (floor * kOpsPerCentralVisit <= kBytesPerCentralVisit) return kMaxBatch;
  const size_t asked = floor - 32;  // less than any call on it asks for
  const size_t by_bytes = (kBytesPerCentralVisit + asked - 1) / asked;
  return by_bytes >= kMaxBatch ? kMaxBatch : static_cast<uint32_t>(by_bytes);
}

// The bins of chunks over kBytesPerCentralVisit / kOpsPerCentralVisit
// (8 KiB): together, a thread's cache keeps at most kLargeCacheBytes of
// their chunks past a free (promise 4: a consumer sent messages of every
// size would keep a batch of each, 20 bins of them). A free that would pass
// it gives all of them back in one visit. The most one such bin holds is
// 640 KiB (two batches of two chunks under 160 KiB, in the bin of 128 KiB),
// so a thread that churns any three sizes over 8 KiB never reaches it
// (promise 1 as the bins alone keep it).
constexpr int kFirstBudgetBin =
    BinOf(kBytesPerCentralVisit / kOpsPerCentralVisit) + 1;
constexpr size_t kLargeCacheBytes = size_t{2} << 20;

// A thread's exit leaves at most this many idle regions held whole (a
// slack, as the reference's pool keeps 1 MiB of whole free spans), and at
// most kReleasedRegionsKept idle regions released (held: their first and
// last pages, 8 KiB each; their address range reused with no map); past
// those, the oldest released ones are unmapped.
constexpr uint32_t kExitSlackRegions = 1;
constexpr uint32_t kReleasedRegionsKept = 32;

// A thread's exit releases the free chunks of regions nobody owns (blocks
// of exited threads still live in them) that have this much to release:
// the rest of a region past a few live blocks. Smaller ones wait for the
// decay (under a quarter of a region each).
constexpr size_t kExitReleaseBytes = kRegionBytes / 4;

// How many chunks of its own list an allocation looks at for the best fit
// before it takes the next list's first.
constexpr int kBestFitLooks = 16;

// -----------------------------------------------------------------------------
// Chunks and their boundary tags.
// -----------------------------------------------------------------------------

// A header is written only under the heap's lock (or before its block is
// handed out), and read without it: Free() and UsableSize() read their
// own, while the heap may be flipping its kPrevInUse bit for a neighbour
// that was freed. Relaxed atomic loads and stores (plain moves on x86-64)
// make that a race in no one's book; the bits a reader uses do not change
// under it.
uint64_t HeaderOf(uintptr_t c) {
  return __atomic_load_n(reinterpret_cast<uint64_t*>(c), __ATOMIC_RELAXED);
}
void SetHeader(uintptr_t c, uint64_t header) {
  __atomic_store_n(reinterpret_cast<uint64_t*>(c), header, __ATOMIC_RELAXED);
}
void SetBits(uintptr_t c, uint64_t bits) { SetHeader(c, HeaderOf(c) | bits); }
void ClearBits(uintptr_t c, uint64_t bits) {
  SetHeader(c, HeaderOf(c) & ~bits);
}
size_t SizeOf(uintptr_t c) { return HeaderOf(c) & ~kFlags; }
uint64_t& FooterOf(uintptr_t c, size_t size) {
  return *reinterpret_cast<uint64_t*>(c + size - 8);
}
uintptr_t ChunkOf(const void* block) {
  return reinterpret_cast<uintptr_t>(block) - kHeader;
}
void* BlockOf(uintptr_t c) { return reinterpret_cast<void*>(c + kHeader); }

// A free chunk's links, in the words after its header.
uintptr_t& NextFree(uintptr_t c) {
  return *reinterpret_cast<uintptr_t*>(c + 8);
}
uintptr_t& PrevFree(uintptr_t c) {
  return *reinterpret_cast<uintptr_t*>(c + 16);
}

// A free chunk of at least kStampedChunk bytes keeps, after its links, when
// it was last freed: the decay releases its inner pages once that is
// kDecayNs ago. Smaller ones have no inner page to release.
constexpr size_t kStampedChunk = 48;
uint64_t& StampOf(uintptr_t c) { return *reinterpret_cast<uint64_t*>(c + 24); }

// ReleasableBytes()
//
// The whole pages inside a free chunk, past its header, links and stamp and
// before its footer: what the decay may give back while the chunk stays.
size_t ReleasableBytes(uintptr_t c, size_t size) {
  const uintptr_t page = PageSize();
  const uintptr_t lo = (c + 32 + page - 1) & ~(page - 1);
  const uintptr_t hi = (c + size - 8) & ~(page - 1);
  return hi > lo ? hi - lo : 0;
}

// A cached chunk's link, in the block's first word.
void*& NextCached(void* block) { return *static_cast<void**>(block); }

// MarkInUse()
//
// `c` becomes an in-use chunk of `size` bytes (the chunk before it is in
// use, or it would have been merged), and the chunk after it learns so.
void MarkInUse(uintptr_t c, size_t size) {
  SetHeader(c, size | kInUse | kPrevInUse);
  SetBits(c + size, kPrevInUse);
}

// MarkFree()
//
// `c` becomes a free chunk of `size` bytes: header, footer, and the chunk
// after it learns that this one is free.
void MarkFree(uintptr_t c, size_t size) {
  SetHeader(c, size | kPrevInUse);
  FooterOf(c, size) = size;
  ClearBits(c + size, kPrevInUse);
}

// -----------------------------------------------------------------------------
// The heap: bins of free chunks, the idle regions, the counters, under one
// lock.
// -----------------------------------------------------------------------------

struct Region {
  Region* prev;  // the idle list's links, while it is idle
  Region* next;
  uint64_t idle_since;
  const void* owner;  // the thread whose chunks it carves (its cache), or
                      // nullptr: none, while it is one free chunk, or after
                      // its owner exited
  Region* all_prev;   // every mapped region's list
  Region* all_next;
};
static_assert(sizeof(Region) <= kFirstChunk - kHeader, "fits before a chunk");

// OwnerOf(), SetOwner()
//
// A region's owner is written under the heap's lock, and read without it by
// Free() on any thread that holds one of its chunks (which keeps the region
// from being unmapped meanwhile): a relaxed atomic access both ways.
const void* OwnerOf(const Region* r) {
  return __atomic_load_n(&r->owner, __ATOMIC_RELAXED);
}

void SetOwner(Region* r, const void* owner) {
  __atomic_store_n(&r->owner, owner, __ATOMIC_RELAXED);
}

// InFlight
//
// What one thread gives back with no lock held, in a record on its stack
// (a forked child has a copy of every thread's stack, if not the threads)
// that the heap links (heap.in_flight) from the moment the memory leaves
// the heap's lists under the lock until it is filed again: a forked child,
// which has none of the parent's other threads, finds it there and
// finishes it (RecoverInFlight()). `pending` is a large mapping still to
// unmap, `gone` the regions still to unmap (linked through their `next`),
// `unmapping` the one mapping whose unmap has started (the child cannot
// tell whether it is done, and leaves it), `releasing` the chunks to
// release and file again (linked through NextFree()).
struct InFlight {
  uintptr_t pending = 0;
  size_t pending_bytes = 0;
  uintptr_t unmapping = 0;
  struct Region* gone = nullptr;
  uintptr_t releasing = 0;
  InFlight* prev = nullptr;
  InFlight* next = nullptr;
};

struct Heap {
  Lock lock;
  InFlight* in_flight = nullptr;  // every thread's giving back, see InFlight
  uintptr_t bins[kNumBins] = {};  // first free chunk of each list, or 0
  uint64_t nonempty[2] = {};      // bit b: bins[b] != 0
  Region* idle = nullptr;         // regions that are one free chunk
  Region* all = nullptr;          // every mapped region
  uint64_t held = 0;
  uint64_t returned = 0;
  uint64_t visits = 0;
};
constinit Heap heap;

// When the next decay pass is due; read by every thread's tick, written
// under the lock. Relaxed: a late view only delays a pass to a later tick.
constinit std::atomic<uint64_t> next_decay_ns{UINT64_MAX};

// The rest of this section runs with heap.lock held.

// Me()
//
// The calling thread, as regions name their owner: its cache's address.
const void* Me();

void Insert(uintptr_t c) {
  const int b = BinOf(SizeOf(c));
  const uintptr_t first = heap.bins[b];
  NextFree(c) = first;
  PrevFree(c) = 0;
  if (first != 0) PrevFree(first) = c;
  heap.bins[b] = c;
  heap.nonempty[b >> 6] |= uint64_t{1} << (b & 63);
}

// Unlink()
//
// Takes a free chunk out of its list. A released one is taken into use
// again (or merged): its released pages count as held once more.
void Unlink(uintptr_t c) {
  const int b = BinOf(SizeOf(c));
  if ((HeaderOf(c) & kReleased) != 0) {
    heap.held += ReleasableBytes(c, SizeOf(c));
  }
  const uintptr_t next = NextFree(c), prev = PrevFree(c);
  if (prev != 0) {
    NextFree(prev) = next;
  } else {
    heap.bins[b] = next;
    if (next == 0) heap.nonempty[b >> 6] &= ~(uint64_t{1} << (b & 63));
  }
  if (next != 0) PrevFree(next) = prev;
}

Region* RegionOf(uintptr_t c) {
  return reinterpret_cast<Region*>(c & ~kRegionMask);
}

bool IsWholeRegion(uintptr_t c, size_t size) {
  return (c & kRegionMask) == kFirstChunk && size == kWholeRegion;
}

void AddIdle(Region* r, uint64_t since) {
  r->idle_since = since;
  r->prev = nullptr;
  r->next = heap.idle;
  if (heap.idle != nullptr) heap.idle->prev = r;
  heap.idle = r;
}

// NoteIdle()
//
// Something freed at `since` may go back at since + kDecayNs: a decay pass
// is due by then.
void NoteIdle(uint64_t since) {
  const uint64_t due = since + kDecayNs;
  if (due < next_decay_ns.load(std::memory_order_relaxed)) {
    next_decay_ns.store(due, std::memory_order_relaxed);
  }
}

void RemoveIdle(Region* r) {
  (r->prev != nullptr ? r->prev->next : heap.idle) = r->next;
  if (r->next != nullptr) r->next->prev = r->prev;
}

// FreeChunk()
//
// Gives an in-use chunk back to the bins, merged with its free neighbours.
// A region that becomes one free chunk is idle from `*since` (0: now, read
// here only when needed, and kept for the next chunk).
void FreeChunk(uintptr_t c, uint64_t* since) {
  size_t size = SizeOf(c);
  const uintptr_t next = c + size;
  if ((HeaderOf(c) & kPrevInUse) == 0) {
    const size_t prev_size = *reinterpret_cast<uint64_t*>(c - 8);
    c -= prev_size;
    Unlink(c);
    size += prev_size;
  }
  if ((HeaderOf(next) & kInUse) == 0) {
    Unlink(next);
    size += SizeOf(next);
  }
  MarkFree(c, size);
  Insert(c);
  if (size < PageSize()) return;  // no inner page: no stamp needed
  if (*since == 0) *since = NowNs();
  StampOf(c) = *since;
  if (IsWholeRegion(c, size)) {
    SetOwner(RegionOf(c), nullptr);  // no block of anyone's in it
    AddIdle(RegionOf(c), *since);
    NoteIdle(*since);
  } else if (ReleasableBytes(c, size) != 0) {
    NoteIdle(*since);
  }
}

// Ours()
//
// Whether the free chunk `c` may go to the calling thread: its region is
// the thread's own, or nobody's (task.h's promise 6: a region another
// thread owns has that thread's live blocks beside its free chunks).
bool Ours(uintptr_t c) {
  const void* owner = RegionOf(c)->owner;
  return owner == nullptr || owner == Me();
}

// FirstOurs()
//
// The first chunk of a bin's list that Ours() allows, or 0.
uintptr_t FirstOurs(uintptr_t c) {
  while (c != 0 && !Ours(c)) c = NextFree(c);
  return c;
}

// TakeFree()
//
// A free chunk of at least `need` bytes, out of the bins (and out of the
// idle list, when it is a whole region), in a region that becomes the
// calling thread's (Ours()); 0 when there is none.
uintptr_t TakeFree(size_t need) {
  int b = BinOf(need);
  uintptr_t best = 0;
  if (b < kExactBins) {
    best = FirstOurs(heap.bins[b]);  // every chunk here is `need` bytes
  } else {
    int looks = 0;
    for (uintptr_t c = FirstOurs(heap.bins[b]); c != 0 && looks < kBestFitLooks;
         c = FirstOurs(NextFree(c)), ++looks) {
      const size_t size = SizeOf(c);
      if (size >= need && (best == 0 || size < SizeOf(best))) {
        best = c;
        if (size == need) break;
      }
    }
  }
  if (best == 0) {
    // The first list above with a chunk of ours: any of its chunks is large
    // enough.
    ++b;
    for (int word = b >> 6; word < 2 && best == 0; ++word) {
      uint64_t bits = heap.nonempty[word];
      if (word == (b >> 6)) bits &= ~uint64_t{0} << (b & 63);
      while (bits != 0 && best == 0) {
        best = FirstOurs(heap.bins[word * 64 + __builtin_ctzll(bits)]);
        bits &= bits - 1;
      }
    }
    if (best == 0) return 0;
  }
  Unlink(best);
  if (IsWholeRegion(best, SizeOf(best))) RemoveIdle(RegionOf(best));
  Region* r = RegionOf(best);
  if (r->owner != Me()) SetOwner(r, Me());
  return best;
}

// Disown()
//
// The regions `me` owns (`keep`: that any other thread owns) become
// nobody's: `me` exits (its cache is back), or is a forked child's only
// thread.
void Disown(const void* me, bool keep) {
  for (Region* r = heap.all; r != nullptr; r = r->all_next) {
    if ((r->owner == me) != keep) SetOwner(r, nullptr);
  }
}

// Taken
//
// What a free chunk taken out of the bins was: its stamp, and whether its
// inner pages had been released.
struct Taken {
  uintptr_t c;
  uint64_t stamp;
  bool released;
};

Taken Describe(uintptr_t c) {
  const size_t size = SizeOf(c);
  return {c, size >= kStampedChunk ? StampOf(c) : 0,
          (HeaderOf(c) & kReleased) != 0};
}

// Carve()
//
// Makes the front `size` bytes of the free chunk `c` (taken out of the bins,
// `have` bytes, as `from` was) an in-use chunk, and the rest a free chunk in
// the bins, as idle as `from` was; a rest too small to be a chunk stays with
// the front. A rest of a released chunk stays released: carving the front
// wrote nothing in the rest's inner pages.
void Carve(uintptr_t c, size_t have, size_t size, const Taken& from) {
  if (have - size < kMinChunk) {
    MarkInUse(c, have);
    return;
  }
  SetHeader(c, size | kInUse | kPrevInUse);
  const uintptr_t rest = c + size;
  const size_t rest_size = have - size;
  MarkFree(rest, rest_size);
  if (rest_size >= kStampedChunk) StampOf(rest) = from.stamp;
  const size_t releasable = ReleasableBytes(rest, rest_size);
  if (from.released && releasable != 0) {
    SetBits(rest, kReleased);
    heap.held -= releasable;  // Unlink() counted it held: it is not
  } else if (releasable != 0) {
    NoteIdle(from.stamp);
  }
  Insert(rest);
}

// AddRegion()
//
// A freshly mapped region into the heap, as one free chunk, idle from now
// as every whole region in the bins is. The caller's TakeFree() mostly
// takes it at once (off the idle list again), but not always: while the
// lock was let go for the map, another thread's frees may have left a chunk
// that fits better, and then the new region waits whole like any other.
// Left off the idle list, it would never go back, and TakeFree()'s
// RemoveIdle() of it would cut the list it was never on.
void AddRegion(uintptr_t base) {
  heap.held += kRegionBytes;
  Region* r = reinterpret_cast<Region*>(base);
  SetOwner(r, nullptr);  // fresh: zeroes already; TakeFree() makes it ours
  r->all_prev = nullptr;
  r->all_next = heap.all;
  if (heap.all != nullptr) heap.all->all_prev = r;
  heap.all = r;
  const uintptr_t c = base + kFirstChunk;
  SetHeader(base + kFence, kInUse);  // the fence: merging stops here
  MarkFree(c, kWholeRegion);
  StampOf(c) = NowNs();
  Insert(c);
  AddIdle(r, StampOf(c));
  NoteIdle(StampOf(c));
}

// TakeOrMap()
//
// TakeFree(need), mapping a new region when the bins have nothing that
// fits: drops the lock to map (no lock is held while the page source maps)
// and takes it again. 0 when the kernel refuses.
uintptr_t TakeOrMap(size_t need) {
  uintptr_t c = TakeFree(need);
  while (c == 0) {
    heap.lock.Release();
    void* base = MapAlignedPages(kRegionBytes, kRegionBytes);
    heap.lock.Acquire();
    if (base == nullptr) return 0;
    AddRegion(reinterpret_cast<uintptr_t>(base));
    c = TakeFree(need);
  }
  return c;
}

// -----------------------------------------------------------------------------
// The thread cache: plain data, initial-exec TLS (no constructor, no
// destructor, no allocation at first use). All zero means "not yet used".
// -----------------------------------------------------------------------------

struct CacheBin {
  void* list;      // in-use chunks' blocks, LIFO, through their first word
  uint32_t count;  // how many are on `list`
  uint16_t limit;  // the most on `list` before a drain; 0: not set up
  uint16_t batch;  // chunks per refill or drain, now
};

struct ThreadCache {
  CacheBin bins[kNumBins];
  void* remote;           // other threads' chunks freed here (FreeRemote())
  uint64_t remote_bytes;  // the pages they keep in use, as counted
  uintptr_t remote_page;  // the last page counted
  uint64_t large_bytes;   // of the chunks cached in bins from kFirstBudgetBin
  uint64_t flushed_ns;    // when this cache was last flushed (or set up):
                          // every chunk in it was freed since
  uint32_t ticks_left;    // calls to the next tick (0: tick at the next)
  bool armed;             // ArmThreadExit() done, flushed_ns set
};

constinit thread_local ThreadCache tc
    __attribute__((tls_model("initial-exec")));

const void* Me() { return &tc; }

// ArmOnce()
//
// Arms the thread-exit hook at the thread's first call that may own a
// region (a refill, a drain, an aligned allocation).
void ArmOnce() {
  if (!tc.armed) {
    tc.armed = true;
    tc.flushed_ns = NowNs();
    ArmThreadExit();  // ThreadExit() will give this cache back
  }
}

void SetUp(CacheBin& bin, int b) {
  ArmOnce();
  if (bin.limit == 0) {
    const uint32_t first = MaxBatchOf(b) < kFirstBatch ? 1 : kFirstBatch;
    bin.batch = static_cast<uint16_t>(first);
    bin.limit = static_cast<uint16_t>(2 * first);
  }
}

void GrowBatch(CacheBin& bin, int b) {
  const uint32_t most = MaxBatchOf(b);
  if (bin.batch < most) {
    bin.batch =
        static_cast<uint16_t>(bin.batch * 2u < most ? bin.batch * 2u : most);
    bin.limit = static_cast<uint16_t>(2u * bin.batch);
  }
}

// ReturnList()
//
// Gives a list of cached chunks back to the heap (heap.lock held); the
// bytes of their chunks.
uint64_t ReturnList(void* list, uint64_t* since) {
  uint64_t bytes = 0;
  while (list != nullptr) {
    void* block = list;
    list = NextCached(block);
    bytes += SizeOf(ChunkOf(block));
    FreeChunk(ChunkOf(block), since);
  }
  return bytes;
}

// Refill()
//
// Bin `b` of this thread's cache has nothing for a chunk of `need` bytes:
// carve a batch of chunks of that size from the heap's free chunks (as
// many as fit in each), hand out the first, cache the rest. nullptr when
// the kernel refuses.
[[gnu::noinline]] void* Refill(int b, size_t need) {
  CacheBin& bin = tc.bins[b];
  SetUp(bin, b);
  const uint32_t want = bin.batch;
  GrowBatch(bin, b);
  void* first = nullptr;
  uint32_t got = 0;
  uint64_t cached = 0;  // the bytes of the chunks it caches
  heap.lock.Acquire();
  ++heap.visits;
  while (got < want) {
    uintptr_t c = got == 0 ? TakeOrMap(need) : TakeFree(need);
    if (c == 0) break;
    const Taken from = Describe(c);
    size_t have = SizeOf(c);
    uint32_t n = static_cast<uint32_t>(have / need);
    if (n > want - got) n = want - got;
    for (uint32_t i = 0; i < n; ++i) {
      if (i + 1 < n) {  // the next chunk's header follows at once
        SetHeader(c, need | kInUse | kPrevInUse);
      } else {  // the last: the rest goes back to the bins, or stays here
        Carve(c, have, need, from);
      }
      if (first == nullptr) {
        first = BlockOf(c);
      } else {
        NextCached(BlockOf(c)) = bin.list;
        bin.list = BlockOf(c);
        ++bin.count;
        cached += SizeOf(c);
      }
      c += need;
      have -= need;
    }
    got += n;
  }
  heap.lock.Release();
  if (b >= kFirstBudgetBin) tc.large_bytes += cached;
  return first;
}

// Drain()
//
// A free finds bin `b` full: keep its `batch` most recently freed chunks,
// give the older ones back to the heap.
[[gnu::noinline]] void Drain(int b) {
  CacheBin& bin = tc.bins[b];
  if (bin.limit == 0) {  // the thread's first free of this bin
    SetUp(bin, b);
    return;
  }
  const uint32_t keep = bin.batch;  // less than `limit`, at least 1
  void* last = bin.list;
  for (uint32_t i = 1; i < keep; ++i) last = NextCached(last);
  void* old = NextCached(last);
  NextCached(last) = nullptr;
  bin.count = keep;
  GrowBatch(bin, b);
  uint64_t since = 0;
  heap.lock.Acquire();
  ++heap.visits;
  const uint64_t bytes = ReturnList(old, &since);
  heap.lock.Release();
  if (b >= kFirstBudgetBin) tc.large_bytes -= bytes;
}

// DrainLarge()
//
// A free of a chunk of `size` bytes finds the bins from kFirstBudgetBin
// holding kLargeCacheBytes or nearly: all of them go back to the heap, in
// one visit. Each bin keeps its batch size: a bin in use refills as before.
[[gnu::noinline]] void DrainLarge() {
  uint64_t since = 0;
  heap.lock.Acquire();
  ++heap.visits;
  for (int b = kFirstBudgetBin; b < kNumBins; ++b) {
    CacheBin& bin = tc.bins[b];
    ReturnList(bin.list, &since);
    bin.list = nullptr;
    bin.count = 0;
  }
  heap.lock.Release();
  tc.large_bytes = 0;
}

// kRemoteBytes, kAllRemoteBytes
//
// Other threads' chunks that a thread frees are never cached for its own
// reuse: they wait on its `remote` list, not in a bin, and a thread's list
// keeps at most kRemoteBytes of pages in use, all threads' lists together
// kAllRemoteBytes (each page counted at the first chunk on it, and again
// after a chunk of another page). Promise 2 lets blocks wait only for a
// running thread that allocated them, and a thread that makes no more
// calls adds nothing: 16 consumers that freed an exited producer's chunks
// into their caches and went quiet kept 5.2 MB held where 4 MiB are
// allowed (DesignDecay.
// IdleMemoryGoesBackWhileManyFreeingThreadsRunOnWithoutCalling). Beside one
// quiet thread's list, a busy one keeps as much as it would alone.
constexpr uint64_t kRemoteBytes = uint64_t{1} << 20;
constexpr uint64_t kAllRemoteBytes = uint64_t{2} << 20;

// All threads' remote_bytes: after a free that counts, at most
// kAllRemoteBytes, or that thread's list goes back (FreeRemote()). A
// relaxed atomic, changed once per page counted, never on the fast paths.
constinit std::atomic<uint64_t> remote_bytes_all{0};

// ReturnRemote()
//
// This thread's remote list back to the heap (heap.lock held).
void ReturnRemote(uint64_t* since) {
  if (tc.remote == nullptr) return;
  ReturnList(tc.remote, since);
  tc.remote = nullptr;
  remote_bytes_all.fetch_sub(tc.remote_bytes, std::memory_order_relaxed);
  tc.remote_bytes = 0;
  tc.remote_page = 0;
}

// FlushCache()
//
// Everything this thread's cache and remote list hold, back to the heap in
// one visit; regions left whole count as idle since `since` (0: now).
void FlushCache(uint64_t since) {
  bool any = tc.remote != nullptr;
  for (const CacheBin& bin : tc.bins) any = any || bin.list != nullptr;
  if (!any) return;
  tc.large_bytes = 0;  // all of it goes back below
  heap.lock.Acquire();
  ++heap.visits;
  for (CacheBin& bin : tc.bins) {
    ReturnList(bin.list, &since);
    bin.list = nullptr;
    bin.count = 0;
  }
  ReturnRemote(&since);
  heap.lock.Release();
}

// FreeRemote()
//
// A chunk of a region this thread does not own (another thread's, or
// nobody's: its owner exited): onto the remote list, not for reuse here,
// its pages counted in this thread's count and in all threads'. When this
// thread's list could keep more than kRemoteBytes of pages in use, or all
// threads' lists more than kAllRemoteBytes, this thread's list goes back
// (one visit); it goes back at the thread's next flush too (a tick's, its
// exit's). A thread keeps a count only while the total is within
// kAllRemoteBytes, so quiet consumers, however many, keep at most that.
[[gnu::noinline]] void FreeRemote(void* block, uintptr_t c) {
  ArmOnce();  // the thread's exit gives the list back
  NextCached(block) = tc.remote;
  tc.remote = block;
  const uintptr_t page = PageSize();
  const uintptr_t first = c & ~(page - 1);
  const uintptr_t last = (c + SizeOf(c) - 1) & ~(page - 1);
  const uint64_t bytes = last - first + (first == tc.remote_page ? 0 : page);
  tc.remote_page = last;
  if (bytes == 0) return;
  tc.remote_bytes += bytes;
  const uint64_t all =
      remote_bytes_all.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (tc.remote_bytes > kRemoteBytes || all > kAllRemoteBytes) {
    uint64_t since = tc.flushed_ns;  // each was freed after the last flush
    heap.lock.Acquire();
    ++heap.visits;
    ReturnRemote(&since);
    heap.lock.Release();
  }
}

// -----------------------------------------------------------------------------
// The decay: ticks on the threads' own calls.
// -----------------------------------------------------------------------------

// Unmap()
//
// Takes the idle region `r` off the heap's lists, to be unmapped with no
// lock held (linked through `next` onto `*gone`): held no more, returned.
void Unmap(Region* r, Region** gone) {
  RemoveIdle(r);
  Unlink(reinterpret_cast<uintptr_t>(r) + kFirstChunk);  // held whole again
  (r->all_prev != nullptr ? r->all_prev->all_next : heap.all) = r->all_next;
  if (r->all_next != nullptr) r->all_next->all_prev = r->all_prev;
  heap.held -= kRegionBytes;
  heap.returned += kRegionBytes;
  r->next = *gone;
  *gone = r;
}

// Busy()
//
// Takes the free chunk `c` out of the heap to have its inner pages
// released with no lock held (linked through NextFree() onto
// `*releasing`): marked in use meanwhile, so that no thread takes or
// merges it, and counted released now.
void Busy(uintptr_t c, uintptr_t* releasing) {
  const size_t size = SizeOf(c);
  const size_t bytes = ReleasableBytes(c, size);
  if (IsWholeRegion(c, size)) RemoveIdle(RegionOf(c));
  Unlink(c);
  SetHeader(c, size | kInUse | kPrevInUse);
  SetBits(c + size, kPrevInUse);
  heap.held -= bytes;
  heap.returned += bytes;
  NextFree(c) = *releasing;
  *releasing = c;
}

// DecayPass()
//
// Gives back what has been idle for kDecayNs: regions that are one free
// chunk are unmapped; the inner pages of other free chunks are released
// (the chunk stays, its header, links and footer on pages of their own).
// Both leave the heap under the lock and go back with none held: a chunk
// being released is marked in use meanwhile, so that no other thread takes
// it or merges it, and is filed again after. The next pass is due exactly
// when the oldest region or chunk left has been idle kDecayNs.
void GiveBack(InFlight* rec);

// Records `rec` in heap.in_flight (under the lock), before the memory it
// names leaves the heap's lists for good.
void RecordInFlight(InFlight* rec) {
  rec->prev = nullptr;
  rec->next = heap.in_flight;
  if (heap.in_flight != nullptr) heap.in_flight->prev = rec;
  heap.in_flight = rec;
}

void ForgetInFlight(InFlight* rec) {
  (rec->prev != nullptr ? rec->prev->next : heap.in_flight) = rec->next;
  if (rec->next != nullptr) rec->next->prev = rec->prev;
}

void DecayPass(uint64_t now) {
  heap.lock.Acquire();
  if (now < next_decay_ns.load(std::memory_order_relaxed)) {
    heap.lock.Release();
    return;
  }
  ++heap.visits;
  InFlight rec;
  RecordInFlight(&rec);
  uint64_t oldest = UINT64_MAX;
  for (Region* r = heap.idle; r != nullptr;) {
    Region* next = r->next;
    if (r->idle_since + kDecayNs <= now) {
      Unmap(r, &rec.gone);
    } else if (r->idle_since < oldest) {
      oldest = r->idle_since;
    }
    r = next;
  }
  for (int b = BinOf(PageSize()); b < kNumBins; ++b) {
    for (uintptr_t c = heap.bins[b]; c != 0;) {
      const uintptr_t next = NextFree(c);
      const size_t size = SizeOf(c);
      const size_t bytes = ReleasableBytes(c, size);
      if ((HeaderOf(c) & kReleased) != 0 || bytes == 0 ||
          IsWholeRegion(c, size)) {
        // Released already, no inner page, or an idle region's.
      } else if (StampOf(c) + kDecayNs <= now) {
        Busy(c, &rec.releasing);
      } else if (StampOf(c) < oldest) {
        oldest = StampOf(c);
      }
      c = next;
    }
  }
  // Due when the oldest left is: a wave freed just after the one this pass
  // gave back goes kDecayNs after its own free, not a while after this pass.
  const uint64_t due = oldest == UINT64_MAX ? UINT64_MAX : oldest + kDecayNs;
  next_decay_ns.store(due, std::memory_order_relaxed);
  heap.lock.Release();
  GiveBack(&rec);
}

// ReleaseChunks()
//
// Releases the inner pages of the chunks `releasing` (linked through
// NextFree(), marked in use, held and returned already counted).
void ReleaseChunks(uintptr_t releasing) {
  for (uintptr_t c = releasing; c != 0; c = NextFree(c)) {
    const size_t size = SizeOf(c);
    const uintptr_t page = PageSize();
    ReleasePages(reinterpret_cast<void*>((c + 32 + page - 1) & ~(page - 1)),
                 ReleasableBytes(c, size));
  }
}

// FileReleased()
//
// Under the lock: the chunks `releasing`, released, filed again as released
// free chunks; a whole region back on the idle list, as idle as it was.
void FileReleased(uintptr_t releasing) {
  while (releasing != 0) {
    const uintptr_t c = releasing;
    releasing = NextFree(c);
    const size_t size = SizeOf(c);
    const bool prev_free = (HeaderOf(c) & kPrevInUse) == 0;
    const bool next_free = (HeaderOf(c + size) & kInUse) == 0;
    if (!prev_free && !next_free) {
      MarkFree(c, size);
      SetBits(c, kReleased);
      Insert(c);
      if (IsWholeRegion(c, size)) {  // only a thread's exit releases these
        AddIdle(RegionOf(c), StampOf(c));
        NoteIdle(StampOf(c));  // to be unmapped by the decay
      }
    } else {
      // A neighbour was freed meanwhile: merge, and the merged chunk is
      // held again (its own stamp, to be released at a later pass).
      heap.held += ReleasableBytes(c, size);
      uint64_t since = StampOf(c);
      FreeChunk(c, &since);
    }
  }
}

// GiveBack()
//
// With no lock held: unmaps the regions `rec->gone` (taken off every list),
// each named in `rec->unmapping` while its unmap is under way, and releases
// the inner pages of the chunks `rec->releasing`; then, under the lock,
// files those again (FileReleased()) and takes `rec` out of
// heap.in_flight.
void GiveBack(InFlight* rec) {
  while (rec->gone != nullptr) {
    Region* r = rec->gone;
    rec->unmapping = reinterpret_cast<uintptr_t>(r);
    rec->gone = r->next;  // read before the unmap: r's memory goes with it
    UnmapPages(r, kRegionBytes);
  }
  rec->unmapping = 0;
  ReleaseChunks(rec->releasing);
  heap.lock.Acquire();
  FileReleased(rec->releasing);
  ForgetInFlight(rec);
  heap.lock.Release();
}

// Decay()
//
// Passes of the decay until none is due at `now`. A pass gives back with
// no lock held, and then files each released chunk again; one whose
// neighbour was freed meanwhile (another thread's flush) is merged with it
// and held again, due at once when the neighbour was freed long enough
// ago. The thread that filed it passes again: every thread that makes
// something due makes the pass that gives it back, or threads calling at
// once, each ticking once, could leave it until the clock moves on
// (promise 2 with several threads that run on). Each pass takes what is
// due off the lists, so a few are enough; kMostPasses bounds them.
constexpr int kMostPasses = 4;

void Decay(uint64_t now) {
  for (int pass = 0; pass < kMostPasses &&
                     now >= next_decay_ns.load(std::memory_order_relaxed);
       ++pass) {
    DecayPass(now);
  }
}

// TrimAtExit()
//
// A thread's exit, once its regions are nobody's: what no running thread
// owns goes back now, not at the decay (promise 3: with the clock standing
// still, threads live at once each left a region of 1 MiB idle). The idle
// regions past the newest kExitSlackRegions are released (reused with no
// system call: promise 1 for the threads that run on), past
// kReleasedRegionsKept released ones the oldest are unmapped, and the free
// chunks of regions nobody owns (an exited thread's blocks still live in
// them) with kExitReleaseBytes or more to release are released. Smaller
// ones wait for the decay.
void TrimAtExit() {
  InFlight rec;
  heap.lock.Acquire();
  ++heap.visits;
  RecordInFlight(&rec);
  uint32_t whole = 0, released = 0;
  for (Region* r = heap.idle; r != nullptr;) {
    Region* next = r->next;
    const uintptr_t c = reinterpret_cast<uintptr_t>(r) + kFirstChunk;
    if ((HeaderOf(c) & kReleased) != 0) {
      if (++released > kReleasedRegionsKept) Unmap(r, &rec.gone);
    } else if (++whole > kExitSlackRegions) {
      Busy(c, &rec.releasing);
    }
    r = next;
  }
  for (int b = BinOf(PageSize()); b < kNumBins; ++b) {
    for (uintptr_t c = heap.bins[b]; c != 0;) {
      const uintptr_t next = NextFree(c);
      const size_t size = SizeOf(c);
      if ((HeaderOf(c) & kReleased) == 0 && !IsWholeRegion(c, size) &&
          RegionOf(c)->owner == nullptr &&
          ReleasableBytes(c, size) >= kExitReleaseBytes) {
        Busy(c, &rec.releasing);
      }
      c = next;
    }
  }
  heap.lock.Release();
  GiveBack(&rec);
}

// DecayTick()
//
// Every kDecayCheckOps-th call of a thread: read the clock. Once kDecayNs / 2
// has passed since this thread's cache was last flushed, flush it again,
// its chunks idle since that last flush (each was freed after it): idle
// time counts from the free, however often the thread calls.
[[gnu::noinline]] void DecayTick() {
  tc.ticks_left = kDecayCheckOps;
  const uint64_t now = NowNs();
  if (tc.armed && tc.flushed_ns + kDecayNs / 2 <= now) {
    FlushCache(tc.flushed_ns);
    tc.flushed_ns = now;
  }
  if (now >= next_decay_ns.load(std::memory_order_relaxed)) Decay(now);
}

[[gnu::always_inline]] inline void CountCall() {
  if (tc.ticks_left == 0 || --tc.ticks_left == 0) [[unlikely]] {
    DecayTick();
  }
}

// -----------------------------------------------------------------------------
// Aligned chunks and large blocks: past the thread cache.
// -----------------------------------------------------------------------------

// AllocateAligned()
//
// A chunk whose block is aligned to `alignment` (32 to kHeapMaxAlignment):
// a free chunk with room to slide, its front given back as a free chunk.
// The region it comes from becomes this thread's (TakeFree()), so the
// thread's exit must give it up: a thread whose only calls are aligned
// allocations arms its exit here, as a refill does (promise 3).
[[gnu::noinline]] void* AllocateAligned(size_t size, size_t alignment,
                                        bool zero) {
  const size_t need = ChunkSize(size);
  ArmOnce();
  heap.lock.Acquire();
  ++heap.visits;
  uintptr_t c = TakeOrMap(need + alignment + kMinChunk);
  if (c == 0) {
    heap.lock.Release();
    return nullptr;
  }
  const Taken from = Describe(c);
  size_t have = SizeOf(c);
  uintptr_t block = (c + kHeader + alignment - 1) & ~(alignment - 1);
  while (block - kHeader - c != 0 && block - kHeader - c < kMinChunk) {
    block += alignment;
  }
  const size_t front = block - kHeader - c;
  if (front != 0) {  // the front stays free (the chunk before is in use)
    MarkFree(c, front);
    if (front >= kStampedChunk) StampOf(c) = from.stamp;
    if (ReleasableBytes(c, front) != 0) NoteIdle(from.stamp);
    Insert(c);
    c += front;
    have -= front;
  }
  const uint64_t prev_bit = front != 0 ? 0 : kPrevInUse;
  Carve(c, have, need, Taken{c, from.stamp, false});
  SetHeader(c, (HeaderOf(c) & ~kPrevInUse) | prev_bit);
  heap.lock.Release();
  if (zero) memset(BlockOf(c), 0, size);
  return BlockOf(c);
}

// A large block's mapping: its offset before the block, then a header word
// as a chunk's, marked kMapped, with the mapping's length.
uint64_t& MappedOffsetOf(uintptr_t c) {
  return *reinterpret_cast<uint64_t*>(c - 8);
}

[[gnu::noinline]] void* AllocateLarge(size_t size, size_t alignment) {
  const size_t page = PageSize();
  const size_t head = alignment > 16 ? alignment : 16;
  if (size > SIZE_MAX - head - page) return nullptr;  // would overflow
  const size_t bytes = (size + head + page - 1) & ~(page - 1);
  void* mem =
      alignment > page ? MapAlignedPages(bytes, alignment) : MapPages(bytes);
  if (mem == nullptr) return nullptr;
  const uintptr_t block = reinterpret_cast<uintptr_t>(mem) + head;
  MappedOffsetOf(ChunkOf(reinterpret_cast<void*>(block))) = head;
  SetHeader(ChunkOf(reinterpret_cast<void*>(block)), bytes | kMapped | kInUse);
  heap.lock.Acquire();
  ++heap.visits;
  heap.held += bytes;
  heap.lock.Release();
  return reinterpret_cast<void*>(block);  // fresh from the kernel: zeroes
}

[[gnu::noinline]] void FreeLarge(uintptr_t c) {
  const size_t bytes = SizeOf(c);
  void* mem = reinterpret_cast<void*>(c + kHeader - MappedOffsetOf(c));
  InFlight rec;
  rec.pending = reinterpret_cast<uintptr_t>(mem);
  rec.pending_bytes = bytes;
  heap.lock.Acquire();
  ++heap.visits;
  heap.held -= bytes;
  heap.returned += bytes;
  RecordInFlight(&rec);
  heap.lock.Release();
  rec.unmapping = rec.pending;  // for a child forked from now: started
  rec.pending = 0;
  UnmapPages(mem, bytes);
  heap.lock.Acquire();
  ForgetInFlight(&rec);
  heap.lock.Release();
}

[[gnu::noinline]] void* AllocateSlow(size_t size, size_t alignment, bool zero) {
  if ((alignment & (alignment - 1)) != 0) return nullptr;  // not a power of 2
  if (size <= kSmallMax && alignment <= kHeapMaxAlignment) {
    return AllocateAligned(size, alignment, zero);
  }
  return AllocateLarge(size, alignment);
}

}  // namespace

// The fast path: the first chunk of this thread's bin for the request's
// chunk size if it is large enough, or the first of the next bin (every
// chunk there is); a refill from the heap otherwise.
void* Allocate(size_t size, size_t alignment, bool zero) {
  CountCall();
  if (size > kSmallMax || alignment > kMinAlignment) [[unlikely]] {
    return AllocateSlow(size, alignment, zero);
  }
  const size_t need = ChunkSize(size);
  const int b = BinOf(need);
  void* block = nullptr;
  CacheBin* bin = &tc.bins[b];
  if (bin->list != nullptr && SizeOf(ChunkOf(bin->list)) >= need) [[likely]] {
    block = bin->list;
  } else if (b + 1 < kNumBins && tc.bins[b + 1].list != nullptr) {
    bin = &tc.bins[b + 1];
    block = bin->list;
  }
  if (block != nullptr) {
    bin->list = NextCached(block);
    --bin->count;
    if (bin >= &tc.bins[kFirstBudgetBin]) [[unlikely]] {
      tc.large_bytes -= SizeOf(ChunkOf(block));
    }
  } else {
    block = Refill(b, need);
    if (block == nullptr) return nullptr;
  }
  if (zero) memset(block, 0, size);  // recycled, or carved from a used chunk
  return block;
}

void Free(void* block) {
  if (block == nullptr) return;
  CountCall();
  const uintptr_t c = ChunkOf(block);
  if ((HeaderOf(c) & kMapped) != 0) [[unlikely]] {
    return FreeLarge(c);
  }
  if (OwnerOf(RegionOf(c)) != Me()) [[unlikely]] {
    return FreeRemote(block, c);  // another thread's chunk: not reused here
  }
  const size_t size = SizeOf(c);
  const int b = BinOf(size);
  CacheBin& bin = tc.bins[b];
  if (bin.count >= bin.limit) [[unlikely]] {
    Drain(b);  // makes room (or sets the bin up)
  }
  if (b >= kFirstBudgetBin) [[unlikely]] {
    if (tc.large_bytes + size > kLargeCacheBytes) DrainLarge();
    tc.large_bytes += size;
  }
  NextCached(block) = bin.list;
  bin.list = block;
  ++bin.count;
}

size_t UsableSize(const void* block) {
  if (block == nullptr) return 0;
  const uintptr_t c = ChunkOf(block);
  if ((HeaderOf(c) & kMapped) != 0) return SizeOf(c) - MappedOffsetOf(c);
  return SizeOf(c) - kHeader;
}

// Its cache goes back stamped with its last flush, as DecayTick() files
// it: each chunk in it was freed after that flush, perhaps long before this
// exit (promise 2 counts idle time from the free, not from the exit).
void ThreadExit() {
  FlushCache(tc.armed ? tc.flushed_ns : 0);
  heap.lock.Acquire();
  Disown(Me(), /*keep=*/false);
  heap.lock.Release();
  TrimAtExit();
  for (CacheBin& bin : tc.bins) bin = CacheBin{};
  tc.armed = false;  // a later call on this thread sets up and arms again
}

// RecoverInFlight()
//
// In a forked child, the lock held by its one thread: what the parent's
// other threads were giving back with no lock held at the fork (their
// InFlight records), finished here, as no thread of the child would: the
// regions and the large mapping still to unmap unmapped, the chunks
// released and filed. Their bytes were counted returned when they left the
// heap's lists, so this keeps bytes_held what the page source holds;
// without it the chunks stay in use for good, counted released but
// resident (review rv5b: 21 MB resident in the child after the decay,
// 1.4 MB counted). Not the one mapping whose unmap had started
// (`unmapping`): the page source may have taken it out of its table, or the
// kernel unmapped it and handed its addresses to another mapping, and the
// child cannot tell, so it leaves it as it is.
void RecoverInFlight() {
  while (InFlight* rec = heap.in_flight) {
    heap.in_flight = rec->next;
    if (rec->pending != 0) {
      UnmapPages(reinterpret_cast<void*>(rec->pending), rec->pending_bytes);
    }
    for (Region* r = rec->gone; r != nullptr;) {
      Region* next = r->next;
      UnmapPages(r, kRegionBytes);
      r = next;
    }
    ReleaseChunks(rec->releasing);
    FileReleased(rec->releasing);
  }
}

// One lock: the child's only thread is the one that took it.
void ForkPrepare() { heap.lock.Acquire(); }
void ForkParent() { heap.lock.Release(); }
void ForkChild() {
  Disown(Me(), /*keep=*/true);  // the parent's other threads are not here
  // Nor their remote lists: their chunks stay in use, and their count goes.
  remote_bytes_all.store(tc.remote_bytes, std::memory_order_relaxed);
  RecoverInFlight();
  heap.lock.Release();
}

Counters ReadCounters() {
  heap.lock.Acquire();
  Counters out;
  out.central_visits = heap.visits;
  out.bytes_held = heap.held;
  out.bytes_returned = heap.returned;
  heap.lock.Release();
  return out;
}

}  // namespace allocator_design
