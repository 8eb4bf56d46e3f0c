// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/counter_contention/counters.h"

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace {

// -----------------------------------------------------------------------------
// kShared
// -----------------------------------------------------------------------------

alignas(kCacheLineBytes) constinit std::atomic<uint64_t> g_shared{0};

void SharedCount() { g_shared.fetch_add(1, std::memory_order_relaxed); }
uint64_t SharedTotal() { return g_shared.load(std::memory_order_relaxed); }

// -----------------------------------------------------------------------------
// kPacked and kPadded: one template, two strides
// -----------------------------------------------------------------------------

// A slot kStride bytes long (and aligned): 8 packs them, a cache line pads.
template <size_t kStride>
struct alignas(kStride) Cell {
  std::atomic<uint64_t> count{0};  // written only by the slot's owner
};

template <size_t kStride>
struct SlotArray {
  Cell<kStride> cells[kMaxSlots];
  // Apart from the cells: taken and given back once per thread, not per
  // count.
  alignas(kCacheLineBytes) std::atomic<bool> taken[kMaxSlots];
  // Held by Total() and by a thread giving its slot back, so that a count
  // moves from its cell to `retired` unseen.
  std::mutex mutex;
  uint64_t retired = 0;  // guarded by mutex
  // Threads without a slot (more than kMaxSlots at once, or past their
  // exit) count here.
  std::atomic<uint64_t> overflow{0};
};

template <size_t kStride>
constinit SlotArray<kStride> g_array = {};

constexpr int kNone = -1;    // no slot yet
constexpr int kNoSlot = -2;  // none free, or given back: use overflow

// A thread's hold on its slot. Trivially destructible: a pthread key's
// destructor gives the slot back (GiveBack()), not a destructor of its own,
// which a thread whose first count comes in a key destructor would arm too
// late to run (glibc runs thread_local destructors first): the slot would
// stay taken after the thread is gone.
template <size_t kStride>
struct Handle {
  int index = kNone;
};

template <size_t kStride>
constinit thread_local Handle<kStride> t_handle;

// Run by the exit key at thread exit, for a handle that holds a slot: moves
// its count to `retired` and frees the slot.
template <size_t kStride>
void GiveBack(void* arg) {
  Handle<kStride>& h = *static_cast<Handle<kStride>*>(arg);
  if (h.index < 0) return;
  SlotArray<kStride>& a = g_array<kStride>;
  std::lock_guard<std::mutex> lock(a.mutex);
  std::atomic<uint64_t>& count = a.cells[h.index].count;
  a.retired += count.load(std::memory_order_relaxed);
  count.store(0, std::memory_order_relaxed);
  a.taken[h.index].store(false, std::memory_order_release);
  h.index = kNoSlot;
}

// The exit key of the array of stride kStride, made on its first claim.
template <size_t kStride>
constinit pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;
template <size_t kStride>
constinit pthread_key_t g_exit_key;
template <size_t kStride>
constinit bool g_have_exit_key = false;

template <size_t kStride>
void CreateExitKey() {
  g_have_exit_key<kStride> =
      pthread_key_create(&g_exit_key<kStride>, &GiveBack<kStride>) == 0;
}

template <size_t kStride>
int Claim() {
  SlotArray<kStride>& a = g_array<kStride>;
  for (int i = 0; i < kMaxSlots; ++i) {
    bool expected = false;
    if (!a.taken[i].load(std::memory_order_relaxed) &&
        a.taken[i].compare_exchange_strong(expected, true,
                                           std::memory_order_acquire)) {
      return i;
    }
  }
  return kNoSlot;
}

// The calling thread's handle, with a slot claimed on its first call (and
// its give-back armed; without a key, a slot stays taken and its count
// stays in it).
template <size_t kStride>
Handle<kStride>& Mine() {
  Handle<kStride>& h = t_handle<kStride>;
  if (h.index != kNone) return h;
  h.index = Claim<kStride>();
  if (h.index >= 0) {
    pthread_once(&g_exit_key_once<kStride>, &CreateExitKey<kStride>);
    if (g_have_exit_key<kStride>) pthread_setspecific(g_exit_key<kStride>, &h);
  }
  return h;
}

template <size_t kStride>
void SlotCount() {
  Handle<kStride>& h = Mine<kStride>();
  SlotArray<kStride>& a = g_array<kStride>;
  if (h.index < 0) [[unlikely]] {
    a.overflow.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::atomic<uint64_t>& count = a.cells[h.index].count;
  count.store(count.load(std::memory_order_relaxed) + 1,
              std::memory_order_relaxed);
}

template <size_t kStride>
uint64_t SlotTotal() {
  SlotArray<kStride>& a = g_array<kStride>;
  uint64_t total = a.overflow.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(a.mutex);
  total += a.retired;
  for (const Cell<kStride>& cell : a.cells) {
    total += cell.count.load(std::memory_order_relaxed);
  }
  return total;
}

constexpr size_t kPackedStride = sizeof(uint64_t);
static_assert(sizeof(Cell<kPackedStride>) == 8);
static_assert(sizeof(Cell<kCacheLineBytes>) == kCacheLineBytes);

}  // namespace

const alloclab::AllocationCounter kShared = {.count = &SharedCount,
                                             .total = &SharedTotal};
const alloclab::AllocationCounter kPacked = {
    .count = &SlotCount<kPackedStride>, .total = &SlotTotal<kPackedStride>};
const alloclab::AllocationCounter kPadded = {
    .count = &SlotCount<kCacheLineBytes>, .total = &SlotTotal<kCacheLineBytes>};

const Mode kModes[5] = {{"off", nullptr},
                        {"shared", &kShared},
                        {"per_thread", &kYourCounter},
                        {"per_thread_packed", &kPacked},
                        {"per_thread_padded", &kPadded}};

void Use(const Mode& mode) {
  if (mode.counter == nullptr) {
    alloclab::SetCountingMode(alloclab::CountingMode::kOff);
  } else {
    alloclab::UseCustomCounter(*mode.counter);
  }
}

namespace {

// The calling thread's slot in the array of stride kStride (taking one if it
// has none), or the overflow counter it counts in instead.
template <size_t kStride>
const void* SlotOf() {
  Handle<kStride>& h = Mine<kStride>();
  if (h.index < 0) return &g_array<kStride>.overflow;
  return &g_array<kStride>.cells[h.index].count;
}

}  // namespace

const void* PackedSlot() { return SlotOf<kPackedStride>(); }

const void* PaddedSlot() { return SlotOf<kCacheLineBytes>(); }

}  // namespace counter_contention
