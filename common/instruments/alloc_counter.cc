// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The counting allocator: every C allocation function and every replaceable
// global operator new and delete of C++20, each counting then forwarding to
// the next definition in the symbol search order.
//
// Forwarding. This library is linked into the executable (see BUILD), which
// comes first in the search order, so its malloc is the process's malloc:
// libc's own internal calls (strdup, fopen), libstdc++'s and ld.so's all
// arrive here. `dlsym(RTLD_NEXT, "malloc")` finds the definition that would
// have served them otherwise: an LD_PRELOADed allocator if there is one,
// else glibc's. The one trap is the bootstrap: dlsym may itself call calloc
// (for its error state) before we know where calloc is. Those calls, and
// only those (a thread-local flag marks the lookup), are served from a small
// static arena; free() recognises its addresses and ignores them.
//
// The per-thread mode has to keep three promises at once:
//   - an allocation writes only memory its own thread owns (no locked
//     instruction, no shared cache line: that is the whole point of it);
//   - TotalAllocations() stays exact after threads exit;
//   - the bookkeeping never recurses into itself, although the pthread calls
//     it makes may call malloc.
// So each thread's record lives in memory of the counter's own (mapped
// pages, a cache line per record, never freed), and the thread keeps only a
// pointer to it in trivially destructible thread-local storage (valid for as
// long as the thread runs, with no C++ destructor ordering to trip over). A
// record is linked into the list of all records once, when it is made,
// under a constant-initialized mutex; a thread takes one on its first count
// (a retired one if any is free), and a pthread key destructor retires it:
// folds its counts into the retired totals, zeroes it and frees it. Key
// destructors run after the C++ thread_local destructors, so allocations
// those destructors make are still counted per thread; the rare allocation
// after retirement goes straight to the retired totals. A key's destructor
// is not sure to run: glibc's __nptl_deallocate_tsd
// (nptl/nptl_deallocate_tsd.c, glibc 2.34 to 2.36) runs them in rounds, each
// in key order, and stops after PTHREAD_DESTRUCTOR_ITERATIONS (4), so a
// thread whose first count comes in the last round, from the destructor of
// a key made after this file's, is never retired. Its record then keeps its
// counts for good, one record lost; a record kept in the thread's own
// storage would instead be linked again by the next thread given that
// storage, and the list would point to itself.

#include "common/instruments/alloc_counter.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/instruments/clock.h"
#include "common/stats/stats.h"

// The sanitizers that bring their own malloc. Their runtimes must see every
// allocation from the first one on and keep their own metadata per block:
// a malloc defined here, even one forwarding to theirs, kills the process
// before main (tried with GCC 12). So under them this library does not
// define the C functions, and counts them through the runtime's own hooks
// where those see every form (see the header).
#if defined(__SANITIZE_THREAD__)
#define ALLOCLAB_SANITIZER_MALLOC 1
#define ALLOCLAB_SANITIZER_HOOKS 0
#elif defined(__SANITIZE_ADDRESS__)
#define ALLOCLAB_SANITIZER_MALLOC 1
#define ALLOCLAB_SANITIZER_HOOKS 1
#else  // GCC is the course's one compiler: no clang __has_feature spelling
#define ALLOCLAB_SANITIZER_MALLOC 0
#define ALLOCLAB_SANITIZER_HOOKS 0
#endif
#define ALLOCLAB_COUNT_MALLOC (!ALLOCLAB_SANITIZER_MALLOC)

