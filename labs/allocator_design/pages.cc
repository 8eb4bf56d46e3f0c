// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The page source and its test hooks (pages.h, internal/pages_testing.h).
// Its counters are relaxed atomics: each is touched once per system call,
// never on an allocator's fast path, and a reader wants totals, not an
// order between them. Its live mappings (for internal::ResidentMappedBytes())
// sit in a fixed table of its own static storage, one atomic word a
// mapping: nothing here calls malloc or maps for itself.

#include "labs/allocator_design/pages.h"

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <optional>

#include "labs/allocator_design/internal/pages_testing.h"

namespace allocator_design {
namespace {

struct Counts {
  std::atomic<uint64_t> map_calls{0}, unmap_calls{0}, release_calls{0};
  std::atomic<uint64_t> bytes_mapped{0}, bytes_unmapped{0}, bytes_released{0};
};

// Constant-initialised: the page source runs before any constructor.
constinit Counts counts;

// The fake clock: active when `fake_active`; then NowNs() is `fake_now`.
constinit std::atomic<bool> fake_active{false};
constinit std::atomic<uint64_t> fake_now{0};

// The map gate: 0 open, 1 closed, 2 closed with a thread parked at it.
constinit std::atomic<int> gate{0};

// The refusal: while `refusing`, every map fails as the kernel's would, and
// `refused_maps` counts the attempts.
constinit std::atomic<bool> refusing{false};
constinit std::atomic<uint64_t> refused_maps{0};

// The map observer (internal::SetMapObserver()), or null.
constinit std::atomic<void (*)()> map_observer{nullptr};

// The live mappings: each slot 0 (free) or one mapping, mapped and not
// unmapped, as its first page's number (the top kPageNumberBits bits) and
// its length in pages (the rest). A mapping that does not fit (no free
// slot, or a number too large) sets `mappings_lost`: from then on the
// table no longer knows every live mapping, and ResidentMappedBytes() says
// so. The suite's worst case is a few hundred live mappings.
constexpr int kMappingSlots = 4096;
constexpr int kPageNumberBits = 40;
constexpr int kPageCountBits = 64 - kPageNumberBits;
constinit std::atomic<uint64_t> mappings[kMappingSlots] = {};
constinit std::atomic<bool> mappings_lost{false};

// Restores errno when it goes out of scope (pages.h: nothing here changes
// it).
class KeepErrno {
 public:
  KeepErrno() : saved_(errno) {}
  ~KeepErrno() { errno = saved_; }

