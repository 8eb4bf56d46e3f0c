// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: thread_owned_pages.cc (a second design)
// -----------------------------------------------------------------------------
//
// Lab allocator_design: an allocator of task.h that is correct and keeps
// every promise, but is not the reference's design. The reference gives
// each thread a cache of blocks, refilled and drained a batch at a time
// from per-class central lists. This one, after mimalloc's free-list
// sharding, gives each thread pages of its own instead:
//
//   owned pages     a page (a span of the reference's sizes, 64 KiB or
//                   1 MiB) holds blocks of one class and belongs to one
//                   thread, which alone allocates from it, with no lock and
//                   no atomic operation: a pop off the page's free list.
//   local frees     a block freed by its page's owner goes straight back
//                   onto that page's free list: no cache in between, no
//                   batch, no central visit.
//   thread frees    a block freed by any other thread is pushed onto the
//                   page's thread-free list, a lock-free stack with its own
//                   cache line (one compare-and-swap); the owner takes the
//                   whole stack with one exchange when the page runs out,
//                   and counts that as a central visit (a shared list
//                   touched), as each push is.
//   empty pages     a page whose last block comes back stays with its
//                   owner, as the class's current page or one of its few
//                   spares (enough for about 32 blocks, at most 512 KiB);
//                   past that, half the spares go back to the pool in one
//                   visit, and pages come from it in batches as large.
//   abandoned pages at thread exit, pages with no block out go to the pool;
//                   pages with blocks still out (other threads have them)
//                   are abandoned: ownerless, on a list under a lock, where
//                   other threads' frees still reach their thread-free
//                   lists. A thread short of pages adopts one, and the decay
//                   sweeps the list for pages that have become whole free.
//   decay           as the reference: each thread looks at the clock every
//                   kDecayCheckOps calls; every kDecayNs / 2 it collects
//                   every page it owns and gives back the empty ones, idle
//                   since its last sweep (each was emptied after it).
//
// What it shares with the reference, unchanged: the size classes, the
// spans, the page map, the span pool with its chunks and idle release, the
// large mappings with their cache, metadata from the page source, the
// decay of the pool and the byte counters. The difference is where a freed
// block waits (on its page, not in a cache) and who may take it (only the
// page's owner).
//
// Locks (lock.h's): the page heap's and the abandoned list's, never one
// inside the other, and neither across a call that maps memory.
//
// Example:
//
//   void* p = allocator_design::Allocate(100, 16, /*zero=*/false);
//   // class 112: a pop off this thread's current page of that class
//   allocator_design::Free(p);  // back onto that page's free list
//   // freed by another thread: pushed onto the page's thread-free list,
//   // which this thread collects when the page runs out

#include <string.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/thread_exit.h"