namespace alloclab {
namespace {

// -----------------------------------------------------------------------------
// The counters
// -----------------------------------------------------------------------------

// One thread's counters, alone in a cache line. They are atomics only so
// that TotalAllocations() may read them from another thread; the owner
// updates them with a plain load and store, never a read-modify-write. Only
// the owner writes the line: the thread that makes a record links it, and
// the thread that retires it frees it; the next owner only takes it.
struct alignas(64) ThreadRecord {
  std::atomic<uint64_t> allocations;
  std::atomic<uint64_t> deallocations;
  ThreadRecord* next;       // in g_records, set once when the record is made
  ThreadRecord* next_free;  // in g_free_records, while the record is there
};

// What a thread keeps of its record.
struct ThreadHold {
  ThreadRecord* record;
  // kRegistering covers the pthread calls of the first count, which may
  // allocate themselves. kRetired also stands for a thread that could get no
  // record (no memory for one): it counts in the retired totals.
  enum State : unsigned char { kNew, kRegistering, kLinked, kRetired } state;
};

// All of these are constant-initialized, so they work for allocations made
// before this file's (or any file's) dynamic initializers have run.
constinit std::atomic<CountingMode> g_mode{CountingMode::kPerThread};
constinit std::atomic<const AllocationCounter*> g_custom{nullptr};
// The shared mode's two counters, each on a line of its own, as a program
// with one global counter would have them.
alignas(64) constinit std::atomic<uint64_t> g_shared_allocations{0};
alignas(64) constinit std::atomic<uint64_t> g_shared_deallocations{0};

// Guards the list of records, the free ones and the retired totals, so that
// a thread exiting while another sums the counters is counted exactly once.
constinit std::mutex g_list_mutex;
constinit ThreadRecord* g_records = nullptr;       // every record ever made
constinit ThreadRecord* g_free_records = nullptr;  // retired ones
constinit uint64_t g_retired_allocations = 0;
constinit uint64_t g_retired_deallocations = 0;
// The rest of the last mapped chunk of records.
constinit char* g_chunk_next = nullptr;
constinit char* g_chunk_end = nullptr;

// Records are mapped a chunk at a time: malloc is what they count.
constexpr size_t kChunkBytes = 64 * 1024;
static_assert(kChunkBytes % sizeof(ThreadRecord) == 0);

// Zero-initialized, trivially destructible: no TLS init wrapper and no
// destructor runs for it, so it can be used at any point of a thread's life.
// initial-exec: the executable's static TLS block, never a lazily allocated
// one (which would call malloc from inside malloc).
constinit thread_local ThreadHold t_hold
    __attribute__((tls_model("initial-exec"))) = {};
// Set while this thread runs the custom counter, so that an allocation the
// counter makes is counted per thread instead of recursing.
constinit thread_local bool t_in_custom
    __attribute__((tls_model("initial-exec"))) = false;

pthread_key_t g_exit_key;
pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;

// Called by glibc at thread exit, on the exiting thread (never for the main
// thread, whose record stays live until the process ends).
void RetireRecord(void* arg) {
  ThreadHold& hold = t_hold;
  if (hold.state != ThreadHold::kLinked || hold.record != arg) return;
  ThreadRecord& record = *hold.record;
  std::lock_guard<std::mutex> lock(g_list_mutex);
  g_retired_allocations += record.allocations.load(std::memory_order_relaxed);
  g_retired_deallocations +=
      record.deallocations.load(std::memory_order_relaxed);
  record.allocations.store(0, std::memory_order_relaxed);
  record.deallocations.store(0, std::memory_order_relaxed);
  record.next_free = g_free_records;
  g_free_records = &record;
  hold.record = nullptr;
  hold.state = ThreadHold::kRetired;
}

// A record for a new owner, g_list_mutex held: a retired one if there is
// one, else a new one, linked in g_records for good. Null if no memory could
// be mapped.
ThreadRecord* TakeRecord() {
  if (g_free_records != nullptr) {
    ThreadRecord* record = g_free_records;
    g_free_records = record->next_free;
    record->next_free = nullptr;
    return record;
  }
  if (g_chunk_next == g_chunk_end) {
    void* chunk = mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (chunk == MAP_FAILED) return nullptr;
    g_chunk_next = static_cast<char*>(chunk);
    g_chunk_end = g_chunk_next + kChunkBytes;
  }
  ThreadRecord* record = new (g_chunk_next) ThreadRecord{};
  g_chunk_next += sizeof(ThreadRecord);
  record->next = g_records;
  g_records = record;
  return record;
}

void LockList() { g_list_mutex.lock(); }
void UnlockList() { g_list_mutex.unlock(); }

void CreateExitKey() {
  // Cannot fail short of PTHREAD_KEYS_MAX keys; if it did, records would
  // simply stay live, which keeps counts exact until the thread's storage is
  // reused. Nothing here may abort.
  (void)pthread_key_create(&g_exit_key, &RetireRecord);
  // A fork while another thread holds the list lock would leave the child
  // a lock nobody can release (fresh_process forks): hold it across fork.
  (void)pthread_atfork(&LockList, &UnlockList, &UnlockList);
}

// Gives the calling thread a record. pthread_once (pthread_atfork keeps its
// handlers in malloc'ed memory) and pthread_setspecific (which may calloc a
// second-level key block) allocate: their calls see kRegistering or kLinked
// and are counted without coming back here.
void RegisterRecord(ThreadHold& hold) {
  hold.state = ThreadHold::kRegistering;
  pthread_once(&g_exit_key_once, &CreateExitKey);
  {
    std::lock_guard<std::mutex> lock(g_list_mutex);
    hold.record = TakeRecord();
    hold.state =
        hold.record != nullptr ? ThreadHold::kLinked : ThreadHold::kRetired;
  }
  if (hold.record != nullptr) {
    (void)pthread_setspecific(g_exit_key, hold.record);
  }
}

// Adds one to `field` of the calling thread's record: `field` is
// &ThreadRecord::allocations or &ThreadRecord::deallocations.
inline void CountInRecord(std::atomic<uint64_t> ThreadRecord::*field) {
  ThreadHold& hold = t_hold;
  if (hold.state == ThreadHold::kLinked) [[likely]] {
    std::atomic<uint64_t>& counter = (*hold.record).*field;
    counter.store(counter.load(std::memory_order_relaxed) + 1,
                  std::memory_order_relaxed);
    return;
  }
  if (hold.state == ThreadHold::kNew) {
    RegisterRecord(hold);
    if (hold.state == ThreadHold::kLinked) {
      std::atomic<uint64_t>& counter = (*hold.record).*field;
      counter.store(counter.load(std::memory_order_relaxed) + 1,
                    std::memory_order_relaxed);
      return;
    }
  }
  // kRegistering (an allocation inside pthread_once), kRetired (the thread
  // is past its exit hook) or no record: count where the totals will still
  // see it.
  std::lock_guard<std::mutex> lock(g_list_mutex);
  if (field == &ThreadRecord::allocations) {
    ++g_retired_allocations;
  } else {
    ++g_retired_deallocations;
  }
}

inline void CountAllocation() {
  switch (g_mode.load(std::memory_order_relaxed)) {
    case CountingMode::kOff:
      return;
    case CountingMode::kShared:
      g_shared_allocations.fetch_add(1, std::memory_order_relaxed);
      return;
    case CountingMode::kPerThread:
      CountInRecord(&ThreadRecord::allocations);
      return;
    case CountingMode::kCustom: {
      const AllocationCounter* custom =
          g_custom.load(std::memory_order_acquire);
      if (custom == nullptr || t_in_custom) {
        CountInRecord(&ThreadRecord::allocations);
        return;
      }
      t_in_custom = true;
      custom->count();
      t_in_custom = false;
      return;
    }
  }
}

inline void CountDeallocation() {
  switch (g_mode.load(std::memory_order_relaxed)) {
    case CountingMode::kOff:
      return;
    case CountingMode::kShared:
      g_shared_deallocations.fetch_add(1, std::memory_order_relaxed);
      return;
    case CountingMode::kPerThread:
    case CountingMode::kCustom:
      CountInRecord(&ThreadRecord::deallocations);
      return;
  }
}

// -----------------------------------------------------------------------------
// The next allocator
// -----------------------------------------------------------------------------

#if ALLOCLAB_COUNT_MALLOC

// Writes `message` to stderr and exits: for a process whose malloc cannot
// work, where nothing that allocates (stdio, absl) may be used.
[[noreturn]] void Die(const char* message) {
  const ssize_t ignored = write(2, message, strlen(message));
  (void)ignored;
  _exit(127);
}

using MallocFn = void* (*)(size_t);
using CallocFn = void* (*)(size_t, size_t);
using ReallocFn = void* (*)(void*, size_t);
using FreeFn = void (*)(void*);
using PosixMemalignFn = int (*)(void**, size_t, size_t);
using AlignedFn = void* (*)(size_t, size_t);

// Where each call is forwarded, found once by Resolve(). Atomics because two
// threads may race to resolve (they store the same values).
struct NextAllocator {
  std::atomic<MallocFn> malloc;
  std::atomic<CallocFn> calloc;
  std::atomic<ReallocFn> realloc;
  std::atomic<FreeFn> free;
  std::atomic<PosixMemalignFn> posix_memalign;
  std::atomic<AlignedFn> aligned_alloc;
  std::atomic<AlignedFn> memalign;
  std::atomic<MallocFn> valloc;
  std::atomic<MallocFn> pvalloc;
  std::atomic<bool> ready;
};
constinit NextAllocator g_next = {};

// True on the thread that is inside dlsym for Resolve().
constinit thread_local bool t_resolving
    __attribute__((tls_model("initial-exec"))) = false;

// The bootstrap arena, for what dlsym allocates while we resolve. Never
// reused, so its memory is zero as calloc promises. Each block starts
// kArenaHeader bytes after its header, which holds the block's size (for
// realloc's copy).
constexpr size_t kArenaBytes = 64 * 1024;
constexpr size_t kArenaHeader = 16;
alignas(4096) constinit char g_arena[kArenaBytes] = {};
constinit std::atomic<size_t> g_arena_used{0};

bool InArena(const void* p) {
  const char* c = static_cast<const char*>(p);
  return c >= g_arena && c < g_arena + kArenaBytes;
}

// A block of `size` bytes aligned to `align` (a power of two), or null when
// the arena is spent (dlsym then reports its own failure).
void* ArenaAllocate(size_t size, size_t align) {
  align = std::max(align, kArenaHeader);
  size_t used = g_arena_used.load(std::memory_order_relaxed);
  for (;;) {
    const size_t start = (used + kArenaHeader + align - 1) & ~(align - 1);
    if (start > kArenaBytes || size > kArenaBytes - start) return nullptr;
    if (g_arena_used.compare_exchange_weak(used, start + size,
                                           std::memory_order_relaxed)) {
      memcpy(g_arena + start - sizeof(size_t), &size, sizeof(size_t));
      return g_arena + start;
    }
  }
}

size_t ArenaBlockSize(const void* p) {
  size_t size;
  memcpy(&size, static_cast<const char*>(p) - sizeof(size_t), sizeof(size));
  return size;
}

template <typename Fn>
void Lookup(std::atomic<Fn>& slot, const char* name) {
  slot.store(reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name)),
             std::memory_order_relaxed);
}