 private:
  int saved_;
};

void Add(std::atomic<uint64_t>& counter, uint64_t value) {
  counter.fetch_add(value, std::memory_order_relaxed);
}

bool IsPageMultiple(size_t bytes) {
  return bytes != 0 && bytes % PageSize() == 0;
}

uint64_t RealNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

// A thread that finds the gate closed says so and waits for it to open.
// sched_yield, not a futex: the gate is for tests, where one thread waits.
void PassGate() {
  int expected = 1;
  if (gate.load(std::memory_order_acquire) == 0) return;
  gate.compare_exchange_strong(expected, 2, std::memory_order_acq_rel);
  while (gate.load(std::memory_order_acquire) != 0) sched_yield();
}

void* Map(size_t bytes) {
  if (void (*observe)() = map_observer.load(std::memory_order_acquire)) {
    observe();
  }
  PassGate();
  if (refusing.load(std::memory_order_acquire)) {
    refused_maps.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// The slot word of the `bytes` at `start` (both page multiples), or 0 when
// they do not fit in one.
uint64_t MappingWord(uintptr_t start, size_t bytes) {
  const uint64_t first = start / PageSize();
  const uint64_t pages = bytes / PageSize();
  if (pages == 0 || first >> kPageNumberBits != 0 ||
      pages >> kPageCountBits != 0) {
    return 0;
  }
  return first << kPageCountBits | pages;
}

uintptr_t MappingStart(uint64_t word) {
  return static_cast<uintptr_t>(word >> kPageCountBits) * PageSize();
}

size_t MappingBytes(uint64_t word) {
  return static_cast<size_t>(word & ((uint64_t{1} << kPageCountBits) - 1)) *
         PageSize();
}

// Records a live mapping of `bytes` at `start` in a free slot.
void AddMapping(uintptr_t start, size_t bytes) {
  const uint64_t word = MappingWord(start, bytes);
  if (word != 0) {
    for (std::atomic<uint64_t>& slot : mappings) {
      uint64_t expected = 0;
      if (slot.load(std::memory_order_relaxed) == 0 &&
          slot.compare_exchange_strong(expected, word,
                                       std::memory_order_acq_rel)) {
        return;
      }
    }
  }
  mappings_lost.store(true, std::memory_order_release);
}

// Takes [start, start + bytes), just unmapped, out of the mappings that
// held it (munmap may span several adjacent ones): each shrinks, splits in
// two, or goes.
void RemoveMapping(uintptr_t start, size_t bytes) {
  const uintptr_t end = start + bytes;
  for (std::atomic<uint64_t>& slot : mappings) {
    uint64_t word = slot.load(std::memory_order_acquire);
    while (word != 0) {
      const uintptr_t from = MappingStart(word);
      const uintptr_t to = from + MappingBytes(word);
      if (to <= start || end <= from) break;  // no overlap
      const uint64_t left = from < start ? MappingWord(from, start - from) : 0;
      if (slot.compare_exchange_weak(word, left, std::memory_order_acq_rel)) {
        if (end < to) AddMapping(end, to - end);
        break;
      }
    }
  }
}

}  // namespace

size_t PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

void* MapPages(size_t bytes) {
  KeepErrno keep;
  if (!IsPageMultiple(bytes)) return nullptr;
  void* p = Map(bytes);
  if (p == nullptr) return nullptr;
  AddMapping(reinterpret_cast<uintptr_t>(p), bytes);
  Add(counts.map_calls, 1);
  Add(counts.bytes_mapped, bytes);
  return p;
}

void* MapAlignedPages(size_t bytes, size_t alignment) {
  KeepErrno keep;
  if (!IsPageMultiple(bytes) || alignment < PageSize() ||
      (alignment & (alignment - 1)) != 0 || bytes > SIZE_MAX - alignment) {
    return nullptr;
  }
  char* p = static_cast<char*>(Map(bytes + alignment));
  if (p == nullptr) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (start + alignment - 1) & ~(alignment - 1);
  const size_t head = aligned - start;
  const size_t tail = alignment - head;
  // The ends are not counted as unmapped: they were never counted mapped.
  if (head != 0) munmap(p, head);
  if (tail != 0) munmap(reinterpret_cast<char*>(aligned) + bytes, tail);
  AddMapping(aligned, bytes);
  Add(counts.map_calls, 1);
  Add(counts.bytes_mapped, bytes);
  return reinterpret_cast<void*>(aligned);
}

void UnmapPages(void* pages, size_t bytes) {
  KeepErrno keep;
  if (pages == nullptr || !IsPageMultiple(bytes)) return;
  if (munmap(pages, bytes) != 0) return;
  RemoveMapping(reinterpret_cast<uintptr_t>(pages), bytes);
  Add(counts.unmap_calls, 1);
  Add(counts.bytes_unmapped, bytes);
}

void ReleasePages(void* pages, size_t bytes) {
  KeepErrno keep;
  if (pages == nullptr || !IsPageMultiple(bytes)) return;
  if (madvise(pages, bytes, MADV_DONTNEED) != 0) return;
  Add(counts.release_calls, 1);
  Add(counts.bytes_released, bytes);
}

PageSourceCounts ReadPageSourceCounts() {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  return {counts.map_calls.load(kRelaxed),
          counts.unmap_calls.load(kRelaxed),
          counts.release_calls.load(kRelaxed),
          counts.bytes_mapped.load(kRelaxed),
          counts.bytes_unmapped.load(kRelaxed),
          counts.bytes_released.load(kRelaxed)};
}

uint64_t NowNs() {
  if (fake_active.load(std::memory_order_acquire)) {
    return fake_now.load(std::memory_order_acquire);
  }
  return RealNowNs();
}

namespace internal {

ScopedFakeClock::ScopedFakeClock() {
  fake_now.store(RealNowNs(), std::memory_order_release);
  fake_active.store(true, std::memory_order_release);
}

ScopedFakeClock::~ScopedFakeClock() {
  fake_active.store(false, std::memory_order_release);
}

void ScopedFakeClock::Advance(uint64_t ns) {
  fake_now.fetch_add(ns, std::memory_order_acq_rel);
}

void CloseMapGate() { gate.store(1, std::memory_order_release); }

void WaitUntilParkedAtMapGate() {
  while (gate.load(std::memory_order_acquire) != 2) sched_yield();
}

void OpenMapGate() { gate.store(0, std::memory_order_release); }

ScopedMapRefusal::ScopedMapRefusal()
    : refused_before_(refused_maps.load(std::memory_order_relaxed)) {
  refusing.store(true, std::memory_order_release);
}

ScopedMapRefusal::~ScopedMapRefusal() {
  refusing.store(false, std::memory_order_release);
}

uint64_t ScopedMapRefusal::refused() const {
  return refused_maps.load(std::memory_order_relaxed) - refused_before_;
}

void SetMapObserver(void (*observer)()) {
  map_observer.store(observer, std::memory_order_release);
}

std::optional<uint64_t> ResidentMappedBytes() {
  KeepErrno keep;
  if (mappings_lost.load(std::memory_order_acquire)) return std::nullopt;
  const size_t page = PageSize();
  constexpr size_t kPagesPerCall = 4096;
  unsigned char resident[kPagesPerCall];
  uint64_t total = 0;
  for (const std::atomic<uint64_t>& slot : mappings) {
    const uint64_t word = slot.load(std::memory_order_acquire);
    if (word == 0) continue;
    const uintptr_t start = MappingStart(word);
    const size_t pages = MappingBytes(word) / page;
    for (size_t done = 0; done < pages; done += kPagesPerCall) {
      const size_t n = std::min(kPagesPerCall, pages - done);
      // Fails (ENOMEM) only for a range unmapped since the table was read:
      // counted as nothing, which a lower bound may.
      if (mincore(reinterpret_cast<void*>(start + done * page), n * page,
                  resident) != 0) {
        continue;
      }
      for (size_t i = 0; i < n; ++i) total += (resident[i] & 1) * page;
    }
  }
  if (mappings_lost.load(std::memory_order_acquire)) return std::nullopt;
  return total;
}

}  // namespace internal
}  // namespace allocator_design
