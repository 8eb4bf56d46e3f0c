// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: task.cc (the reference)
// -----------------------------------------------------------------------------
//
// Lab allocator_design: the reference allocator, the design the seven labs
// before this one argued for, small enough to read top to bottom. Each
// choice below names the lab whose measurement made it.
//
//   size classes    52 sizes from 16 bytes to 256 KiB (16-byte steps to
//                   128, then four per doubling): a request above 128 bytes
//                   is rounded up by at most 25% (below, by at most 15
//                   bytes: 17 takes 32), and its class is a table look-up
//                   (to 1 KiB) or two shifts away, with no search.
//   spans           runs of one class, carved lazily (a block is first
//                   written when it is first handed out: lab first_call's
//                   first-touch faults are paid by the caller that uses the
//                   memory, not by a refill that may not), 64 KiB for classes
//                   to 16 KiB and above the smallest power of two that holds
//                   two blocks (64 KiB to 512 KiB: a span of a large class
//                   is pinned by one block in a cache, so it is no larger
//                   than it needs to be), from chunks of at most a quarter
//                   of what is held, so that a chunk's unused spans stay a
//                   small share.
//   page map        a two-level table from any address to its span and
//                   class: Free() needs no header before the block, and a
//                   block of any alignment is found the same way. The fast
//                   path reads one word of the span, its owner (below), on
//                   a line that only refills and drains write.
//   thread caches   per class, a LIFO list of freed blocks and a run of
//                   never-used ones, bounded (twice the batch), refilled and
//                   drained a batch at a time under the class's lock: no
//                   lock, no atomic read-modify-write and no cache line
//                   another thread writes on the fast path (lab
//                   counter_contention: a shared line costs more than the
//                   whole allocation), and at most one central visit per
//                   batch (task.h's promise 1). The whole cache is bounded
//                   in bytes too, as tcmalloc's thread caches are: past
//                   kThreadCacheBytes, the classes the thread has stopped
//                   allocating from go back (Scavenge()).
//   own spans       a span refills one thread only, its owner, from the
//                   refill that first takes it until it is whole free again
//                   or its owner exits: a line never holds blocks live in two
//                   threads (task.h's promise 6; lab counter_contention: two
//                   threads that write one line run no faster than one).
//                   Refilled to whichever thread asked next, blocks of 16
//                   bytes that one thread drained came back to the other
//                   four to a line, beside the first one's live ones.
//   cross-thread    a block of a span the freeing thread does not own (
//   frees           another thread's, or one whose thread exited) is never
//                   reused by it: it waits on a list of its class until
//                   the thread's lists could keep kRemoteSpanBytes of spans
//                   in use, or all threads' kAllRemoteSpanBytes, then goes
//                   back to its span (FreeRemote()), as mimalloc's free()
//                   puts a block of another thread's page on that page's
//                   own list (src/free.c, the free of a block not local to
//                   the thread: the page's xthread_free). Lab
//                   jemalloc_adoption's msgsend moves blocks from producers
//                   to consumers a span's worth at a time, and consumers
//                   that then go quiet, however many, keep at most
//                   kAllRemoteSpanBytes of spans from going back (promise 2:
//                   only the thread that allocated a block may keep it
//                   waiting). jemalloc's and glibc's thread caches keep another
//                   thread's blocks for reuse instead: only the cache's own
//                   thread can empty it.
//   span pool       a span whose blocks are all free goes back to a pool
//                   that every class of its span size draws from, and idle
//                   spans past kPoolSlackBytes are released when new memory
//                   is mapped or released spans are taken back into use
//                   (promise 4: a producer moving from size to size), and
//                   at a thread's exit (promise 3: 400 threads live at
//                   once left a span each): 64-byte blocks freed come back
//                   as 4 KiB blocks, or make room for 100 KiB ones (the
//                   'phases' trace, promise 5).
//   large blocks    over 256 KiB, a mapping of their own (lab
//                   mmap_threshold: large blocks in the heap pin it; mapped
//                   ones go back whole), and a cache of recently freed
//                   mappings, up to 32 MiB each and in all: a freed block
//                   serves the next request it can hold, its pages already
//                   touched, as glibc's dynamic threshold keeps a freed
//                   block of up to 32 MiB in its heap for the next one (lab
//                   mmap_threshold) and tcmalloc's page heap a freed span;
//                   a request none holds unmaps the smaller ones it has
//                   outgrown, and the decay what stays unused. Churning large
//                   blocks (lab jemalloc_adoption's large_blocks) is then
//                   neither two system calls nor a fault per page each.
//                   Below 256 KiB, lab musl_churn's churn (1 to 256 KiB)
//                   lives in spans and makes none.
//   decay           memory idle for kDecayNs goes back to the kernel (lab
//                   jemalloc_adoption: jemalloc's dirty_decay_ms trade), by
//                   the threads' own calls: each counts its calls and reads
//                   the clock every kDecayCheckOps-th; no timer thread. A
//                   thread's own cache is flushed every kDecayNs / 2, its
//                   blocks idle since the flush before (promise 2 counts
//                   from the free, not from the thread's last call).
//   counters        central visits counted under the lock each visit takes
//                   anyway (a line that is already the visitor's), bytes
//                   held and returned under the page heap's lock: nothing
//                   counted on the fast path.
//
// The accounting rule, exact: bytes_held is what the page source mapped,
// less what it unmapped or released, plus what was released and then taken
// into use again (a released span reused). bytes_returned is what was
// unmapped plus what was released. Nothing here unmaps a released range.
//
// Locks (lock.h's, as task.h's rules say), always taken in this order: a
// class's lock, then the page heap's. No lock is held across a call that
// maps memory (a thread stopped in the kernel, or at the suite's map gate,
// stops nobody else).
//
// Example:
//
//   void* p = allocator_design::Allocate(100, 16, /*zero=*/false);
//   // class 112: the thread's cache hands out a block, or refills a batch
//   allocator_design::Free(p);  // back to this thread's cache
//   void* q = allocator_design::Allocate(4 << 20, 16, /*zero=*/true);
//   // its own mapping (or a recently freed one that holds it, zeroed)
//   allocator_design::Free(q);  // into the cache of recent mappings