void Resolve() {
  t_resolving = true;
  Lookup(g_next.malloc, "malloc");
  Lookup(g_next.calloc, "calloc");
  Lookup(g_next.realloc, "realloc");
  Lookup(g_next.free, "free");
  Lookup(g_next.posix_memalign, "posix_memalign");
  Lookup(g_next.aligned_alloc, "aligned_alloc");
  Lookup(g_next.memalign, "memalign");
  Lookup(g_next.valloc, "valloc");
  Lookup(g_next.pvalloc, "pvalloc");
  t_resolving = false;
  if (g_next.malloc.load(std::memory_order_relaxed) == nullptr ||
      g_next.free.load(std::memory_order_relaxed) == nullptr ||
      g_next.calloc.load(std::memory_order_relaxed) == nullptr ||
      g_next.realloc.load(std::memory_order_relaxed) == nullptr) {
    Die("alloc_counter: dlsym(RTLD_NEXT) found no malloc/free/calloc/realloc "
        "to forward to (a statically linked program?)\n");
  }
  g_next.ready.store(true, std::memory_order_release);
}

// The function the next allocator has for `slot`, resolving on first use.
// Null only while this thread is inside Resolve().
template <typename Fn>
Fn Next(std::atomic<Fn>& slot) {
  if (!g_next.ready.load(std::memory_order_acquire)) [[unlikely]] {
    if (t_resolving) return nullptr;
    Resolve();
  }
  return slot.load(std::memory_order_relaxed);
}

