// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: internal/page_heap.h
// -----------------------------------------------------------------------------
//
// The page heap of the reference allocator (../task.cc), which
// thread_owned_pages.cc uses unchanged: everything below the blocks of a
// class. It provides
//
//   numbers         the chunk sizes, the pool's slack and the metadata piece
//   SpanList        a doubly linked list of span descriptors
//   page map        address -> span and class, two levels (LookupEntry(),
//                   SpanOf(), EntryOf(), SetPageMap(), Mappable())
//   PageHeap heap   under one lock: the span pool (whole-free spans, held
//                   or released, by span size), the cache of large mappings,
//                   metadata from the page source (EnsureMeta(), NewSpan(),
//                   DeleteSpan()) and the byte counters
//   idle release    TakeOldestCached(), ReleaseSpans(): the pool's oldest
//                   spans past kPoolSlackBytes, released with no lock held;
//                   TrimPool() at a thread's exit
//   large mappings  ForgetLarge(), UnmapForgotten(), and FreeLarge() into
//                   the cache of recent ones; TrimLargeCache() at a
//                   thread's exit
//   decay           Decay(): the pool's spans and the cache's mappings idle
//                   for kDecayNs given back, the next pass due when the
//                   oldest left is
//   fork            RecoverInFlight(): in a forked child, what the parent's
//                   other threads were releasing or unmapping back in the
//                   heap's hands
//
// It is written once here so that the reference and the design that claims
// to share its plumbing share it in fact: a fix or a mutant of the page
// heap is one place, not two copies that may drift.
//
// Not a header of the ordinary kind: a piece of an allocator's source,
// included by exactly one translation unit per allocator (the reference's
// task.cc, and thread_owned_pages.cc), inside that allocator's
// `allocator_design` anonymous namespace, so that each library keeps its
// own page map, pool and counters, with internal linkage, as if they were
// written in it. Internal to solutions/allocator_design: nothing else may
// include it. Where the designs differ, the includer says, before the
// include:
//
//   - internal/size_classes.h (and through it task.h, whose kDecayNs the
//     decay reads), <atomic>, <string.h>, lock.h and pages.h;
//   - enum class SpanState with at least kCached, kReleased, kBusy,
//     kUnmapping and kLargeCached;
//   - struct Span, 64-byte aligned, with at least `next`, `prev`, `start`,
//     `bytes`, `idle_since`, `state` and `zeroed`;
//   - the large cache's bounds: kLargeCacheEntries, kLargeCacheMaxBlock,
//     kLargeCacheBytes and kLargeCacheIdleBytes (what TrimLargeCache(), at
//     a thread's exit, leaves).
//
// Example:
//
//   namespace allocator_design {
//   namespace {
//   #include "solutions/allocator_design/internal/size_classes.h"
//   enum class SpanState : uint8_t { ... };
//   struct Span { ... };
//   constexpr int kLargeCacheEntries = 32;  // and its three other bounds
//   #include "solutions/allocator_design/internal/page_heap.h"
//   // GetSpans(), AllocateLarge() and the rest of the design
//   }  // namespace
//   }  // namespace allocator_design

#ifndef SOLUTIONS_ALLOCATOR_DESIGN_INTERNAL_PAGE_HEAP_H_
#define SOLUTIONS_ALLOCATOR_DESIGN_INTERNAL_PAGE_HEAP_H_

// -----------------------------------------------------------------------------
// The page heap's numbers.
// -----------------------------------------------------------------------------

// Chunks of spans: from one span (64 KiB to 512 KiB) to 1 MiB, doubled
// while eight of them fit in what is already held, so at most a quarter of
// it (or one span, when little is held).
constexpr size_t kMinChunk = kSpanBytes;
constexpr size_t kMaxChunk = kBigSpanBytes;

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

// SpanList
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
// learns the class from the entry (the reference then reads one word of
// the descriptor, its owner). Entries are written
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
// and the byte counters.
// -----------------------------------------------------------------------------