#include "labs/allocator_design/task.h"

#include <string.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/thread_exit.h"

namespace allocator_design {
namespace {

// The size classes, their spans' two sizes and the fast path's look-up,
// ClassOf() (internal/size_classes.h, which thread_owned_pages.cc shares).
#include "solutions/allocator_design/internal/size_classes.h"

// A batch: what a refill brings and a drain takes. It starts at two blocks and
// doubles with use up to the class's most, so that a class a thread uses once
// costs a couple of blocks, not a batch. A cache holds at most 2 * batch - 1
// freed blocks and a drain keeps batch - 1 of them, so that the thread meets
// the central pool at most once every `batch` calls (a refill's batch is
// `batch` allocations; from a drain, `batch` allocations empty the cache and
// `batch` frees fill it). Promise 1 counts locks, and a visit may take more
// than one: a refill that needs spans takes its class's and the page heap's
// (TakeHeldSpans(), inside its class's), or three when the pool has no held
// span of its size (its class's; the page heap's, with its class's let go, as
// it may map; its class's again); a drain that empties a span, its class's and
// the page heap's. The most is three times kOpsPerCentralVisit for the small
// classes (kMaxBatch; twice took 1,480 locks in 20,000 calls of 4 KiB blocks in
// bursts of 1,000, where 1,250 were allowed, when a refill took three; four
// times held 36.8 MB for the 'phases' trace's 16.9 MB live, 0.459 where promise
// 5 asks 0.5), and for the large ones the blocks of the least size the class
// holds that make 2 * kBytesPerCentralVisit, and one more: the four locks of a
// batch allocated and freed in bursts, and room for a refill that maps, which
// takes a third (without the one more, a producer of 8,193-byte messages whose
// consumer keeps a window live took all 250 locks allowed, and 253 in 3 runs of
// 20: DesignFastPath.AProducerWhoseConsumerKeepsAWindowLiveIsPrivate; 242 to
// 246 with it). What a thread keeps of a class is
// the rest of its last batch, and the spans that rest pins; a producer of
// messages of random sizes uses every class at once, and keeps that much of
// each (promise 4). Batches of 3 * kBytesPerCentralVisit and one more block,
// which refills of three locks needed, held 19.3 MB for messages in bursts of
// one size where 16 MiB are allowed, and 16.1 MB for messages of sizes drawn
// uniformly (DesignMessagePassing.MessagesOfRandomSizesStayBounded, "burst" and
// "uniform"); 11.7 and 12.0 MB since.
constexpr uint32_t kFirstBatch = 2;
static_assert(kFirstBatch >= 2, "Drain() keeps batch - 1 blocks: one or more");
constexpr uint32_t kMaxBatch = 3 * kOpsPerCentralVisit;
constexpr uint32_t MaxBatchOf(int c) {
  const size_t least = c == 0 ? 1 : ClassSize(c - 1) + 1;  // asked for
  size_t by_bytes = (2 * kBytesPerCentralVisit + least - 1) / least + 1;
  if (by_bytes < kFirstBatch) by_bytes = kFirstBatch;
  return by_bytes >= kMaxBatch ? kMaxBatch : static_cast<uint32_t>(by_bytes);
}

// kThreadCacheBytes
//
// When a thread's cache, over all its classes, holds more than this, the
// classes it has not allocated from for a whole tick (kDecayCheckOps calls)
// go back (Scavenge()): a thread that has moved on to other sizes keeps
// none of the old ones (promise 4). Before other threads' blocks went to
// remote lists (kRemoteSpanBytes), a consumer of messages of every size
// from 16 KiB to 256 KiB kept batch - 1 blocks of each in its cache, and
// their spans (36 MB held in all by the reference before this bound,
// against promise 4's 16 MiB). A thread that cycles through many classes
// allocates from each, and keeps them: its cache may pass this (promise 1).
constexpr size_t kThreadCacheBytes = size_t{1} << 20;

// kRemoteSpanBytes, kAllRemoteSpanBytes
//
// The most bytes of spans that other threads' blocks, freed and waiting on
// remote lists (FreeRemote()), may keep in use: one thread's lists, and all
// threads' together. Promise 2 lets blocks wait only for a running thread
// that allocated them, and a thread that makes no more calls adds nothing
// to what may stay held. A consumer that freed an exited producer's blocks
// into its cache and went quiet kept a block in each of 330 spans, 20.7 MB
// held after another thread's checking calls where 4 MiB are allowed
// (DesignDecay.IdleMemoryGoesBackWhileItsFreeingThreadRunsOnWithoutCalling):
// only a cache's own thread can empty it, and a quiet one never does. A
// bound for each thread's lists alone let 16 quiet consumers keep 7.8 to 14.1
// MB
// (DesignDecay.IdleMemoryGoesBackWhileManyFreeingThreadsRunOnWithoutCalling).
// All threads' together, at 1 MiB, let one quiet thread's lists (a main
// thread that freed its workers' blocks, then waits) take the whole
// allowance, and a busy consumer went back to its spans at every span it
// met: compare_reference's msgsend made 0.265 central visits a message
// where it made 0.135 to 0.155. At 1 MiB a thread and 2 MiB in all, quiet
// threads keep at most 2 MiB of spans from going back, and a busy one
// keeps 1 MiB beside one quiet one.
constexpr size_t kRemoteSpanBytes = size_t{1} << 20;
constexpr size_t kAllRemoteSpanBytes = size_t{2} << 20;

// The bytes that every thread's remote lists count (each thread's own
// count is its remote_span_bytes): after a free that counts, at most
// kAllRemoteSpanBytes, or that thread's lists go back (FreeRemote()). A
// relaxed atomic, changed once per span a list counts, never on the fast
// paths.
constinit std::atomic<uint64_t> remote_span_bytes_all{0};

struct ClassInfo {
  uint32_t size[kNumClasses];
  uint32_t alignment[kNumClasses];
  uint32_t max_batch[kNumClasses];
};
constexpr ClassInfo MakeClassInfo() {
  ClassInfo info{};
  for (int c = 0; c < kNumClasses; ++c) {
    info.size[c] = static_cast<uint32_t>(ClassSize(c));
    info.alignment[c] = static_cast<uint32_t>(ClassAlignment(c));
    info.max_batch[c] = MaxBatchOf(c);
  }
  return info;
}
constexpr ClassInfo kClass = MakeClassInfo();

// -----------------------------------------------------------------------------
// The design's numbers.
// -----------------------------------------------------------------------------

// The cache of recently freed large mappings: at most this many, of at
// most this size each and in all, each unmapped by the decay once idle for
// kDecayNs (promise 2), the oldest first when a free would pass a bound.
// The most recent one of the smallest size that holds a request serves it,
// whatever its size beyond (its UsableSize() is its whole mapping): a block
// churned at varying sizes settles on mappings of its largest size, whose
// pages are touched once, as glibc 2.36's free() raises the mmap threshold
// to a freed mapped chunk's size up to DEFAULT_MMAP_THRESHOLD_MAX (32 MiB
// on 64-bit systems), and the trim threshold to twice that, so that the
// next blocks of that size come from, and go back to, its heap
// (malloc/malloc.c, __libc_free); gperftools 2.10's page heap serves a
// request from the smallest free span that holds it (src/page_heap.cc,
// PageHeap::AllocLarge()). Unlike glibc's heap, a mapping is not split;
// instead, a request that no cached mapping holds unmaps the cached ones
// smaller than it, which the program's blocks have outgrown.
constexpr int kLargeCacheEntries = 32;
constexpr size_t kLargeCacheMaxBlock = size_t{32} << 20;
constexpr size_t kLargeCacheBytes = size_t{32} << 20;
// And at a thread's exit (TrimLargeCache()), at most this many, however
// many large blocks are live (promise 3: threads that churned blocks of
// any size and exited leave at most kThreadChurnHeldBytes held, this
// beside what the small classes leave).
constexpr size_t kLargeCacheIdleBytes = size_t{4} << 20;

// -----------------------------------------------------------------------------
// Spans and their lists.
// -----------------------------------------------------------------------------

enum class SpanState : uint8_t {
  kPartial,    // on its class's partial list: a free block or room to carve
  kFull,       // small, every block handed out: on its class's full list
  kCached,     // whole free, held, in the pool
  kReleased,   // whole free, released, in the pool
  kBusy,       // between lists: being released, or a large mapping to unmap
  kUnmapping,  // a large mapping out of the heap, its unmap under way
  kLarge,      // a live large block
  kLargeCached,
};

constexpr int16_t kLargeClass = -1;

// Span
//
// One descriptor per span, and per large mapping: 64 bytes, kept in
// the metadata pieces. A small span's descriptor lives as long as the
// process (its pages are released, never unmapped); a large one's is
// recycled when its mapping goes.
struct Span {
  Span* next;
  Span* prev;
  uintptr_t start;
  size_t bytes;
  void* free_list;  // small: freed blocks, linked through their 1st word
  uintptr_t carve;  // small: blocks from here to the end never handed out
  union {
    uint64_t idle_since;  // pool and large cache: when it was last freed
    const void* owner;    // small, partial or full: the thread it refills
                          // (its cache's address), or nullptr: none yet;
  };                      // a live large block: the thread that asked
  uint32_t live;          // small: blocks handed out (to caches or callers)
  int16_t size_class;     // kLargeClass for a large mapping
  SpanState state;
  bool zeroed;  // small: the blocks from `carve` on read as zeroes
};
static_assert(sizeof(Span) == 64, "a descriptor is one cache line");

// The page map, the span pool with its chunks and idle release, the large
// mappings with their cache, metadata from the page source, the decay of
// the pool and the byte counters, under the page heap's lock
// (internal/page_heap.h, which thread_owned_pages.cc shares).
#include "solutions/allocator_design/internal/page_heap.h"

static_assert(alignof(Span) <= 64 && sizeof(Span) == 64);

Span* LookupSpan(const void* p) { return SpanOf(LookupEntry(p)); }

// -----------------------------------------------------------------------------
// The central pool: per class, the spans with free blocks, under the
// class's own lock (threads using different sizes never meet).
// -----------------------------------------------------------------------------

struct alignas(64) Central {
  Lock lock;
  SpanList partial;  // spans with a free block or room to carve
  SpanList full;     // spans with every block handed out
  uint64_t visits = 0;
};
constinit Central central[kNumClasses];

// -----------------------------------------------------------------------------
// The thread cache: plain data, initial-exec TLS (no constructor, no
// destructor, no allocation at first use). All zero means "not yet used".
// -----------------------------------------------------------------------------

struct ClassCache {
  void* list;          // freed blocks, LIFO, linked through their first word
  char* run;           // never-used blocks from here ...
  uint32_t room;       // frees before a drain: limit - blocks on `list`
  uint32_t limit;      // the most blocks on `list`; 0: class not set up
  uint16_t run_left;   // ... this many of them
  uint16_t batch;      // blocks per refill or drain, now
  bool run_zeroed;     // the run's blocks read as zeroes
  uint32_t allocated;  // the thread's tick count at its last allocation
  void* remote;        // other threads' blocks freed here (FreeRemote()),
                       // never reused, linked through their first word
  const Span* remote_span;  // the span of the last block put on `remote`
};

struct ThreadCache {
  ClassCache classes[kNumClasses];
  uint64_t cached_bytes;  // of the blocks on every class's list and run
  uint64_t cache_limit;   // Scavenge() when cached_bytes passes it
  uint64_t flushed_ns;    // the clock when this cache was last flushed (or set
                          // up): every block in it was freed since
  uint64_t remote_span_bytes;  // of the spans of the blocks on the `remote`
                               // lists, each counted at least once
  uint32_t ticks_left;         // calls to the next tick (0: tick at the next)
  uint32_t ticks;              // ticks so far, from 2 (a class never allocated
                               // from reads 0: two ticks ago at least)
  bool armed;                  // ArmThreadExit() done, flushed_ns set
  bool freed_large;            // ArmThreadExit() done: a large block freed, the
                               // large cache to trim at its exit
};

constinit thread_local ThreadCache tc
    __attribute__((tls_model("initial-exec")));

void*& NextOf(void* block) { return *static_cast<void**>(block); }

// OwnerOf(), SetOwner()
//
// A span's owner is written under its class's lock, and read without it by
// Free() on any thread that holds one of its blocks (which keeps the span
// from being reused meanwhile): a relaxed atomic access both ways.
const void* OwnerOf(const Span* s) {
  return __atomic_load_n(&s->owner, __ATOMIC_RELAXED);
}

void SetOwner(Span* s, const void* owner) {
  __atomic_store_n(&s->owner, owner, __ATOMIC_RELAXED);
}

// -----------------------------------------------------------------------------
// Spans for the classes.
// -----------------------------------------------------------------------------

// SetUpSpan()
//
// Span `s`, whole free and ours alone now, set up for class `c`: no lock
// needed. A span from the pool was used before unless released since
// (`zeroed` says which).
void SetUpSpan(Span* s, int c) {
  s->size_class = static_cast<int16_t>(c);
  SetPageMap(s->start, s->bytes, EntryOf(s, c));  // its leaf is there
  s->free_list = nullptr;
  s->carve = s->start;
  s->live = 0;
  s->owner = nullptr;
  s->state = SpanState::kPartial;
}

// GetSpans()
//
// Up to `count` spans for class `c` (at least one), linked through `next`,
// no lock held on entry or exit, the heap's taken once: whole-free ones of
// its size from the pool, or one of a new chunk, whose other spans go to
// the pool. Before mapping, idle spans past kPoolSlackBytes give back as
// much as the chunk takes; and so do they after released spans are taken
// back into use, which holds them again as a map would (promise 4). Spans
// of one size never serve another, and a program that moves from size to
// size (a producer of messages of each class above 8 KiB in turn, 800 of
// a size, then the next, least first) takes each size's released spans
// back without mapping: what every size needed at its most stayed in the
// pool, 17.4 MB held in all where 256 KiB were live (9.0 MB since). A
// thread whose sizes repeat finds held spans of them in the pool once warm,
// and releases nothing then (promise 1). nullptr when the kernel refuses. A
// refill that needs several spans takes them in one visit, not one visit
// each (promise 1 counts every lock taken).
Span* GetSpans(int c, uint32_t count) {
  const size_t span_bytes = SpanBytesOf(c);
  const int kind = KindOf(span_bytes);
  heap.lock.Acquire();
  Span* s = TakeFromPool(kind);
  Span* reused_release = nullptr;  // idle spans to release for reused ones
  if (s != nullptr) {
    size_t reused = s->state == SpanState::kReleased ? s->bytes : 0;
    s->next = nullptr;
    for (Span* more; count > 1 && (more = TakeFromPool(kind)) != nullptr;
         --count) {
      if (more->state == SpanState::kReleased) reused += more->bytes;
      more->next = s;
      s = more;
    }
    if (reused != 0) reused_release = TakeOldestCached(reused);
  } else {
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
  heap.lock.Release();
  ReleaseSpans(reused_release);
  for (Span* x = s; x != nullptr; x = x->next) SetUpSpan(x, c);
  return s;
}

// TakeHeldSpans()
//
// Up to `count` spans for class c, linked through `next`, from the pool's
// held ones of its size, under the page heap's lock taken inside the
// class's (the locks' order): nullptr when the pool holds none, and then
// GetSpans(), with no lock held, may take released ones or map. A refill
// that finds its spans here takes two locks, not three (promise 1), and so
// a batch of a large class needs to move only two visits' worth of blocks
// (MaxBatchOf()).
Span* TakeHeldSpans(int c, uint32_t count) {
  const int kind = KindOf(SpanBytesOf(c));
  heap.lock.Acquire();
  Span* s = nullptr;
  for (; count > 0 && heap.cached[kind].head != nullptr; --count) {
    Span* more = TakeFromPool(kind);
    more->next = s;
    s = more;
  }
  heap.lock.Release();
  for (Span* x = s; x != nullptr; x = x->next) SetUpSpan(x, c);
  return s;
}

// PutSpans()
//
// Whole-free spans (linked through `next`) into the pool, idle since
// `since`; no lock held.
void PutSpans(Span* list, uint64_t since) {
  heap.lock.Acquire();
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
// Refill and drain: the thread cache meets the central pool, a batch at a
// time.
// -----------------------------------------------------------------------------

// Arm()
//
// The thread's first call that keeps something of its own (a class cache,
// another thread's blocks on a remote list): its ticks begin, and its exit
// (ThreadExit()) gives back what it keeps.
void Arm() {
  tc.armed = true;
  tc.flushed_ns = NowNs();
  tc.cache_limit = kThreadCacheBytes;
  if (tc.ticks < 2) tc.ticks = 2;
  if (!tc.freed_large) ArmThreadExit();  // ThreadExit() gives this back
}

void SetUp(ClassCache& cc) {
  if (!tc.armed) Arm();
  if (cc.limit == 0) {  // and so `list` is empty
    cc.batch = kFirstBatch;
    cc.limit = 2u * cc.batch - 1;
    cc.room = cc.limit;
  }
}

void GrowBatch(ClassCache& cc, int c) {
  const uint32_t most = kClass.max_batch[c];
  if (cc.batch < most) {
    cc.batch =
        static_cast<uint16_t>(cc.batch * 2u < most ? cc.batch * 2u : most);
    cc.room += 2u * cc.batch - 1 - cc.limit;
    cc.limit = 2u * cc.batch - 1;
  }
}

// ReturnBlocks()
//
// Gives `list` (linked blocks of class c) and a run of `run_left` unused
// blocks from `run` back to their spans; spans left whole free go to the
// pool, idle since `since`. One central visit.
void ReturnBlocks(int c, void* list, char* run, uint32_t run_left,
                  uint64_t since) {
  const size_t size = kClass.size[c];
  Central& cl = central[c];
  Span* emptied = nullptr;
  cl.lock.Acquire();
  ++cl.visits;
  auto give_back = [&](Span* s, uint32_t n) {
    s->live -= n;
    if (s->state == SpanState::kFull) {
      cl.full.Remove(s);
      s->state = SpanState::kPartial;
      cl.partial.PushFront(s);
    }
    if (s->live == 0) {  // every block back: the span leaves its class
      cl.partial.Remove(s);
      s->state = SpanState::kBusy;
      s->next = emptied;
      emptied = s;
    }
  };
  while (list != nullptr) {
    void* block = list;
    list = NextOf(block);
    Span* s = LookupSpan(block);
    NextOf(block) = s->free_list;
    s->free_list = block;
    give_back(s, 1);
  }
  if (run_left != 0) {
    Span* s = LookupSpan(run);
    const uintptr_t run_end =
        reinterpret_cast<uintptr_t>(run) + uintptr_t{run_left} * size;
    if (s->carve == run_end) {
      s->carve = reinterpret_cast<uintptr_t>(run);  // untouched: uncarve
    } else {
      for (uint32_t i = 0; i < run_left; ++i) {
        void* block = run + i * size;
        NextOf(block) = s->free_list;
        s->free_list = block;
      }
    }
    give_back(s, run_left);
  }
  cl.lock.Release();
  if (emptied != nullptr) PutSpans(emptied, since == 0 ? NowNs() : since);
}

// FlushClass(), FlushCache()
//
// Everything this thread's cache holds of class c, or of every class, back
// to the central pool; spans left whole free count as idle since `since`
// (0: now).
void FlushClass(int c, uint64_t since) {
  ClassCache& cc = tc.classes[c];
  if (cc.list == nullptr && cc.run_left == 0) return;
  tc.cached_bytes -=
      (uint64_t{cc.limit - cc.room} + cc.run_left) * kClass.size[c];
  ReturnBlocks(c, cc.list, cc.run, cc.run_left, since);
  cc.list = nullptr;
  cc.room = cc.limit;
  cc.run = nullptr;
  cc.run_left = 0;
}

// FlushRemote()
//
// Every other thread's block this thread freed (FreeRemote()) back to its
// span; spans left whole free count as idle since `since` (0: now).
void FlushRemote(uint64_t since) {
  for (int c = 0; c < kNumClasses; ++c) {
    ClassCache& cc = tc.classes[c];
    if (cc.remote == nullptr) continue;
    ReturnBlocks(c, cc.remote, nullptr, 0, since);
    cc.remote = nullptr;
    cc.remote_span = nullptr;
  }
  if (tc.remote_span_bytes == 0) return;  // no write to the shared count
  remote_span_bytes_all.fetch_sub(tc.remote_span_bytes,
                                  std::memory_order_relaxed);
  tc.remote_span_bytes = 0;
}

void FlushCache(uint64_t since) {
  for (int c = 0; c < kNumClasses; ++c) FlushClass(c, since);
  FlushRemote(since);
}

// Scavenge()
//
// A free or a refill of class `c` finds the cache past its limit: the
// classes this thread has not allocated from for a whole tick at least
// (kDecayCheckOps calls) give their blocks back (a thread that has moved
// on to other sizes, within two ticks: promise 4; other threads' blocks
// never come here, FreeRemote()), and the next scavenge is due when what is
// left has doubled, or at kThreadCacheBytes. A thread that cycles through many
// classes allocates from each within a tick and keeps them all (promise
// 1): a window of bytes instead of calls (a class idle since the last
// scavenge) gave back, in a thread cycling through the 33 classes from 4
// KiB to 256 KiB, classes it was about to use again, over and over, at
// some orders of the suite's tests (199,997 central visits in 200,000
// calls). The blocks were freed since the last flush: idle since then, as
// DecayTick() files them.
[[gnu::noinline]] void Scavenge(int c) {
  for (int k = 0; k < kNumClasses; ++k) {
    ClassCache& cc = tc.classes[k];
    if (k != c && cc.allocated + 2 <= tc.ticks) FlushClass(k, tc.flushed_ns);
  }
  const uint64_t next = 2 * tc.cached_bytes;
  tc.cache_limit = next > kThreadCacheBytes ? next : kThreadCacheBytes;
}

// OwnedSpan()
//
// A span of `cl` with a free block or room to carve that `me` may refill
// from (its lock held): one `me` owns already, else one nobody owns, which
// becomes `me`'s; nullptr when there is neither. A span another thread
// owns is never taken: its free blocks sit on lines beside that thread's
// live ones (task.h's promise 6).
Span* OwnedSpan(Central& cl, const void* me) {
  Span* unowned = nullptr;
  for (Span* s = cl.partial.head; s != nullptr; s = s->next) {
    if (s->owner == me) return s;
    if (s->owner == nullptr && unowned == nullptr) unowned = s;
  }
  if (unowned != nullptr) SetOwner(unowned, me);
  return unowned;
}

// Refill()
//
// The cache of class c is empty: bring a batch from the spans this thread
// owns, or takes (freed blocks first, then never-used ones as a run), and
// hand out one; `*fresh` when it reads as zeroes.
[[gnu::noinline]] void* Refill(int c, bool* fresh) {
  ClassCache& cc = tc.classes[c];
  SetUp(cc);
  const uint32_t want = cc.batch;
  GrowBatch(cc, c);
  const size_t size = kClass.size[c];
  Central& cl = central[c];
  void* list = nullptr;
  uint32_t got = 0;
  cl.lock.Acquire();
  ++cl.visits;
  while (got < want) {
    Span* s = OwnedSpan(cl, &tc);
    if (s == nullptr) {
      // As many spans as the rest of the batch takes, in one visit.
      const uint32_t per_span = static_cast<uint32_t>(SpanBytesOf(c) / size);
      const uint32_t spans_wanted = (want - got + per_span - 1) / per_span;
      Span* spans = TakeHeldSpans(c, spans_wanted);
      if (spans == nullptr) {  // the pool has none held: it may map
        cl.lock.Release();
        spans = GetSpans(c, spans_wanted);
        cl.lock.Acquire();
      }
      if (spans == nullptr) break;
      while (spans != nullptr) {
        s = spans;
        spans = s->next;
        s->owner = &tc;
        cl.partial.PushFront(s);
      }
    }
    uint32_t n = 0;
    while (got + n < want && s->free_list != nullptr) {
      void* block = s->free_list;
      s->free_list = NextOf(block);
      NextOf(block) = list;
      list = block;
      ++n;
    }
    const uintptr_t end = s->start + s->bytes;
    if (got + n < want && s->carve + size <= end) {
      uint32_t room = static_cast<uint32_t>((end - s->carve) / size);
      if (room > want - got - n) room = want - got - n;
      if (got + n == 0) {  // the whole refill as one run: nothing written
        cc.run = reinterpret_cast<char*>(s->carve);
        cc.run_left = static_cast<uint16_t>(room);
        cc.run_zeroed = s->zeroed;
      } else {
        for (uint32_t i = 0; i < room; ++i) {
          void* block = reinterpret_cast<void*>(s->carve + i * size);
          NextOf(block) = list;
          list = block;
        }
      }
      s->carve += room * size;
      n += room;
    }
    s->live += n;
    got += n;
    if (s->free_list == nullptr && s->carve + size > end) {
      cl.partial.Remove(s);
      s->state = SpanState::kFull;
      cl.full.PushFront(s);
    }
  }
  cl.lock.Release();
  if (got == 0) return nullptr;
  tc.cached_bytes += uint64_t{got - 1} * size;  // one is handed out
  if (tc.cached_bytes > tc.cache_limit) Scavenge(c);
  cc.list = list;
  cc.room = cc.limit - (got - cc.run_left);  // limit >= batch >= got
  if (list != nullptr) {
    cc.list = NextOf(list);
    ++cc.room;
    *fresh = false;
    return list;
  }
  *fresh = cc.run_zeroed;
  --cc.run_left;
  void* block = cc.run;
  cc.run += size;
  return block;
}

// Drain()
//
// A free finds the cache of class c full (no room): keep the `batch` - 1
// most recently freed blocks (warm), give the older ones back.
[[gnu::noinline]] void Drain(int c) {
  ClassCache& cc = tc.classes[c];
  if (cc.limit == 0) {  // not set up yet (owning a span took a refill)
    SetUp(cc);
    return;
  }
  // Less than `limit`, and at least 1: a batch is never below kFirstBatch.
  const uint32_t keep = cc.batch - 1u;
  void* last = cc.list;
  for (uint32_t i = 1; i < keep; ++i) last = NextOf(last);
  void* old = NextOf(last);
  NextOf(last) = nullptr;
  tc.cached_bytes -= uint64_t{cc.limit - keep} * kClass.size[c];
  cc.room = cc.limit - keep;
  GrowBatch(cc, c);
  ReturnBlocks(c, old, nullptr, 0, 0);
}

// DisownSpans()
//
// The spans of `cl` (its lock held) that `me` owns (`keep`: that any other
// thread owns) become nobody's, for any thread to refill from: `me` exits
// (its cache is back), or is a forked child's only thread.
void DisownSpans(Central& cl, const void* me, bool keep) {
  for (SpanList* list : {&cl.partial, &cl.full}) {
    for (Span* s = list->head; s != nullptr; s = s->next) {
      if ((s->owner == me) != keep) SetOwner(s, nullptr);
    }
  }
}

// FreeRemote()
//
// A block of class c from span `s`, which this thread does not own: another
// thread's, or one whose thread has exited. It goes on the class's `remote`
// list, not for reuse here, its span counted (at its class's first block
// from it, and again after a block of its class from another span: a
// consumer of one producer's messages, which come a span of each size at a
// time, counts each span once) in this thread's count and in all threads'.
// When this thread's lists could keep more than kRemoteSpanBytes of spans
// in use, or all threads' more than kAllRemoteSpanBytes, this thread's
// lists go back to their spans; they go back at its next flush too (a
// tick's, its exit's), idle since the last flush, as the cache's blocks
// are: each was freed after it. A thread keeps a count only while the
// total is within kAllRemoteSpanBytes, so quiet consumers, however many,
// keep at most that of spans from going back; a busy one of messages of
// many sizes visits each size's lock once per 16 spans of 64 KiB it meets
// (promise 1 does not count a consumer's visits), more often while quiet
// ones keep more than half the allowance.
[[gnu::noinline]] void FreeRemote(void* block, const Span* s, int c) {
  if (!tc.armed) Arm();  // the thread's exit gives these back
  ClassCache& cc = tc.classes[c];
  NextOf(block) = cc.remote;
  cc.remote = block;
  if (s != cc.remote_span) {
    cc.remote_span = s;
    tc.remote_span_bytes += s->bytes;
    const uint64_t all =
        remote_span_bytes_all.fetch_add(s->bytes, std::memory_order_relaxed) +
        s->bytes;
    if (tc.remote_span_bytes > kRemoteSpanBytes || all > kAllRemoteSpanBytes) {
      FlushRemote(tc.flushed_ns);
    }
  }
}

// -----------------------------------------------------------------------------
// The decay (lab jemalloc_adoption's dirty_decay_ms): ticks on the
// threads' own calls.
// -----------------------------------------------------------------------------

// The pass itself, Decay(), is the page heap's (internal/page_heap.h).

// DecayTick()
//
// Every kDecayCheckOps-th call of a thread: read the clock. Once kDecayNs / 2
// has passed since the thread's cache was last flushed, it is flushed
// again, its blocks idle since that last flush (each was freed after it):
// so a block that sits in a cache, however often its thread calls, is in
// the pool, idle since no later than its free, within kDecayNs / 2 and the
// next tick. Counting idle time from the last tick instead would re-stamp
// the cache as freed now at every tick, and a thread that keeps calling
// would keep what it freed long ago (promise 2). A busy thread pays a
// refill per class twice a second: nothing, beside kDecayNs.
[[gnu::noinline]] void DecayTick() {
  tc.ticks_left = kDecayCheckOps;
  ++tc.ticks;
  const uint64_t now = NowNs();
  if (tc.armed && tc.flushed_ns + kDecayNs / 2 <= now) {
    FlushCache(tc.flushed_ns);
    tc.flushed_ns = now;
  }
  if (now >= next_decay_ns.load(std::memory_order_relaxed)) Decay(now);
}

// CountCall()
//
// One call of this thread; every kDecayCheckOps-th ticks. The fast paths
// count down themselves and come here at 0 without ticking.
[[gnu::always_inline]] inline void CountCall() {
  if (tc.ticks_left == 0 || --tc.ticks_left == 0) [[unlikely]] {
    DecayTick();
  }
}

// -----------------------------------------------------------------------------
// Large blocks: a mapping each, and the cache of recent ones.
// -----------------------------------------------------------------------------

// A freed one goes into the cache through FreeLarge() (internal/page_heap.h).

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
    if (s->bytes >= bytes && s->start % alignment == 0 &&
        (best == nullptr || s->bytes < best->bytes)) {
      best = s;
    }
  }
  if (best != nullptr) {
    heap.large_cache.Remove(best);
    heap.large_cache_bytes -= best->bytes;
    --heap.large_cache_entries;
    best->owner = &tc;  // the thread whose free may keep it cached
    best->state = SpanState::kLarge;
    heap.lock.Release();
    void* p = reinterpret_cast<void*>(best->start);
    if (zero) memset(p, 0, size);  // recycled: its old bytes are there
    return p;
  }
  // No cached mapping holds it: the program's large blocks have outgrown
  // the cached ones, which go back now rather than at the decay (a block
  // grown by realloc would otherwise keep each earlier copy for kDecayNs).
  Span* outgrown[kLargeCacheEntries];
  int outgrown_count = 0;
  for (Span* s = heap.large_cache.head; s != nullptr;) {
    Span* next = s->next;
    if (s->bytes < bytes) {
      heap.large_cache.Remove(s);
      heap.large_cache_bytes -= s->bytes;
      --heap.large_cache_entries;
      outgrown[outgrown_count++] = ForgetLarge(s);
    }
    s = next;
  }
  // Idle small spans make room for the new mapping (kPoolSlackBytes).
  Span* to_release = TakeOldestCached(bytes);
  heap.lock.Release();
  UnmapForgotten(outgrown, outgrown_count);
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
  s->owner = &tc;
  SetPageMap(s->start, kSpanBytes, reinterpret_cast<uintptr_t>(s));
  heap.held += bytes;
  heap.lock.Release();
  return p;  // fresh from the kernel: zeroes already
}

// -----------------------------------------------------------------------------
// The fast path.
// -----------------------------------------------------------------------------

[[gnu::always_inline]] inline void* AllocateSmall(int c, size_t size,
                                                  bool zero) {
  CountCall();
  ClassCache& cc = tc.classes[c];
  cc.allocated = tc.ticks;
  void* block = cc.list;
  if (block != nullptr) [[likely]] {
    cc.list = NextOf(block);
    ++cc.room;
    tc.cached_bytes -= kClass.size[c];
    if (zero) memset(block, 0, size);  // recycled
    return block;
  }
  bool fresh = false;  // from a run that reads as zeroes
  if (cc.run_left != 0) {
    --cc.run_left;
    tc.cached_bytes -= kClass.size[c];
    block = cc.run;
    cc.run += kClass.size[c];
    fresh = cc.run_zeroed;
  } else {
    block = Refill(c, &fresh);
    if (block == nullptr) return nullptr;
  }
  if (zero && !fresh) memset(block, 0, size);
  return block;
}

// AllocateSlow(), FreeOwn(), FreeOther()
//
// Everything but the commonest case: the fast paths below test for that
// case only, and call these in tail position, so that they need no stack
// frame of their own. Free() has read a small block's span owner already:
// FreeOwn() takes a block of a span this thread owns, FreeOther() a large
// block (whose owner it reads) or a small one of a span another thread
// owns, or nobody (its owner exited).
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

[[gnu::noinline]] void FreeOwn(void* block, int c) {
  CountCall();
  ClassCache& cc = tc.classes[c];
  if (cc.room == 0) Drain(c);  // makes room (or sets the class up)
  NextOf(block) = cc.list;
  cc.list = block;
  --cc.room;
  tc.cached_bytes += kClass.size[c];
  if (tc.cached_bytes > tc.cache_limit) Scavenge(c);
}

[[gnu::noinline]] void FreeOther(void* block, Span* s) {
  CountCall();
  const int c = s->size_class;
  if (c == kLargeClass) {
    if (!tc.freed_large) {  // its exit trims the cache this block goes into
      if (!tc.armed) ArmThreadExit();
      tc.freed_large = true;
    }
    // Another thread's block (a thread that may have exited, leaving it to
    // this one) keeps the cache within kLargeCacheIdleBytes, as that
    // thread's exit would: threads that allocated 24 MiB of blocks of 4 MiB
    // each, handed them over and exited left them all cached, 25.7 MB
    // beyond the blocks still live where promise 3 allows 16 MiB
    // (DesignThreadChurn.ThreadsThatChurnLargeBlocksBesideLiveOnesLeaveLittleHeld).
    return FreeLarge(
        s, OwnerOf(s) == &tc ? kLargeCacheBytes : kLargeCacheIdleBytes);
  }
  return FreeRemote(block, s, c);
}

}  // namespace

// The fast path: a block off this thread's list for its class, or onto it;
// one counter of this thread's for the decay's tick. No lock, no atomic
// read-modify-write, no line another thread writes at each call (a free
// reads its span's owner, on a line only refills and drains write).
void* Allocate(size_t size, size_t alignment, bool zero) {
  if (size <= kLookupMax && alignment <= kMinAlignment && !zero) [[likely]] {
    ThreadCache& t = tc;
    const int c = kSmallClass.of[(size + 15) / 16];
    ClassCache& cc = t.classes[c];
    void* block = cc.list;
    if (block != nullptr && --t.ticks_left != 0) [[likely]] {
      cc.list = NextOf(block);
      ++cc.room;
      cc.allocated = t.ticks;
      t.cached_bytes -= kClass.size[c];
      return block;
    }
  }
  return AllocateSlow(size, alignment, zero);
}

void Free(void* block) {
  const uintptr_t entry = LookupEntry(block);  // 0 for nullptr, not ours
  const uintptr_t code = entry & kClassBits;
  if (code != 0 && OwnerOf(SpanOf(entry)) == &tc) [[likely]] {
    ThreadCache& t = tc;
    ClassCache& cc = t.classes[code - 1];
    const uint64_t cached = t.cached_bytes + kClass.size[code - 1];
    if (cc.room != 0 && cached <= t.cache_limit && --t.ticks_left != 0)
        [[likely]] {
      NextOf(block) = cc.list;
      cc.list = block;
      --cc.room;
      t.cached_bytes = cached;
      return;
    }
    return FreeOwn(block, static_cast<int>(code - 1));
  }
  if (entry == 0) return;  // nullptr, or not from here
  return FreeOther(block, SpanOf(entry));
}

size_t UsableSize(const void* block) {
  const uintptr_t entry = LookupEntry(block);
  if (entry == 0) return 0;
  const uintptr_t code = entry & kClassBits;
  return code == 0 ? SpanOf(entry)->bytes : kClass.size[code - 1];
}

// Its cache goes back idle since its last flush, as DecayTick() files it:
// each block in it was freed after that flush, perhaps long before this
// exit (promise 2 counts idle time from the free, not from the exit).
void ThreadExit() {
  FlushCache(tc.armed ? tc.flushed_ns : 0);
  for (int c = 0; c < kNumClasses; ++c) {
    if (tc.classes[c].limit == 0) continue;  // never refilled: owns none
    central[c].lock.Acquire();
    DisownSpans(central[c], &tc, /*keep=*/false);
    central[c].lock.Release();
  }
  for (ClassCache& cc : tc.classes) cc = ClassCache{};
  tc.armed = false;  // a later call on this thread sets up and arms again
  TrimPool();
  if (tc.freed_large) {
    tc.freed_large = false;
    TrimLargeCache();
  }
}

// Every lock, in one order; the child's only thread is the one that took
// them all, so it may release them as the parent does.
void ForkPrepare() {
  for (Central& cl : central) cl.lock.Acquire();
  heap.lock.Acquire();
}

void ForkParent() {
  heap.lock.Release();
  for (int c = kNumClasses - 1; c >= 0; --c) central[c].lock.Release();
}

// The child's one thread: spans of the parent's other threads are nobody's,
// and what they were releasing or unmapping at the fork comes back to the
// heap (RecoverInFlight()): no thread of the child would finish it.
void ForkChild() {
  for (Central& cl : central) DisownSpans(cl, &tc, /*keep=*/true);
  // The parent's other threads' remote lists are not here: their blocks
  // stay in use (ForkChild()'s promise), and their count goes.
  remote_span_bytes_all.store(tc.remote_span_bytes, std::memory_order_relaxed);
  RecoverInFlight();
  ForkParent();
}

Counters ReadCounters() {
  Counters out;
  for (Central& cl : central) {
    cl.lock.Acquire();
    out.central_visits += cl.visits;
    cl.lock.Release();
  }
  heap.lock.Acquire();
  out.central_visits += heap.visits;
  out.bytes_held = heap.held;
  out.bytes_returned = heap.returned;
  heap.lock.Release();
  return out;
}

}  // namespace allocator_design