// For the optional functions: a next allocator without one (a preloaded
// library that lacks pvalloc, say, in front of a C library that lacks it
// too) is a hard error, as calling a missing symbol would have been.
template <typename Fn>
Fn NextRequired(std::atomic<Fn>& slot, const char* message) {
  Fn fn = Next(slot);
  if (fn == nullptr && !t_resolving) Die(message);
  return fn;
}

// Resolve early, before main starts threads, so that the lazy path above
// runs on one thread in practice. (It is correct on any number.)
__attribute__((constructor(101))) void ResolveAtStartup() {
  if (!g_next.ready.load(std::memory_order_acquire)) Resolve();
}

void* NextMalloc(size_t size) {
  MallocFn fn = Next(g_next.malloc);
  return fn != nullptr ? fn(size) : ArenaAllocate(size, 16);
}

void NextFree(void* p) {
  if (InArena(p)) return;
  if (FreeFn fn = Next(g_next.free)) fn(p);
}

int NextPosixMemalign(void** p, size_t align, size_t size) {
  PosixMemalignFn fn = Next(g_next.posix_memalign);
  if (fn != nullptr) return fn(p, align, size);
  *p = ArenaAllocate(size, align);
  return *p != nullptr ? 0 : ENOMEM;
}

#else  // !ALLOCLAB_COUNT_MALLOC: the sanitizer's runtime owns malloc.