struct PageHeap {
  Lock lock;
  SpanList cached[kSpanKinds];  // whole-free spans, held, by size
  size_t cached_bytes = 0;
  SpanList released[kSpanKinds];  // whole-free spans, released: zeroes
  SpanList large_cache;
  size_t large_cache_bytes = 0;
  int large_cache_entries = 0;
  Span* free_descriptors = nullptr;  // linked through `next`
  // Spans out of the heap while a thread gives their memory back with no
  // lock held, so that a forked child, which has none of the parent's
  // other threads, finds them (RecoverInFlight()): the heads of the chains
  // being released (each linked through its spans' `next`, which only its
  // releasing thread reads; the heads through their `prev`), and the large
  // mappings being unmapped.
  Span* releasing = nullptr;
  SpanList unmapping;
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

// TakeFromPool()
//
// A whole-free span of `kind` from the pool: a recently freed one first,
// then a released one; nullptr when it has none. Spans of one size never
// serve another (no split, so no merge): a chunk's spans go back to the
// pool as they came.
Span* TakeFromPool(int kind) {
  Span* s = heap.cached[kind].PopFront();
  if (s != nullptr) {
    heap.cached_bytes -= s->bytes;
  } else if ((s = heap.released[kind].PopFront()) != nullptr) {
    heap.held += s->bytes;  // taken into use again: held once more
  }
  return s;
}

void NoteIdle(uint64_t since) {
  const uint64_t due = since + kDecayNs;
  if (due < next_decay_ns.load(std::memory_order_relaxed)) {
    next_decay_ns.store(due, std::memory_order_relaxed);
  }
}

// RecordReleasing()
//
// A chain of spans about to be released with no lock held (linked through
// `next`, state kBusy) entered in heap.releasing, where a forked child
// finds it; FileReleased() takes it out.
void RecordReleasing(Span* chain) {
  if (chain == nullptr) return;
  chain->prev = heap.releasing;
  heap.releasing = chain;
}

// TakeOldestCached()
//
// The pool's oldest whole-free spans, about `bytes` of them, while it holds
// more than kPoolSlackBytes: detached (linked through `next`, recorded in
// heap.releasing), for ReleaseSpans() to release with no lock held.
Span* TakeOldestCached(size_t bytes) {
  Span* taken = nullptr;
  size_t got = 0;
  while (got < bytes && heap.cached_bytes > kPoolSlackBytes) {
    Span* s = nullptr;
    for (SpanList& list : heap.cached) {
      if (list.tail != nullptr &&
          (s == nullptr || list.tail->idle_since < s->idle_since)) {
        s = list.tail;
      }
    }
    heap.cached[KindOf(s->bytes)].Remove(s);
    heap.cached_bytes -= s->bytes;
    s->state = SpanState::kBusy;
    s->next = taken;
    taken = s;
    got += s->bytes;
  }
  RecordReleasing(taken);
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
  for (Span** p = &heap.releasing; *p != nullptr; p = &(*p)->prev) {
    if (*p == list) {
      *p = list->prev;  // a few chains at most: one per releasing thread
      break;
    }
  }
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

// TrimPool()
//
// At a thread's exit: the pool's oldest whole-free spans past
// kPoolSlackBytes released, so that what the thread's spans held goes back
// now, not at the decay or the next map (promise 3: with the clock standing
// still, a thread that used a span of every class left them all in the
// pool, and 400 threads live at once a span each). No lock held on entry
// or exit.
void TrimPool() {
  heap.lock.Acquire();
  ++heap.visits;
  Span* excess = TakeOldestCached(SIZE_MAX);
  heap.lock.Release();
  ReleaseSpans(excess);
}

// Large mappings leave in two steps too: out of the page map and the
// counters under the lock (before the kernel may hand the addresses to
// another thread's mapping), then unmapped with no lock held
// (UnmapForgotten()). The descriptor waits in heap.unmapping meanwhile
// (kBusy until its unmap starts, kUnmapping after), so that a child forked
// then unmaps what the parent's thread had not yet begun to
// (RecoverInFlight()).
Span* ForgetLarge(Span* s) {
  SetPageMap(s->start, kSpanBytes, 0);
  heap.held -= s->bytes;
  heap.returned += s->bytes;
  s->state = SpanState::kBusy;
  heap.unmapping.PushFront(s);
  return s;
}

// UnmapForgotten()
//
// Unmaps the mappings of `n` descriptors from ForgetLarge() with no lock
// held, each marked kUnmapping as its unmap starts, then takes the lock
// once to delete the descriptors. No lock held on entry or exit.
void UnmapForgotten(Span* const* spans, int n) {
  if (n == 0) return;
  for (int i = 0; i < n; ++i) {
    spans[i]->state = SpanState::kUnmapping;  // for a child forked from now
    UnmapPages(reinterpret_cast<void*>(spans[i]->start), spans[i]->bytes);
  }
  heap.lock.Acquire();
  for (int i = 0; i < n; ++i) {
    heap.unmapping.Remove(spans[i]);
    DeleteSpan(spans[i]);
  }
  heap.lock.Release();
}

// FreeLarge()
//
// A large block freed: into the cache of recent mappings when it is small
// enough, the oldest ones unmapped while the cache is past
// kLargeCacheEntries or `keep_bytes` (at most kLargeCacheBytes: a design
// may keep less for some frees); otherwise unmapped at once. No lock held
// on entry or exit.
[[gnu::noinline]] void FreeLarge(Span* s, size_t keep_bytes) {
  Span* unmap[kLargeCacheEntries + 1];
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
           heap.large_cache_bytes > keep_bytes) {
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
  UnmapForgotten(unmap, unmaps);
}

// TrimLargeCache()
//
// At a thread's exit: the cache of large mappings unmapped, oldest first,
// down to kLargeCacheIdleBytes, however many large blocks are still live.
// Threads that churned large blocks of any size and exited leave at most
// that (promise 3), while a program whose threads run on keeps its whole
// cache (kLargeCacheBytes) for the next blocks of their sizes. Keeping as
// many bytes as the large blocks still live, as this did, left 25.7 MB
// beyond 24 MiB of them where promise 3 allows 16 MiB
// (DesignThreadChurn.ThreadsThatChurnLargeBlocksBesideLiveOnesLeaveLittleHeld).
// No lock held on entry or exit.
void TrimLargeCache() {
  Span* unmap[kLargeCacheEntries];
  int unmaps = 0;
  heap.lock.Acquire();
  ++heap.visits;
  while (heap.large_cache_bytes > kLargeCacheIdleBytes) {
    Span* old = heap.large_cache.tail;
    heap.large_cache.Remove(old);
    heap.large_cache_bytes -= old->bytes;
    --heap.large_cache_entries;
    unmap[unmaps++] = ForgetLarge(old);
  }
  heap.lock.Release();
  UnmapForgotten(unmap, unmaps);
}

// Decay()
//
// Releases the pool's spans and unmaps the large cache's mappings idle for
// kDecayNs. The pool is not kept in idle order (a thread files spans idle
// since an older time), so the pass looks at all of it; the next pass is
// due exactly when the oldest span or mapping left has been idle kDecayNs.
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
  Span* unmap[kLargeCacheEntries];
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
  // Due when the oldest left is: a wave freed just after the one this pass
  // gave back goes kDecayNs after its own free, not a while after this pass.
  const uint64_t due = oldest == UINT64_MAX ? UINT64_MAX : oldest + kDecayNs;
  next_decay_ns.store(due, std::memory_order_relaxed);
  RecordReleasing(to_release);
  heap.lock.Release();
  UnmapForgotten(unmap, unmaps);
  ReleaseSpans(to_release);
}

// RecoverInFlight()
//
// In a forked child, every lock held by its one thread (ForkChild()): what
// the parent's other threads had taken out of the heap to give back with
// no lock held, and the child has no thread to finish. Without it those
// spans stay out of the pool for good, held and never decayed (review
// rv5b: 43 MB held in the child after the decay). Spans being released go
// back into the pool, whole free and held (some of their pages may be
// released already: held over-counts them until the decay releases them
// again), idle from now, so the decay gives them back kDecayNs later.
// Mappings waiting to be unmapped, already out of the counters, are
// unmapped here; but not one whose unmap had started (kUnmapping): the page
// source may have taken it out of its table, or the kernel unmapped it and
// handed its addresses to another mapping, and the child cannot tell, so
// it leaves it as it is, at most one mapping per thread that was unmapping
// (held by the page source's count, not by the child's).
void RecoverInFlight() {
  const uint64_t now = NowNs();
  while (Span* chain = heap.releasing) {
    heap.releasing = chain->prev;
    for (Span* s = chain; s != nullptr;) {
      Span* next = s->next;
      s->state = SpanState::kCached;
      s->idle_since = now;
      heap.cached[KindOf(s->bytes)].PushFront(s);
      heap.cached_bytes += s->bytes;
      s = next;
    }
    NoteIdle(now);
  }
  while (Span* s = heap.unmapping.PopFront()) {
    if (s->state != SpanState::kUnmapping) {
      UnmapPages(reinterpret_cast<void*>(s->start), s->bytes);
    }
    DeleteSpan(s);
  }
}

#endif  // SOLUTIONS_ALLOCATOR_DESIGN_INTERNAL_PAGE_HEAP_H_