namespace allocator_design {
namespace {

// -----------------------------------------------------------------------------
// Size classes, computed at compile time (the reference's).
// -----------------------------------------------------------------------------

constexpr size_t kSmallMax = size_t{256} << 10;
constexpr int kNumClasses = 52;

// ClassSize()
//
// Classes 0-7: 16, 32, ..., 128; then four per doubling: 160, 192, 224,
// 256, 320, ..., 256 KiB.
constexpr size_t ClassSize(int c) {
  if (c < 8) return size_t{16} * static_cast<size_t>(c + 1);
  const size_t base = size_t{128} << ((c - 8) / 4);
  return base + static_cast<size_t>((c - 8) % 4 + 1) * (base / 4);
}

// SizeToClass()
//
// The smallest class that holds `size` (<= kSmallMax; 0 is class 0).
constexpr int SizeToClass(size_t size) {
  if (size <= 128) return size == 0 ? 0 : static_cast<int>((size - 1) / 16);
  const int lg = 63 - __builtin_clzll(size - 1);  // 2^lg < size <= 2^(lg+1)
  const int step = static_cast<int>((size - 1) >> (lg - 2)) - 4;  // 0..3
  return 8 + (lg - 7) * 4 + step;
}

// Spans come in two sizes, each aligned to its size: 64 KiB for classes
// up to 16 KiB, 1 MiB for the larger ones (at least four blocks a span).
constexpr size_t kSpanBytes = size_t{64} << 10;
constexpr size_t kBigSpanBytes = size_t{1} << 20;
constexpr size_t kSmallSpanMaxClass = size_t{16} << 10;
constexpr size_t SpanBytesOf(int c) {
  return ClassSize(c) <= kSmallSpanMaxClass ? kSpanBytes : kBigSpanBytes;
}

// The fast path's class of a size up to kLookupMax: one load, no branch.
constexpr size_t kLookupMax = 1024;
struct SmallClassTable {
  uint8_t of[kLookupMax / 16 + 1];
};
constexpr SmallClassTable MakeSmallClassTable() {
  SmallClassTable t{};
  for (size_t i = 0; i <= kLookupMax / 16; ++i) {
    t.of[i] = static_cast<uint8_t>(SizeToClass(i * 16));
  }
  return t;
}
constexpr SmallClassTable kSmallClass = MakeSmallClassTable();

constexpr bool SmallClassTableIsRight() {
  for (size_t size = 0; size <= kLookupMax; ++size) {
    if (kSmallClass.of[(size + 15) / 16] != SizeToClass(size)) return false;
  }
  return true;
}
static_assert(SmallClassTableIsRight(), "the small-size table is wrong");

[[gnu::always_inline]] inline int ClassOf(size_t size) {
  return size <= kLookupMax ? kSmallClass.of[(size + 15) / 16]
                            : SizeToClass(size);
}

// A block of class c starts at a multiple of its size from its span's
// start: its address is aligned to the largest power of two that divides
// the size (at most the span's alignment). An aligned request takes the
// first class whose blocks are aligned enough.
constexpr size_t ClassAlignment(int c) {
  const size_t s = ClassSize(c);
  const size_t natural = s & (~s + 1);
  return natural < SpanBytesOf(c) ? natural : SpanBytesOf(c);
}

constexpr bool ClassTableIsRight() {
  for (int c = 0; c < kNumClasses; ++c) {
    if (SizeToClass(ClassSize(c)) != c) return false;
    if (c + 1 < kNumClasses && SizeToClass(ClassSize(c) + 1) != c + 1) {
      return false;
    }
    if (ClassSize(c) % kMinAlignment != 0) return false;
    if (SpanBytesOf(c) / ClassSize(c) < 4) return false;
  }
  return ClassSize(kNumClasses - 1) == kSmallMax;
}
static_assert(ClassTableIsRight(), "the size-class table is inconsistent");

// Whole-free spans a thread keeps per class (its spares), and so moves to
// or from the pool a batch of about half that many at a time: enough that a
// batch holds 2 * kOpsPerCentralVisit blocks (promise 1 for bursts: a
// thread that frees a thousand 16 KiB blocks and allocates them again visits
// the pool once per batch, not once per four blocks), at most kMaxSpareBytes
// a class, and at least one span (one 1 MiB span for the largest classes,
// whose bursts visit the pool every few blocks, as the reference's batches
// of two 256 KiB blocks do).
constexpr size_t kMaxSpareBytes = size_t{512} << 10;
constexpr uint32_t SparesOf(int c) {
  const size_t blocks = SpanBytesOf(c) / ClassSize(c);
  const size_t batch = (2 * kOpsPerCentralVisit + blocks - 1) / blocks;
  size_t n = 2 * batch;
  const size_t most = kMaxSpareBytes / SpanBytesOf(c);
  if (n > most) n = most;
  return n < 1 ? 1 : static_cast<uint32_t>(n);
}

struct ClassInfo {
  uint32_t size[kNumClasses];
  uint32_t alignment[kNumClasses];
  uint32_t spares[kNumClasses];
};
constexpr ClassInfo MakeClassInfo() {
  ClassInfo info{};
  for (int c = 0; c < kNumClasses; ++c) {
    info.size[c] = static_cast<uint32_t>(ClassSize(c));
    info.alignment[c] = static_cast<uint32_t>(ClassAlignment(c));
    info.spares[c] = SparesOf(c);
  }
  return info;
}
constexpr ClassInfo kClass = MakeClassInfo();

// -----------------------------------------------------------------------------
// The design's numbers.
// -----------------------------------------------------------------------------

// Chunks of small spans: 64 KiB to 1 MiB, doubled while eight of them fit
// in what is already held, so at most a quarter of it (or one span, when
// little is held); a big span is a chunk of its own.
constexpr size_t kMinChunk = kSpanBytes;
constexpr size_t kMaxChunk = kBigSpanBytes;

// The cache of recently freed large mappings (lab musl_churn's recycler):
// at most this many, of at most this size each and in all. A cached
// mapping of R bytes serves a request of R * 4/5 to R bytes.
constexpr int kLargeCacheEntries = 32;
constexpr size_t kLargeCacheMaxBlock = size_t{2} << 20;
constexpr size_t kLargeCacheBytes = size_t{4} << 20;

// Whole-free spans kept (not released) while new memory is mapped: above
// this, as many bytes as the new mapping are released from the idle spans
// first, so memory freed as one kind of block is not held beside new
// memory for another (the 'phases' trace: 64-byte blocks, then 100 KiB
// ones).
constexpr size_t kPoolSlackBytes = size_t{1} << 20;

// Metadata (page-map nodes and span descriptors) comes from the page
// source too, in pieces of kMetaChunk; kMetaNeed is the most one install
// (a span, a chunk's spans or a large mapping) may take.
constexpr size_t kMetaChunk = size_t{256} << 10;

// -----------------------------------------------------------------------------
// Spans (pages, in mimalloc's word) and their lists.
// -----------------------------------------------------------------------------

enum class SpanState : uint8_t {
  kOwned,      // a thread's: its owner allocates from it
  kAbandoned,  // its owner exited with blocks of it out: on the abandoned list
  kCached,     // whole free, held, in the pool
  kReleased,   // whole free, released, in the pool
  kBusy,       // between lists, being released or given back by one thread
  kLarge,      // a live large block
  kLargeCached,
};

// Where an owned span is among its owner's spans of its class.
enum class Place : uint8_t {
  kCurrent,  // the one allocations come from
  kSpare,    // whole free, kept aside for when the current one runs out
  kAvail,    // has free blocks (or room to carve)
  kFull,     // had none when last looked at (other threads' frees may wait
             // on its thread-free list)
};

constexpr int16_t kLargeClass = -1;

struct ThreadHeap;

// Span
//
// One descriptor per span, and per large mapping, kept in the metadata
// pieces: three cache lines, one for each kind of writer. The first is
// read by every thread that frees a block of the span (`owner`) and written
// only when the span changes hands or lists; the second is the owner's
// alone, written on every allocation and local free; the third is other
// threads', written by their frees. So a thread that frees into another's
// page never writes a line the owner's fast path writes, and the owner's
// fast path never writes one they do.
struct alignas(64) Span {
  // Line 1: where it is, and whose.
  Span* next;  // the pool's lists, the large cache, an owner's lists, the
  Span* prev;  // abandoned list
  uintptr_t start;
  size_t bytes;
  std::atomic<ThreadHeap*> owner;  // nullptr: no thread's
  uint64_t idle_since;             // pool and large cache: when last freed
  int16_t size_class;              // kLargeClass for a large mapping
  SpanState state;
  // Line 2: the owner's (or, for an abandoned span, the holder of the
  // abandoned list's lock).
  alignas(64) void* free_list;  // free blocks, linked through their 1st word
  uintptr_t carve;              // blocks from here to the end never handed out
  uint32_t used;  // blocks out: handed out and not back on free_list (a
                  // block on thread_free is still out)
  Place place;
  bool zeroed;  // the blocks from `carve` on read as zeroes
  // Line 3: other threads' frees, a lock-free stack (push: compare-and-swap;
  // the owner takes it whole: exchange).
  alignas(64) std::atomic<void*> thread_free;
};
static_assert(sizeof(Span) == 192, "a descriptor is three cache lines");

//
// Doubly linked, head and tail: the pool takes from the head (the most
// recently freed, whose lines may still be cached) and evicts from the tail.
struct SpanList {
  Span* head = nullptr;
  Span* tail = nullptr;