// The sanitizer runtimes (ASan, TSan, MSan, HWASan: all share
// sanitizer_common) call these hooks after every allocation and before every
// deallocation they serve, whichever function asked: malloc, calloc, realloc
// (a resize is one of each, realloc(p, 0) one deallocation), posix_memalign,
// strdup's malloc. They do not call them for a call that fails. Declared
// here because GCC ships no sanitizer headers.
extern "C" int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void*, size_t),
    void (*free_hook)(const volatile void*));

// Set while operator new and delete call the runtime's malloc and free:
// those calls are counted once, by the operator, not again by the hooks.
// Volatile: GCC knows that malloc and free read no variable of ours, and
// would otherwise drop the stores around them.
constinit thread_local volatile bool t_in_operator = false;
constinit std::atomic<bool> g_hooks_installed{false};

void MallocHook(const volatile void*, size_t) {
  if (!t_in_operator) CountAllocation();
}
void FreeHook(const volatile void* p) {
  if (p != nullptr && !t_in_operator) CountDeallocation();
}

// The runtime asks for the hooks to be installed on the main thread before
// other threads start; calls before this constructor are not counted.
// ThreadSanitizer's runtime (GCC 12) calls them for malloc, calloc and
// realloc but not for posix_memalign, aligned_alloc, memalign, valloc or
// pvalloc, and reports a realloc that fails as a resize: partial counts would
// mislead, so under it the C functions are not counted at all.
__attribute__((constructor(101))) void InstallSanitizerHooks() {
  if (!ALLOCLAB_SANITIZER_HOOKS) return;
  g_hooks_installed.store(
      __sanitizer_install_malloc_and_free_hooks(&MallocHook, &FreeHook) != 0,
      std::memory_order_relaxed);
}

void* NextMalloc(size_t size) {
  t_in_operator = true;
  void* p = malloc(size);
  t_in_operator = false;
  return p;
}
void NextFree(void* p) {
  t_in_operator = true;
  free(p);
  t_in_operator = false;
}
int NextPosixMemalign(void** p, size_t align, size_t size) {
  t_in_operator = true;
  const int error = posix_memalign(p, align, size);
  t_in_operator = false;
  return error;
}

#endif  // ALLOCLAB_COUNT_MALLOC

// -----------------------------------------------------------------------------
// operator new's helpers
// -----------------------------------------------------------------------------

// malloc never returns null for size 0 in glibc, but the standard demands a
// unique non-null pointer from operator new(0) on every C library.
inline size_t AtLeastOne(size_t size) { return size == 0 ? 1 : size; }

void* TryAllocate(size_t size) { return NextMalloc(AtLeastOne(size)); }

void* TryAllocateAligned(size_t size, std::align_val_t align) {
  // posix_memalign wants a power of two that is a multiple of sizeof(void*);
  // align_val_t is a power of two by the language's rules, so only small
  // alignments need raising. (aligned_alloc wants size % align == 0 in
  // C11, which operator new's callers do not promise.)
  const size_t alignment = std::max(static_cast<size_t>(align), sizeof(void*));
  void* p = nullptr;
  if (NextPosixMemalign(&p, alignment, AtLeastOne(size)) != 0) return nullptr;
  return p;
}

