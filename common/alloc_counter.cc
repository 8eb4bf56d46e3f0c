// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Every replaceable global operator new and delete of C++20, counting then
// calling malloc/free.
//
// The per-thread mode has to keep three promises at once:
//   - an allocation writes only memory its own thread owns (no locked
//     instruction, no shared cache line: that is the whole point of it);
//   - TotalAllocations() stays exact after threads exit;
//   - the bookkeeping never calls operator new, or the first allocation of a
//     thread would recurse into itself.
// So each thread's record lives in trivially destructible thread-local
// storage (valid for as long as the thread runs, with no C++ destructor
// ordering to trip over), is linked into an intrusive list on first use
// under a constant-initialized mutex, and is retired by a pthread key
// destructor. Those run after the C++ thread_local destructors, so
// allocations those destructors make are still counted per thread; the rare
// allocation after retirement goes straight to the retired total.

#include "common/alloc_counter.h"

#include <pthread.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "common/stats.h"

namespace alloclab {
namespace {

// One thread's counter. `count` is an atomic only so that TotalAllocations()
// may read it from another thread; its owner updates it with a plain load
// and store, never a read-modify-write.
struct ThreadRecord {
  std::atomic<uint64_t> count;
  ThreadRecord* prev;
  ThreadRecord* next;
  enum State : unsigned char { kNew, kLinked, kRetired } state;
};

// All three are constant-initialized, so they work for allocations made
// before this file's (or any file's) dynamic initializers have run.
constinit std::atomic<CountingMode> g_mode{CountingMode::kPerThread};
constinit std::atomic<uint64_t> g_shared{0};

// Guards the list of live records and `g_retired`, so that a thread exiting
// while another sums the counters is counted exactly once.
constinit std::mutex g_list_mutex;
constinit ThreadRecord* g_live = nullptr;
constinit uint64_t g_retired = 0;

// Zero-initialized, trivially destructible: no TLS init wrapper and no
// destructor runs for it, so it can be used at any point of a thread's life.
constinit thread_local ThreadRecord t_record = {};

pthread_key_t g_exit_key;
pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;

// Called by glibc at thread exit (never for the main thread, whose record
// stays live until the process ends).
void RetireRecord(void* arg) {
  ThreadRecord* record = static_cast<ThreadRecord*>(arg);
  std::lock_guard<std::mutex> lock(g_list_mutex);
  g_retired += record->count.load(std::memory_order_relaxed);
  if (record->prev != nullptr) {
    record->prev->next = record->next;
  } else {
    g_live = record->next;
  }
  if (record->next != nullptr) record->next->prev = record->prev;
  record->prev = record->next = nullptr;
  record->state = ThreadRecord::kRetired;
}

void LockList() { g_list_mutex.lock(); }
void UnlockList() { g_list_mutex.unlock(); }

void CreateExitKey() {
  // Cannot fail short of PTHREAD_KEYS_MAX keys; if it did, records would
  // simply stay live, which keeps counts exact until the thread's storage is
  // reused. Nothing here may allocate through operator new, nor abort.
  (void)pthread_key_create(&g_exit_key, &RetireRecord);
  // A fork while another thread holds the list lock would leave the child
  // a lock nobody can release (fresh_process forks): hold it across fork.
  (void)pthread_atfork(&LockList, &UnlockList, &UnlockList);
}

// Links the calling thread's record. Allocates nothing through operator new:
// pthread_once, pthread_setspecific (which may calloc a second-level key
// block) and the mutex only use malloc or nothing at all.
void RegisterRecord(ThreadRecord& record) {
  pthread_once(&g_exit_key_once, &CreateExitKey);
  {
    std::lock_guard<std::mutex> lock(g_list_mutex);
    record.prev = nullptr;
    record.next = g_live;
    if (g_live != nullptr) g_live->prev = &record;
    g_live = &record;
    record.state = ThreadRecord::kLinked;
  }
  (void)pthread_setspecific(g_exit_key, &record);
}

inline void CountOne() {
  switch (g_mode.load(std::memory_order_relaxed)) {
    case CountingMode::kOff:
      return;
    case CountingMode::kShared:
      g_shared.fetch_add(1, std::memory_order_relaxed);
      return;
    case CountingMode::kPerThread: {
      ThreadRecord& record = t_record;
      if (record.state == ThreadRecord::kLinked) [[likely]] {
        record.count.store(record.count.load(std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
        return;
      }
      if (record.state == ThreadRecord::kNew) {
        RegisterRecord(record);
        record.count.store(record.count.load(std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
        return;
      }
      // kRetired: the thread is past its exit hook; count where the totals
      // will still see it.
      std::lock_guard<std::mutex> lock(g_list_mutex);
      ++g_retired;
      return;
    }
  }
}

// malloc never returns null for size 0 in glibc, but the standard demands a
// unique non-null pointer from operator new(0) on every C library.
inline size_t AtLeastOne(size_t size) { return size == 0 ? 1 : size; }

void* TryAllocate(size_t size) { return malloc(AtLeastOne(size)); }

void* TryAllocateAligned(size_t size, std::align_val_t align) {
  // posix_memalign wants a power of two that is a multiple of sizeof(void*);
  // align_val_t is a power of two by the language's rules, so only small
  // alignments need raising. (aligned_alloc wants size % align == 0 in
  // C11, which operator new's callers do not promise.)
  const size_t alignment =
      std::max(static_cast<size_t>(align), sizeof(void*));
  void* p = nullptr;
  if (posix_memalign(&p, alignment, AtLeastOne(size)) != 0) return nullptr;
  return p;
}

// The throwing forms: retry through the new-handler, as the standard's
// default operator new does, then throw.
template <typename Alloc>
void* AllocateOrThrow(Alloc alloc) {
  CountOne();
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
  CountOne();
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
  }
  return "unknown";
}

void SetCountingMode(CountingMode mode) {
  g_mode.store(mode, std::memory_order_relaxed);
}

CountingMode GetCountingMode() {
  return g_mode.load(std::memory_order_relaxed);
}

uint64_t TotalAllocations() {
  uint64_t total = g_shared.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_list_mutex);
  total += g_retired;
  for (const ThreadRecord* r = g_live; r != nullptr; r = r->next) {
    total += r->count.load(std::memory_order_relaxed);
  }
  return total;
}

uint64_t ThreadAllocations() {
  return t_record.count.load(std::memory_order_relaxed);
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
// The replacements. Each counts exactly once and never calls another
// replaced form (libstdc++'s own array and nothrow forms call the plain one,
// which would count twice).
// -----------------------------------------------------------------------------

using alloclab::AllocateOrNull;
using alloclab::AllocateOrThrow;
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
void operator delete(void* p) noexcept { free(p); }
void operator delete[](void* p) noexcept { free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }
void operator delete[](void* p, size_t) noexcept { free(p); }
void operator delete(void* p, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { free(p); }
void operator delete(void* p, std::align_val_t,
                     const std::nothrow_t&) noexcept {
  free(p);
}
void operator delete[](void* p, std::align_val_t,
                       const std::nothrow_t&) noexcept {
  free(p);
}
void operator delete(void* p, size_t, std::align_val_t) noexcept { free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { free(p); }