  void PushFront(Span* s) {
    s->prev = nullptr;
    s->next = head;
    if (head != nullptr) head->prev = s;
    head = s;
    if (tail == nullptr) tail = s;
  }
  void PushBack(Span* s) {
    s->next = nullptr;
    s->prev = tail;
    if (tail != nullptr) tail->next = s;
    tail = s;
    if (head == nullptr) head = s;
  }
  void Remove(Span* s) {
    (s->prev != nullptr ? s->prev->next : head) = s->next;
    (s->next != nullptr ? s->next->prev : tail) = s->prev;
    s->next = s->prev = nullptr;
  }
  Span* PopFront() {
    Span* s = head;
    if (s != nullptr) Remove(s);
    return s;
  }
};

// -----------------------------------------------------------------------------
// The page map: address -> span and class, in two levels over the 47 bits
// of a user address on x86-64, in 64 KiB units (every span and every large
// mapping starts on one). The root is static: 2^17 pointers, 1 MiB of
// zeroes in .bss, of which only the pages touched are ever backed. A leaf
// (2^14 entries, 128 KiB, for 1 GiB of address space) is metadata from the
// page source. An entry is the span's descriptor (64-byte aligned) with
// its class + 1 in the low six bits, 0 there for a large mapping: Free()
// learns the class without touching the descriptor. Entries are written
// under the page heap's lock, or by the thread that owns the span, and
// read without one: the thread that frees a block learnt of it after its
// span was entered, so its read sees the entry (acquire: a plain load on
// x86).
// -----------------------------------------------------------------------------

constexpr int kUnitShift = 16;
constexpr int kLeafBits = 14;
constexpr int kRootBits = 47 - kUnitShift - kLeafBits;
constexpr uintptr_t kClassBits = 63;
static_assert(kNumClasses < 64, "a class + 1 fits an entry's low bits");
static_assert(alignof(Span) == 64, "an entry's low six bits are free");
static_assert((size_t{1} << kUnitShift) == kSpanBytes);

struct Leaf {
  std::atomic<uintptr_t> entry[size_t{1} << kLeafBits];
};

constinit std::atomic<Leaf*> page_map_root[size_t{1} << kRootBits];

[[gnu::always_inline]] inline uintptr_t LookupEntry(const void* p) {
  const uintptr_t unit = reinterpret_cast<uintptr_t>(p) >> kUnitShift;
  if ((unit >> (kRootBits + kLeafBits)) != 0) return 0;
  Leaf* leaf = page_map_root[unit >> kLeafBits].load(std::memory_order_acquire);
  if (leaf == nullptr) return 0;
  return leaf->entry[unit & ((uintptr_t{1} << kLeafBits) - 1)].load(
      std::memory_order_acquire);
}

Span* SpanOf(uintptr_t entry) {
  return reinterpret_cast<Span*>(entry & ~kClassBits);
}

uintptr_t EntryOf(Span* s, int size_class) {
  return reinterpret_cast<uintptr_t>(s) |
         static_cast<uintptr_t>(size_class + 1);
}

// Mappable()
//
// Whether the page map covers [p, p + bytes): below 2^47, where the kernel
// puts every mapping that was not asked for higher (x86-64 with five-level
// page tables, and arm64 with 52-bit addresses, map higher only on a hint).
bool Mappable(const void* p, size_t bytes) {
  const uintptr_t end = reinterpret_cast<uintptr_t>(p) + bytes;
  return (end >> (kUnitShift + kRootBits + kLeafBits)) == 0;
}

constexpr size_t kMetaNeed =
    sizeof(Leaf) + (kMaxChunk / kSpanBytes) * sizeof(Span);
static_assert(kMetaNeed <= kMetaChunk, "a metadata piece fits an install");

// -----------------------------------------------------------------------------
// The page heap, under one lock: the span pool, the large cache, metadata
// and the byte counters (the reference's, unchanged).
// -----------------------------------------------------------------------------

// The two sizes of span, as the pool keeps them apart.
constexpr int kSmallSpan = 0;
constexpr int kBigSpan = 1;
constexpr int KindOf(size_t span_bytes) {
  return span_bytes == kSpanBytes ? kSmallSpan : kBigSpan;
}

struct PageHeap {
  Lock lock;
  SpanList cached[2];  // whole-free spans, held, by kind
  size_t cached_bytes = 0;
  SpanList released[2];  // whole-free spans, released: read as zeroes
  SpanList large_cache;
  size_t large_cache_bytes = 0;
  int large_cache_entries = 0;
  Span* free_descriptors = nullptr;  // linked through `next`
  char* meta_next = nullptr;
  char* meta_end = nullptr;
  uint64_t held = 0;
  uint64_t returned = 0;
  uint64_t visits = 0;
};
constinit PageHeap heap;

// When the next decay pass is due (NowNs()); read by every thread's decay
// tick, written under the heap's lock. Relaxed: a late view only delays a
// pass to the next tick.
constinit std::atomic<uint64_t> next_decay_ns{UINT64_MAX};

// -----------------------------------------------------------------------------
// The abandoned list: spans whose owner exited while blocks of theirs were
// out, by class, under their own lock.
// -----------------------------------------------------------------------------

struct Abandoned {
  Lock lock;
  SpanList spans[kNumClasses];
  uint64_t swept_ns = 0;  // the clock at the last sweep (0: none yet)
};
constinit Abandoned abandoned;

// How many spans are abandoned (in all and by class: a thread short of
// spans of one class takes the lock only when there are some of that
// class), and when the next sweep is due: read
// without the lock (a thread short of pages, a decay tick), written under
// it. Relaxed: a late view only delays an adoption or a sweep.
constinit std::atomic<uint32_t> abandoned_count{0};
constinit std::atomic<uint32_t> abandoned_in[kNumClasses] = {};  // by class
constinit std::atomic<uint64_t> abandoned_sweep_ns{0};

// Central visits that take no lock of the page heap: collections of a
// thread-free list, frees pushed onto another thread's span, and visits to
// the abandoned list. One relaxed add each, on a line only those paths
// write.
alignas(64) constinit std::atomic<uint64_t> shared_visits{0};

// -----------------------------------------------------------------------------
// The thread heap: plain data, initial-exec TLS (no constructor, no
// destructor, no allocation at first use). All zero means "not yet used".
// Its address is the thread's identity as an owner of spans.
// -----------------------------------------------------------------------------

struct ClassPages {
  Span* current = nullptr;   // allocations come from here
  SpanList spares;           // whole-free spans kept aside, at most
  uint32_t spare_count = 0;  // kClass.spares[c]
  SpanList avail;            // others with free blocks
  SpanList full;             // others with none when last looked at
};

struct ThreadHeap {
  ClassPages classes[kNumClasses];
  uint64_t swept_ns = 0;    // the clock at the last sweep (or set-up): every
                            // span it owns had a block out then, or was emptied
                            // since
  uint32_t ticks_left = 0;  // calls to the next tick (0: tick at the next)
  bool armed = false;       // ArmThreadExit() done, swept_ns set
};

constinit thread_local ThreadHeap th __attribute__((tls_model("initial-exec")));

void*& NextOf(void* block) { return *static_cast<void**>(block); }
// -----------------------------------------------------------------------------
// The page heap (every function here runs with heap.lock held unless it
// says otherwise).
// -----------------------------------------------------------------------------

// EnsureMeta()
//
// Makes sure kMetaNeed bytes of metadata can be had without mapping. May
// drop the lock to map a piece (no map under a lock): call it before
// looking at anything the lock guards. False when the kernel refuses.
bool EnsureMeta() {
  while (static_cast<size_t>(heap.meta_end - heap.meta_next) < kMetaNeed) {
    heap.lock.Release();
    char* piece = static_cast<char*>(MapPages(kMetaChunk));
    heap.lock.Acquire();
    if (piece == nullptr) return false;
    if (static_cast<size_t>(heap.meta_end - heap.meta_next) >= kMetaNeed) {
      UnmapPages(piece, kMetaChunk);  // another thread refilled meanwhile
      heap.returned += kMetaChunk;
      continue;
    }
    heap.meta_next = piece;  // the old piece's tail is left unused
    heap.meta_end = piece + kMetaChunk;
    heap.held += kMetaChunk;
  }
  return true;
}

void* MetaAlloc(size_t bytes) {
  void* p = heap.meta_next;  // EnsureMeta() made room; zeroes, 64-aligned
  heap.meta_next += (bytes + 63) & ~size_t{63};
  return p;
}

Span* NewSpan() {
  Span* s = heap.free_descriptors;
  if (s != nullptr) {
    heap.free_descriptors = s->next;
  } else {
    s = static_cast<Span*>(MetaAlloc(sizeof(Span)));
  }
  memset(static_cast<void*>(s), 0, sizeof(Span));
  return s;
}

void DeleteSpan(Span* s) {
  s->next = heap.free_descriptors;
  heap.free_descriptors = s;
}

// SetPageMap()
//
// Enters `entry` for the 64 KiB units of [start, start + bytes), all in
// one leaf (callers enter at most a 1 MiB-aligned MiB). Makes the leaf
// when there is none: EnsureMeta() first.
void SetPageMap(uintptr_t start, size_t bytes, uintptr_t entry) {
  const uintptr_t unit = start >> kUnitShift;
  std::atomic<Leaf*>& slot = page_map_root[unit >> kLeafBits];
  Leaf* leaf = slot.load(std::memory_order_relaxed);
  if (leaf == nullptr) {
    leaf = static_cast<Leaf*>(MetaAlloc(sizeof(Leaf)));
    slot.store(leaf, std::memory_order_release);
  }
  const size_t units = (bytes + kSpanBytes - 1) >> kUnitShift;
  for (size_t i = 0; i < units; ++i) {
    leaf->entry[(unit + i) & ((uintptr_t{1} << kLeafBits) - 1)].store(
        entry, std::memory_order_release);
  }
}

void NoteIdle(uint64_t since) {
  const uint64_t due = since + kDecayNs;
  if (due < next_decay_ns.load(std::memory_order_relaxed)) {
    next_decay_ns.store(due, std::memory_order_relaxed);
  }
}

// TakeOldestCached()
//
// The pool's oldest whole-free spans, about `bytes` of them, while it holds
// more than kPoolSlackBytes: detached (linked through `next`), for
// ReleaseSpans() to release with no lock held.
Span* TakeOldestCached(size_t bytes) {
  Span* taken = nullptr;
  size_t got = 0;
  while (got < bytes && heap.cached_bytes > kPoolSlackBytes) {
    Span* small = heap.cached[kSmallSpan].tail;
    Span* big = heap.cached[kBigSpan].tail;
    Span* s = small == nullptr                       ? big
              : big == nullptr                       ? small
              : small->idle_since <= big->idle_since ? small
                                                     : big;
    heap.cached[KindOf(s->bytes)].Remove(s);
    heap.cached_bytes -= s->bytes;
    s->state = SpanState::kBusy;
    s->next = taken;
    taken = s;
    got += s->bytes;
  }
  return taken;
}

void FileReleased(Span* list);

// ReleaseSpans()
//
// Releases the pages of spans taken out of the pool (TakeOldestCached(),
// Decay()) with no lock held, then files them as released.
void ReleaseSpans(Span* list) {
  if (list == nullptr) return;
  for (Span* s = list; s != nullptr; s = s->next) {
    ReleasePages(reinterpret_cast<void*>(s->start), s->bytes);
  }
  heap.lock.Acquire();
  FileReleased(list);
  heap.lock.Release();
}

void FileReleased(Span* list) {
  while (list != nullptr) {
    Span* s = list;
    list = s->next;
    s->state = SpanState::kReleased;
    s->zeroed = true;
    heap.held -= s->bytes;
    heap.returned += s->bytes;
    heap.released[KindOf(s->bytes)].PushFront(s);
  }
}

// Large mappings leave in two steps too: out of the page map and the
// counters under the lock (before the kernel may hand the addresses to
// another thread's mapping), then unmapped with no lock held.
struct Unmapping {
  uintptr_t start;
  size_t bytes;
};

Unmapping ForgetLarge(Span* s) {
  SetPageMap(s->start, kSpanBytes, 0);
  heap.held -= s->bytes;
  heap.returned += s->bytes;
  const Unmapping u{s->start, s->bytes};
  DeleteSpan(s);
  return u;
}

// -----------------------------------------------------------------------------
// Spans for the classes.
// -----------------------------------------------------------------------------

// SetUpSpan()
//
// A span just taken from the pool, ours alone now: no lock needed to set
// it up for class c. A span from the pool was used before unless released
// since (`zeroed` says which).
void SetUpSpan(Span* s, int c) {
  s->size_class = static_cast<int16_t>(c);
  SetPageMap(s->start, s->bytes, EntryOf(s, c));  // its leaf is there
  s->free_list = nullptr;
  s->carve = s->start;
  s->used = 0;
  s->thread_free.store(nullptr, std::memory_order_relaxed);
}

// TakeFromPool()
//
// A whole-free span of `kind` from the pool (recently freed first, then
// released ones), or nullptr.
Span* TakeFromPool(int kind) {
  Span* s = heap.cached[kind].PopFront();
  if (s != nullptr) {
    heap.cached_bytes -= s->bytes;
  } else if ((s = heap.released[kind].PopFront()) != nullptr) {
    heap.held += s->bytes;  // taken into use again: held once more
  }
  return s;
}

// GetSpans()
//
// A span for class `c`, and up to `more_wanted` more that the pool has
// (linked onto `*more` through `next`), in one visit, no lock held on entry
// or exit: whole-free ones of its size from the pool, or one of a new
// chunk, whose other spans go to the pool (and from there to `*more`).
// Before mapping, idle spans past kPoolSlackBytes give back as much as the
// chunk takes. nullptr when the kernel refuses.
Span* GetSpans(int c, uint32_t more_wanted, Span** more) {
  const size_t span_bytes = SpanBytesOf(c);
  const int kind = KindOf(span_bytes);
  heap.lock.Acquire();
  ++heap.visits;
  Span* s = TakeFromPool(kind);
  if (s == nullptr) {
    size_t chunk = span_bytes;
    while (chunk < kMaxChunk && chunk * 8 <= heap.held) chunk *= 2;
    Span* to_release = TakeOldestCached(chunk);
    heap.lock.Release();
    ReleaseSpans(to_release);
    // Aligned to its own size: its spans are aligned to theirs, and share
    // one page-map leaf.
    void* mem = MapAlignedPages(chunk, chunk);
    if (mem == nullptr) return nullptr;
    heap.lock.Acquire();
    if (!Mappable(mem, chunk) || !EnsureMeta()) {
      heap.returned += chunk;  // mapped and unmapped: returned, never held
      heap.lock.Release();
      UnmapPages(mem, chunk);
      return nullptr;
    }
    heap.held += chunk;
    const uint64_t now = NowNs();
    const uintptr_t base = reinterpret_cast<uintptr_t>(mem);
    for (size_t off = 0; off < chunk; off += span_bytes) {
      Span* span = NewSpan();
      span->start = base + off;
      span->bytes = span_bytes;
      span->zeroed = true;  // fresh from the kernel
      SetPageMap(span->start, span_bytes, reinterpret_cast<uintptr_t>(span));
      if (off == 0) {
        s = span;
      } else {
        // Behind the recently freed spans, which are warmer.
        span->state = SpanState::kCached;
        span->idle_since = now;
        heap.cached[kind].PushBack(span);
        heap.cached_bytes += span_bytes;
      }
    }
    if (chunk > span_bytes) NoteIdle(now);
  }
  Span* extra = nullptr;
  for (uint32_t i = 0; i < more_wanted; ++i) {
    Span* m = TakeFromPool(kind);
    if (m == nullptr) break;
    m->next = extra;
    extra = m;
  }
  heap.lock.Release();
  SetUpSpan(s, c);
  for (Span* m = extra; m != nullptr; m = m->next) SetUpSpan(m, c);
  *more = extra;
  return s;
}

// PutSpans()
//
// Whole-free spans (linked through `next`) into the pool, idle since
// `since`; no lock held.
void PutSpans(Span* list, uint64_t since) {
  heap.lock.Acquire();
  ++heap.visits;
  while (list != nullptr) {
    Span* s = list;
    list = s->next;
    s->state = SpanState::kCached;
    s->zeroed = false;
    s->idle_since = since;
    heap.cached[KindOf(s->bytes)].PushFront(s);
    heap.cached_bytes += s->bytes;
  }
  NoteIdle(since);
  heap.lock.Release();
}

// -----------------------------------------------------------------------------
// Owned spans: collecting other threads' frees, finding a span with a free
// block, giving back empty ones.
// -----------------------------------------------------------------------------

size_t EndOf(const Span* s) { return s->start + s->bytes; }

bool HasRoom(const Span* s, size_t size) {
  return s->free_list != nullptr || s->carve + size <= EndOf(s);
}

// Collect()
//
// Takes the span's thread-free list whole onto its free list: the blocks
// other threads freed come back to the owner (or to the holder of the
// abandoned list's lock). A central visit when there was anything to take;
// an empty list costs one load of a line the owner does not write.
uint32_t Collect(Span* s) {
  if (s->thread_free.load(std::memory_order_relaxed) == nullptr) return 0;
  void* list = s->thread_free.exchange(nullptr, std::memory_order_acquire);
  if (list == nullptr) return 0;
  shared_visits.fetch_add(1, std::memory_order_relaxed);
  uint32_t n = 1;
  void* tail = list;
  while (NextOf(tail) != nullptr) {
    tail = NextOf(tail);
    ++n;
  }
  NextOf(tail) = s->free_list;
  s->free_list = list;
  s->used -= n;
  return n;
}

// Disown()
//
// The span leaves its owner for the pool (GiveBack()): linked onto `*list`
// through `next`.
void Disown(Span* s, Span** list) {
  s->owner.store(nullptr, std::memory_order_relaxed);
  s->state = SpanState::kBusy;
  s->next = *list;
  *list = s;
}

void Own(Span* s) {
  s->owner.store(&th, std::memory_order_relaxed);
  s->state = SpanState::kOwned;
}

// SetUp()
//
// Arms the thread-exit hook the first time this thread owns a span.
void SetUp() {
  if (!th.armed) {
    th.armed = true;
    th.swept_ns = NowNs();
    ArmThreadExit();  // ThreadExit() will give its spans back or abandon them
  }
}

// KeepSpare()
//
// A whole-free span, on no list, becomes one of class c's spares; past
// their most, the oldest go back (onto `*give`) until half are left.
void KeepSpare(int c, Span* s, Span** give) {
  ClassPages& cp = th.classes[c];
  s->place = Place::kSpare;
  cp.spares.PushFront(s);
  if (++cp.spare_count <= kClass.spares[c]) return;
  const uint32_t keep = kClass.spares[c] > 1 ? kClass.spares[c] / 2 : 1;
  while (cp.spare_count > keep) {
    Span* old = cp.spares.tail;
    cp.spares.Remove(old);
    --cp.spare_count;
    Disown(old, give);
  }
}

// Retire()
//
// An owned span that is not the current one has no block out: off its
// list, and kept as a spare (or given back, onto `*give`).
void Retire(int c, Span* s, Span** give) {
  ClassPages& cp = th.classes[c];
  if (s->place == Place::kAvail) cp.avail.Remove(s);
  if (s->place == Place::kFull) cp.full.Remove(s);
  KeepSpare(c, s, give);
}

// AfterLocalFree()
//
// A free by the owner made span s of class c whole free, or found it on the
// full list: it has a free block now.
[[gnu::noinline]] void AfterLocalFree(int c, Span* s) {
  ClassPages& cp = th.classes[c];
  if (s->place == Place::kFull) {
    cp.full.Remove(s);
    s->place = Place::kAvail;
    cp.avail.PushFront(s);
  }
  if (s->used == 0 && s != cp.current) {
    Span* give = nullptr;
    Retire(c, s, &give);
    if (give != nullptr) PutSpans(give, NowNs());
  }
}

// Adopt()
//
// An abandoned span of class c with a free block, now this thread's; the
// full ones looked at on the way are adopted too (onto the full list).
Span* Adopt(int c, size_t size) {
  if (abandoned_in[c].load(std::memory_order_relaxed) == 0) return nullptr;
  ClassPages& cp = th.classes[c];
  for (;;) {
    abandoned.lock.Acquire();
    shared_visits.fetch_add(1, std::memory_order_relaxed);
    Span* s = abandoned.spans[c].PopFront();
    if (s != nullptr) {
      abandoned_count.fetch_sub(1, std::memory_order_relaxed);
      abandoned_in[c].fetch_sub(1, std::memory_order_relaxed);
    }
    abandoned.lock.Release();
    if (s == nullptr) return nullptr;
    Own(s);
    Collect(s);
    if (HasRoom(s, size)) return s;
    s->place = Place::kFull;
    cp.full.PushFront(s);
  }
}

// NextSpan()
//
// The current span of class c has no free block: a span of this thread's
// that has one (one with free blocks, a spare, or one whose thread-free
// list has some), else an abandoned one, else a batch from the page heap
// (one central visit; it may map, with no lock held): one to use, the rest
// spares. nullptr when the kernel refuses.
[[gnu::noinline]] Span* NextSpan(int c) {
  SetUp();
  const size_t size = kClass.size[c];
  ClassPages& cp = th.classes[c];
  Span* s = cp.current;
  if (s != nullptr) {
    if (Collect(s) != 0) return s;
    s->place = Place::kFull;
    cp.full.PushFront(s);
    cp.current = nullptr;
  }
  s = cp.avail.PopFront();
  if (s == nullptr && (s = cp.spares.PopFront()) != nullptr) --cp.spare_count;
  if (s == nullptr) {
    // Other threads' frees wait on the full spans' thread-free lists.
    Span* give = nullptr;
    for (Span* f = cp.full.head; f != nullptr;) {
      Span* next = f->next;
      if (Collect(f) != 0) {
        cp.full.Remove(f);
        f->place = Place::kAvail;
        cp.avail.PushBack(f);
        if (s == nullptr) {
          s = cp.avail.PopFront();  // f: the list was empty
        } else if (f->used == 0) {
          Retire(c, f, &give);
        }
      }
      f = next;
    }
    if (give != nullptr) PutSpans(give, NowNs());
  }
  if (s == nullptr) s = Adopt(c, size);
  if (s == nullptr) {
    // A batch from the pool: half the spares' most, and this one.
    Span* more = nullptr;
    s = GetSpans(c, kClass.spares[c] / 2, &more);
    if (s == nullptr) return nullptr;
    Own(s);
    Span* unused = nullptr;    // none: the spares were empty, and these are
    while (more != nullptr) {  // at most half their most
      Span* m = more;
      more = m->next;
      Own(m);
      KeepSpare(c, m, &unused);
    }
    if (unused != nullptr) PutSpans(unused, NowNs());
  }
  s->place = Place::kCurrent;
  cp.current = s;
  return s;
}

// SweepOwn()
//
// Collects every span this thread owns; those with no block out go back to
// the pool, idle since `since` (each had a block out at the last sweep, or
// was emptied after it).
void SweepOwn(uint64_t since) {
  Span* give = nullptr;
  for (int c = 0; c < kNumClasses; ++c) {
    ClassPages& cp = th.classes[c];
    if (Span* s = cp.current; s != nullptr) {
      Collect(s);
      if (s->used == 0) {
        cp.current = nullptr;
        Disown(s, &give);
      }
    }
    while (Span* s = cp.spares.PopFront()) Disown(s, &give);
    cp.spare_count = 0;
    for (SpanList* list : {&cp.avail, &cp.full}) {
      for (Span* s = list->head; s != nullptr;) {
        Span* next = s->next;
        Collect(s);
        if (s->used == 0) {
          list->Remove(s);
          Disown(s, &give);
        } else if (s->place == Place::kFull && s->free_list != nullptr) {
          cp.full.Remove(s);
          s->place = Place::kAvail;
          cp.avail.PushBack(s);
        }
        s = next;
      }
    }
  }
  if (give != nullptr) PutSpans(give, since);
}

// SweepAbandoned()
//
// Collects the abandoned spans; those with no block out go back to the
// pool, idle since the last sweep (each had a block out then, or at its
// abandonment after it).
void SweepAbandoned(uint64_t now) {
  Span* give = nullptr;
  abandoned.lock.Acquire();
  shared_visits.fetch_add(1, std::memory_order_relaxed);
  const uint64_t since = abandoned.swept_ns;
  for (SpanList& list : abandoned.spans) {
    for (Span* s = list.head; s != nullptr;) {
      Span* next = s->next;
      Collect(s);
      if (s->used == 0) {
        list.Remove(s);
        abandoned_count.fetch_sub(1, std::memory_order_relaxed);
        abandoned_in[s->size_class].fetch_sub(1, std::memory_order_relaxed);
        Disown(s, &give);
      }
      s = next;
    }
  }
  abandoned.swept_ns = now;
  abandoned_sweep_ns.store(now + kDecayNs / 2, std::memory_order_relaxed);
  abandoned.lock.Release();
  if (give != nullptr) PutSpans(give, since);
}
// -----------------------------------------------------------------------------
// The decay (lab jemalloc_adoption's dirty_decay_ms): ticks on the
// threads' own calls.
// -----------------------------------------------------------------------------

// Decay()
//
// Releases the pool's spans and unmaps the large cache's mappings idle for
// kDecayNs. The pool is not kept in idle order (a sweep files spans with an
// older time), so the pass looks at all of it; passes are at most one per
// kDecayNs / 16.
void Decay(uint64_t now) {
  heap.lock.Acquire();
  if (now < next_decay_ns.load(std::memory_order_relaxed)) {
    heap.lock.Release();
    return;
  }
  ++heap.visits;
  uint64_t oldest = UINT64_MAX;
  Span* to_release = nullptr;
  for (SpanList& list : heap.cached) {
    for (Span* s = list.head; s != nullptr;) {
      Span* next = s->next;
      if (s->idle_since + kDecayNs <= now) {
        list.Remove(s);
        heap.cached_bytes -= s->bytes;
        s->state = SpanState::kBusy;
        s->next = to_release;
        to_release = s;
      } else if (s->idle_since < oldest) {
        oldest = s->idle_since;
      }
      s = next;
    }
  }
  Unmapping unmap[kLargeCacheEntries];
  int unmaps = 0;
  for (Span* s = heap.large_cache.head; s != nullptr;) {
    Span* next = s->next;
    if (s->idle_since + kDecayNs <= now) {
      heap.large_cache.Remove(s);
      heap.large_cache_bytes -= s->bytes;
      --heap.large_cache_entries;
      unmap[unmaps++] = ForgetLarge(s);
    } else if (s->idle_since < oldest) {
      oldest = s->idle_since;
    }
    s = next;
  }
  uint64_t due = oldest == UINT64_MAX ? UINT64_MAX : oldest + kDecayNs;
  if (due < now + kDecayNs / 16) due = now + kDecayNs / 16;
  next_decay_ns.store(due, std::memory_order_relaxed);
  heap.lock.Release();
  for (int i = 0; i < unmaps; ++i) {
    UnmapPages(reinterpret_cast<void*>(unmap[i].start), unmap[i].bytes);
  }
  ReleaseSpans(to_release);
}

// DecayTick()
//
// Every kDecayCheckOps-th call of a thread: read the clock. Once kDecayNs / 2
// has passed since the thread's last sweep, it sweeps its spans again: the
// empty ones go to the pool idle since that last sweep. So a span emptied,
// however often its thread calls, is in the pool, idle since no later than
// its last free, within kDecayNs / 2 and the next tick. The abandoned list
// is swept the same way, by whichever thread ticks when it is due.
[[gnu::noinline]] void DecayTick() {
  th.ticks_left = kDecayCheckOps;
  const uint64_t now = NowNs();
  if (th.armed && th.swept_ns + kDecayNs / 2 <= now) {
    SweepOwn(th.swept_ns);
    th.swept_ns = now;
  }
  if (abandoned_count.load(std::memory_order_relaxed) != 0 &&
      now >= abandoned_sweep_ns.load(std::memory_order_relaxed)) {
    SweepAbandoned(now);
  }
  if (now >= next_decay_ns.load(std::memory_order_relaxed)) Decay(now);
}

// CountCall()
//
// One call of this thread; every kDecayCheckOps-th ticks. The fast paths
// count down themselves and come here at 0 without ticking.
[[gnu::always_inline]] inline void CountCall() {
  if (th.ticks_left == 0 || --th.ticks_left == 0) [[unlikely]] {
    DecayTick();
  }
}

// -----------------------------------------------------------------------------
// Large blocks: a mapping each, and the cache of recent ones.
// -----------------------------------------------------------------------------

[[gnu::noinline]] void* AllocateLarge(size_t size, size_t alignment,
                                      bool zero) {
  const size_t page = PageSize();
  if (size > SIZE_MAX - page) return nullptr;  // rounding up would overflow
  const size_t bytes = size == 0 ? page : (size + page - 1) & ~(page - 1);
  if (bytes > SIZE_MAX - alignment - kSpanBytes) return nullptr;
  heap.lock.Acquire();
  ++heap.visits;
  Span* best = nullptr;
  for (Span* s = heap.large_cache.head; s != nullptr; s = s->next) {
    if (s->bytes >= bytes && s->bytes - bytes <= s->bytes / 5 &&
        s->start % alignment == 0 &&
        (best == nullptr || s->bytes < best->bytes)) {
      best = s;
    }
  }
  if (best != nullptr) {
    heap.large_cache.Remove(best);
    heap.large_cache_bytes -= best->bytes;
    --heap.large_cache_entries;
    best->state = SpanState::kLarge;
    heap.lock.Release();
    void* p = reinterpret_cast<void*>(best->start);
    if (zero) memset(p, 0, size);  // recycled: its old bytes are there
    return p;
  }
  // Idle small spans make room for the new mapping (kPoolSlackBytes).
  Span* to_release = TakeOldestCached(bytes);
  heap.lock.Release();
  ReleaseSpans(to_release);
  // On a 64 KiB unit of its own, for the page map.
  void* p =
      MapAlignedPages(bytes, alignment > kSpanBytes ? alignment : kSpanBytes);
  if (p == nullptr) return nullptr;
  heap.lock.Acquire();
  if (!Mappable(p, bytes) || !EnsureMeta()) {
    heap.returned += bytes;  // mapped and unmapped at once: never held
    heap.lock.Release();
    UnmapPages(p, bytes);
    return nullptr;
  }
  Span* s = NewSpan();
  s->start = reinterpret_cast<uintptr_t>(p);
  s->bytes = bytes;
  s->size_class = kLargeClass;
  s->state = SpanState::kLarge;
  SetPageMap(s->start, kSpanBytes, reinterpret_cast<uintptr_t>(s));
  heap.held += bytes;
  heap.lock.Release();
  return p;  // fresh from the kernel: zeroes already
}

[[gnu::noinline]] void FreeLarge(Span* s) {
  Unmapping unmap[kLargeCacheEntries + 1];
  int unmaps = 0;
  heap.lock.Acquire();
  ++heap.visits;
  if (s->bytes <= kLargeCacheMaxBlock) {
    s->state = SpanState::kLargeCached;
    s->idle_since = NowNs();
    heap.large_cache.PushFront(s);
    heap.large_cache_bytes += s->bytes;
    ++heap.large_cache_entries;
    NoteIdle(s->idle_since);
    while (heap.large_cache_entries > kLargeCacheEntries ||
           heap.large_cache_bytes > kLargeCacheBytes) {
      Span* old = heap.large_cache.tail;
      heap.large_cache.Remove(old);
      heap.large_cache_bytes -= old->bytes;
      --heap.large_cache_entries;
      unmap[unmaps++] = ForgetLarge(old);
    }
  } else {
    unmap[unmaps++] = ForgetLarge(s);
  }
  heap.lock.Release();
  for (int i = 0; i < unmaps; ++i) {
    UnmapPages(reinterpret_cast<void*>(unmap[i].start), unmap[i].bytes);
  }
}

// -----------------------------------------------------------------------------
// Small blocks: the owner's pages.
// -----------------------------------------------------------------------------

[[gnu::always_inline]] inline void* AllocateSmall(int c, size_t size,
                                                  bool zero) {
  CountCall();
  const size_t block_size = kClass.size[c];
  Span* s = th.classes[c].current;
  if (s == nullptr || !HasRoom(s, block_size)) {
    s = NextSpan(c);
    if (s == nullptr) return nullptr;
  }
  void* block = s->free_list;
  bool fresh = false;  // carved from memory that reads as zeroes
  if (block != nullptr) {
    s->free_list = NextOf(block);
  } else {
    block = reinterpret_cast<void*>(s->carve);
    s->carve += block_size;
    fresh = s->zeroed;
  }
  ++s->used;
  if (zero && !fresh) memset(block, 0, size);
  return block;
}

// RemoteFree()
//
// A block of a span this thread does not own: onto the span's thread-free
// list, whoever owns it (an abandoned span's too). A central visit.
void RemoteFree(Span* s, void* block) {
  void* head = s->thread_free.load(std::memory_order_relaxed);
  do {
    NextOf(block) = head;
  } while (!s->thread_free.compare_exchange_weak(
      head, block, std::memory_order_release, std::memory_order_relaxed));
  shared_visits.fetch_add(1, std::memory_order_relaxed);
}

// AllocateSlow(), FreeSlow()
//
// Everything but the commonest case: the fast paths below test for that
// case only, and call these in tail position, so that they need no stack
// frame of their own.
[[gnu::noinline]] void* AllocateSlow(size_t size, size_t alignment, bool zero) {
  if (alignment <= kMinAlignment && size <= kSmallMax) {
    return AllocateSmall(ClassOf(size), size, zero);
  }
  if ((alignment & (alignment - 1)) != 0) return nullptr;  // not a power of 2
  if (alignment < kMinAlignment) alignment = kMinAlignment;
  if (size <= kSmallMax) {
    for (int c = ClassOf(size); c < kNumClasses; ++c) {
      if (kClass.alignment[c] >= alignment) return AllocateSmall(c, size, zero);
    }
  }
  CountCall();
  return AllocateLarge(size, alignment, zero);
}

[[gnu::noinline]] void FreeSlow(void* block, Span* s) {
  CountCall();
  const int c = s->size_class;
  if (c == kLargeClass) return FreeLarge(s);
  if (s->owner.load(std::memory_order_relaxed) != &th) {
    return RemoteFree(s, block);
  }
  NextOf(block) = s->free_list;
  s->free_list = block;
  if (--s->used == 0 || s->place == Place::kFull) AfterLocalFree(c, s);
}

}  // namespace

// The fast path: a block off the free list of this thread's current span of
// its class, or onto its own span's free list; one counter of this thread's
// for the decay's tick. No lock, no atomic read-modify-write, no line
// another thread writes.
void* Allocate(size_t size, size_t alignment, bool zero) {
  if (size <= kLookupMax && alignment <= kMinAlignment && !zero) [[likely]] {
    ThreadHeap& t = th;
    Span* s = t.classes[kSmallClass.of[(size + 15) / 16]].current;
    if (s != nullptr) [[likely]] {
      void* block = s->free_list;
      if (block != nullptr && --t.ticks_left != 0) [[likely]] {
        s->free_list = NextOf(block);
        ++s->used;
        return block;
      }
    }
  }
  return AllocateSlow(size, alignment, zero);
}

void Free(void* block) {
  const uintptr_t entry = LookupEntry(block);  // 0 for nullptr, not ours
  if ((entry & kClassBits) != 0) [[likely]] {
    ThreadHeap& t = th;
    Span* s = SpanOf(entry);
    if (s->owner.load(std::memory_order_relaxed) == &t && --t.ticks_left != 0)
        [[likely]] {
      NextOf(block) = s->free_list;
      s->free_list = block;
      if (--s->used != 0 && s->place != Place::kFull) [[likely]] {
        return;
      }
      return AfterLocalFree(static_cast<int>((entry & kClassBits) - 1), s);
    }
  }
  if (entry == 0) return;  // nullptr, or not from here
  return FreeSlow(block, SpanOf(entry));
}

size_t UsableSize(const void* block) {
  const uintptr_t entry = LookupEntry(block);
  if (entry == 0) return 0;
  const uintptr_t code = entry & kClassBits;
  return code == 0 ? SpanOf(entry)->bytes : kClass.size[code - 1];
}

// Every span this thread owns: the whole-free ones to the pool, the others
// (blocks of theirs out, in other threads' hands) to the abandoned list.
void ThreadExit() {
  Span* give = nullptr;
  Span* left = nullptr;  // to abandon, linked through `next`
  auto leave = [&](Span* s) {
    Collect(s);
    if (s->used == 0) {
      Disown(s, &give);
    } else {
      s->owner.store(nullptr, std::memory_order_relaxed);
      s->state = SpanState::kAbandoned;
      s->next = left;
      left = s;
    }
  };
  for (ClassPages& cp : th.classes) {
    if (cp.current != nullptr) leave(cp.current);
    while (Span* s = cp.spares.PopFront()) leave(s);
    for (SpanList* list : {&cp.avail, &cp.full}) {
      while (Span* s = list->PopFront()) leave(s);
    }
  }
  th = ThreadHeap{};  // a later call on this thread sets up and arms again
  if (give != nullptr) PutSpans(give, NowNs());
  if (left != nullptr) {
    abandoned.lock.Acquire();
    shared_visits.fetch_add(1, std::memory_order_relaxed);
    while (left != nullptr) {
      Span* s = left;
      left = s->next;
      abandoned.spans[s->size_class].PushFront(s);
      abandoned_count.fetch_add(1, std::memory_order_relaxed);
      abandoned_in[s->size_class].fetch_add(1, std::memory_order_relaxed);
    }
    abandoned.lock.Release();
  }
}

// Every lock, in one order; the child's only thread is the one that took
// them all, so it may release them as the parent does. Spans owned by
// threads the child does not have stay theirs: the child's frees into them
// go onto their thread-free lists, as to any span it does not own.
void ForkPrepare() {
  abandoned.lock.Acquire();
  heap.lock.Acquire();
}

void ForkParent() {
  heap.lock.Release();
  abandoned.lock.Release();
}

void ForkChild() { ForkParent(); }

Counters ReadCounters() {
  Counters out;
  heap.lock.Acquire();
  out.central_visits = heap.visits;
  out.bytes_held = heap.held;
  out.bytes_returned = heap.returned;
  heap.lock.Release();
  out.central_visits += shared_visits.load(std::memory_order_relaxed);
  return out;
}

}  // namespace allocator_design