// The throwing forms: retry through the new-handler, as the standard's
// default operator new does, then throw.
template <typename Alloc>
void* AllocateOrThrow(Alloc alloc) {
  CountAllocation();
  for (;;) {
    if (void* p = alloc()) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

// The nothrow forms: the same, but a throwing handler means null.
template <typename Alloc>
void* AllocateOrNull(Alloc alloc) noexcept {
  CountAllocation();
  for (;;) {
    if (void* p = alloc()) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) return nullptr;
    try {
      handler();
    } catch (...) {
      return nullptr;
    }
  }
}

void Deallocate(void* p) noexcept {
  if (p == nullptr) return;
  CountDeallocation();
  NextFree(p);
}

// Keeps the timed allocations alive in the eyes of the optimizer. Per
// thread, so that callers on several threads neither race nor share a line.
constinit thread_local void* volatile t_sink = nullptr;

// Times `pairs` new/delete pairs of 16 bytes in the current mode.
[[gnu::noinline]] double PairNs(int pairs) {
  const int64_t start = NowNs();
  for (int i = 0; i < pairs; ++i) {
    void* p = ::operator new(16);
    static_cast<volatile char*>(p)[0] = static_cast<char>(i);
    t_sink = p;
    ::operator delete(p);
  }
  return static_cast<double>(NowNs() - start) / pairs;
}

}  // namespace

absl::string_view CountingModeName(CountingMode mode) {
  switch (mode) {
    case CountingMode::kOff:
      return "off";
    case CountingMode::kShared:
      return "shared";
    case CountingMode::kPerThread:
      return "per_thread";
    case CountingMode::kCustom:
      return "custom";
  }
  return "unknown";
}

void SetCountingMode(CountingMode mode) {
  g_mode.store(mode, std::memory_order_relaxed);
}

CountingMode GetCountingMode() {
  return g_mode.load(std::memory_order_relaxed);
}

void UseCustomCounter(const AllocationCounter& counter) {
  g_custom.store(&counter, std::memory_order_release);
  SetCountingMode(CountingMode::kCustom);
}

uint64_t TotalAllocations() {
  uint64_t total = g_shared_allocations.load(std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(g_list_mutex);
    total += g_retired_allocations;
    for (const ThreadRecord* r = g_records; r != nullptr; r = r->next) {
      total += r->allocations.load(std::memory_order_relaxed);
    }
  }
  if (const AllocationCounter* custom =
          g_custom.load(std::memory_order_acquire)) {
    total += custom->total();
  }
  return total;
}

uint64_t TotalDeallocations() {
  uint64_t total = g_shared_deallocations.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_list_mutex);
  total += g_retired_deallocations;
  for (const ThreadRecord* r = g_records; r != nullptr; r = r->next) {
    total += r->deallocations.load(std::memory_order_relaxed);
  }
  return total;
}

uint64_t ThreadAllocations() {
  const ThreadHold& hold = t_hold;
  if (hold.state != ThreadHold::kLinked) return 0;
  return hold.record->allocations.load(std::memory_order_relaxed);
}

bool CountsMallocFamily() {
#if ALLOCLAB_COUNT_MALLOC
  return true;
#else
  return g_hooks_installed.load(std::memory_order_relaxed);
#endif
}

bool CountsFailedMallocCalls() { return ALLOCLAB_COUNT_MALLOC; }

std::string MallocCountingNote() {
#if ALLOCLAB_COUNT_MALLOC
  Dl_info info = {};
  const void* next = reinterpret_cast<const void*>(Next(g_next.malloc));
  if (dladdr(next, &info) == 0 || info.dli_fname == nullptr) {
    return "malloc counted, forwarded to an unnamed library";
  }
  absl::string_view path = info.dli_fname;
  const size_t slash = path.rfind('/');
  if (slash != absl::string_view::npos) path.remove_prefix(slash + 1);
  return absl::StrCat("malloc counted, forwarded to ", path);
#else
  if (!ALLOCLAB_SANITIZER_HOOKS) {
    return "malloc not counted: ThreadSanitizer's runtime replaces malloc and "
           "reports only some forms to hooks (operator new still counted)";
  }
  if (CountsMallocFamily()) {
    return "malloc counted through the sanitizer runtime's hooks (calls that "
           "fail are not counted)";
  }
  return "malloc not counted: the sanitizer runtime refused the hooks "
         "(operator new still counted)";
#endif
}

double CounterCostNs(CountingMode mode) {
  const CountingMode found = GetCountingMode();
  constexpr int kPairs = 20'000;
  constexpr int kRepetitions = 15;
  // Warm up in both modes: the thread's record gets linked and malloc's
  // thread cache filled before anything is timed.
  SetCountingMode(mode);
  PairNs(kPairs);
  SetCountingMode(CountingMode::kOff);
  PairNs(kPairs);
  // Interleaved, so that a slow stretch of the machine hits both sides.
  std::vector<double> counted, off;
  counted.reserve(kRepetitions);
  off.reserve(kRepetitions);
  for (int r = 0; r < kRepetitions; ++r) {
    SetCountingMode(mode);
    const double c = PairNs(kPairs);
    SetCountingMode(CountingMode::kOff);
    const double o = PairNs(kPairs);
    counted.push_back(c);
    off.push_back(o);
  }
  SetCountingMode(found);
  return Summarize(counted).median - Summarize(off).median;
}

}  // namespace alloclab

// -----------------------------------------------------------------------------
// The C allocation functions. Each counts exactly once and forwards to the
// next definition; none calls another of them.
// -----------------------------------------------------------------------------

#if ALLOCLAB_COUNT_MALLOC

using alloclab::ArenaAllocate;
using alloclab::ArenaBlockSize;
using alloclab::CountAllocation;
using alloclab::CountDeallocation;
using alloclab::g_next;
using alloclab::InArena;
using alloclab::Next;
using alloclab::NextRequired;

// realloc of a block from the bootstrap arena: a fresh block from the next
// allocator holding the old bytes. The arena block is simply dropped.
static void* MoveOutOfArena(void* p, size_t size) {
  void* q = alloclab::NextMalloc(size);
  if (q != nullptr) memcpy(q, p, std::min(size, ArenaBlockSize(p)));
  return q;
}

// Counts a realloc-like call by its outcome (see the header): a block
// returned means one allocation and, when `p` was a block, one deallocation;
// null with size 0 means glibc freed `p`; null otherwise means the call
// failed and `p` is untouched.
static void CountResize(const void* p, size_t size, const void* result) {
  if (p == nullptr) {
    CountAllocation();
  } else if (result != nullptr) {
    CountAllocation();
    CountDeallocation();
  } else if (size == 0) {
    CountDeallocation();
  } else {
    CountAllocation();
  }
}

extern "C" {

void* malloc(size_t size) noexcept {
  alloclab::MallocFn fn = Next(g_next.malloc);
  if (fn == nullptr) return ArenaAllocate(size, 16);
  CountAllocation();
  return fn(size);
}

void* calloc(size_t n, size_t size) noexcept {
  alloclab::CallocFn fn = Next(g_next.calloc);
  if (fn == nullptr) {
    if (size != 0 && n > SIZE_MAX / size) return nullptr;
    return ArenaAllocate(n * size, 16);
  }
  CountAllocation();
  return fn(n, size);
}

void* realloc(void* p, size_t size) noexcept {
  alloclab::ReallocFn fn = Next(g_next.realloc);
  if (fn == nullptr) {
    if (p != nullptr && !InArena(p)) return nullptr;
    void* q = ArenaAllocate(size, 16);
    if (q != nullptr && p != nullptr) {
      memcpy(q, p, std::min(size, ArenaBlockSize(p)));
    }
    return q;
  }
  if (p != nullptr && InArena(p)) {
    CountAllocation();
    return MoveOutOfArena(p, size);
  }
  void* result = fn(p, size);
  CountResize(p, size, result);
  return result;
}

// Not forwarded to the next reallocarray: glibc's calls realloc, which would
// count the call twice. The overflow check is all it adds to realloc.
void* reallocarray(void* p, size_t n, size_t size) noexcept {
  size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    // A call that asked for memory and failed, leaving p untouched.
    if (g_next.ready.load(std::memory_order_acquire)) CountAllocation();
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, bytes);
}

void free(void* p) noexcept {
  if (p == nullptr || InArena(p)) return;
  alloclab::FreeFn fn = Next(g_next.free);
  if (fn == nullptr) return;  // only inside dlsym, before free is known
  CountDeallocation();
  fn(p);
}

int posix_memalign(void** p, size_t align, size_t size) noexcept {
  alloclab::PosixMemalignFn fn = Next(g_next.posix_memalign);
  if (fn == nullptr) return alloclab::NextPosixMemalign(p, align, size);
  CountAllocation();
  return fn(p, align, size);
}

void* aligned_alloc(size_t align, size_t size) noexcept {
  alloclab::AlignedFn fn = NextRequired(
      g_next.aligned_alloc, "alloc_counter: no aligned_alloc to forward to\n");
  if (fn == nullptr) return ArenaAllocate(size, align);
  CountAllocation();
  return fn(align, size);
}

void* memalign(size_t align, size_t size) noexcept {
  alloclab::AlignedFn fn = NextRequired(
      g_next.memalign, "alloc_counter: no memalign to forward to\n");
  if (fn == nullptr) return ArenaAllocate(size, align);
  CountAllocation();
  return fn(align, size);
}

void* valloc(size_t size) noexcept {
  alloclab::MallocFn fn =
      NextRequired(g_next.valloc, "alloc_counter: no valloc to forward to\n");
  if (fn == nullptr) return ArenaAllocate(size, 4096);
  CountAllocation();
  return fn(size);
}

void* pvalloc(size_t size) noexcept {
  alloclab::MallocFn fn =
      NextRequired(g_next.pvalloc, "alloc_counter: no pvalloc to forward to\n");
  if (fn == nullptr) return ArenaAllocate(size, 4096);
  CountAllocation();
  return fn(size);
}

}  // extern "C"

#endif  // ALLOCLAB_COUNT_MALLOC

// -----------------------------------------------------------------------------
// The replacements of operator new and delete. Each counts exactly once and
// never calls another replaced form (libstdc++'s own array and nothrow forms
// call the plain one, which would count twice) nor the counted malloc.
// -----------------------------------------------------------------------------

using alloclab::AllocateOrNull;
using alloclab::AllocateOrThrow;
using alloclab::Deallocate;
using alloclab::TryAllocate;
using alloclab::TryAllocateAligned;

void* operator new(size_t size) {
  return AllocateOrThrow([size] { return TryAllocate(size); });
}
void* operator new[](size_t size) {
  return AllocateOrThrow([size] { return TryAllocate(size); });
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return AllocateOrNull([size] { return TryAllocate(size); });
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return AllocateOrNull([size] { return TryAllocate(size); });
}
void* operator new(size_t size, std::align_val_t align) {
  return AllocateOrThrow([=] { return TryAllocateAligned(size, align); });
}
void* operator new[](size_t size, std::align_val_t align) {
  return AllocateOrThrow([=] { return TryAllocateAligned(size, align); });
}
void* operator new(size_t size, std::align_val_t align,
                   const std::nothrow_t&) noexcept {
  return AllocateOrNull([=] { return TryAllocateAligned(size, align); });
}
void* operator new[](size_t size, std::align_val_t align,
                     const std::nothrow_t&) noexcept {
  return AllocateOrNull([=] { return TryAllocateAligned(size, align); });
}

// posix_memalign's memory is released with free, like malloc's, so every
// delete is the same call.
void operator delete(void* p) noexcept { Deallocate(p); }
void operator delete[](void* p) noexcept { Deallocate(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Deallocate(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  Deallocate(p);
}
void operator delete(void* p, size_t) noexcept { Deallocate(p); }
void operator delete[](void* p, size_t) noexcept { Deallocate(p); }
void operator delete(void* p, std::align_val_t) noexcept { Deallocate(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Deallocate(p); }
void operator delete(void* p, std::align_val_t,
                     const std::nothrow_t&) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, std::align_val_t,
                       const std::nothrow_t&) noexcept {
  Deallocate(p);
}
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  Deallocate(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  Deallocate(p);
}
