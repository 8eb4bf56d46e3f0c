// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The page source and its test hooks (pages.h, internal/pages_testing.h).
// Its counters are relaxed atomics: each is touched once per system call,
// never on an allocator's fast path, and a reader wants totals, not an
// order between them. Its live mappings (for internal::ResidentMappedBytes()
// and for the check of every unmap and release) sit in a fixed table of its
// own static storage, one atomic word a mapping: nothing here calls malloc
// or maps for itself. A call outside pages.h's contract is refused as
// glibc refuses a bad free(): one line on stderr by write(2), and abort().

#include "labs/allocator_design/pages.h"

#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
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
// so, and an unmap or release is no longer checked against it. The suite's
// worst case is a few hundred live mappings. Slots are taken lowest first,
// and `slots_used` is one past the highest ever taken: readers stop there.
constexpr int kMappingSlots = 4096;
constexpr int kPageNumberBits = 40;
constexpr int kPageCountBits = 64 - kPageNumberBits;
constinit std::atomic<uint64_t> mappings[kMappingSlots] = {};
constinit std::atomic<int> slots_used{0};
constinit std::atomic<bool> mappings_lost{false};

// The table's writers that change a live slot (RemoveMapping()) take turns:
// `table_writer` is 0 or the process id of the one writing. A child of
// fork() finds its parent's id there when a thread it does not have was
// writing: it takes over, and the table, perhaps half changed, is lost.
constinit std::atomic<pid_t> table_writer{0};

// Bumped by every split of a mapping, after its right part is in a slot of
// its own and before the old slot shrinks (RemoveMapping(), Covered()).
constinit std::atomic<uint64_t> splits{0};

// The table observer (internal::SetTableObserver()), or null.
constinit std::atomic<void (*)(internal::TableStep, int)> table_observer{
    nullptr};

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

// The first thread that finds the gate closed says so and waits for it to
// open; a later one passes, so that what a test runs meanwhile may map.
// sched_yield, not a futex: the gate is for tests, where one thread waits.
void PassGate() {
  int expected = 1;
  if (gate.load(std::memory_order_acquire) == 0) return;
  if (!gate.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) {
    return;  // another thread waits here, or the gate just opened
  }
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

// Raises `slots_used` to at least `n`.
void UseSlots(int n) {
  int used = slots_used.load(std::memory_order_acquire);
  while (used < n && !slots_used.compare_exchange_weak(
                         used, n, std::memory_order_acq_rel)) {
  }
}

// Records a live mapping of `bytes` at `start` in a free slot: its index,
// or -1 when it fits in none (the table is lost). `slots_used` covers the
// slot before the mapping is in it.
int AddMapping(uintptr_t start, size_t bytes) {
  const uint64_t word = MappingWord(start, bytes);
  if (word != 0) {
    for (int i = 0; i < kMappingSlots; ++i) {
      std::atomic<uint64_t>& slot = mappings[i];
      if (slot.load(std::memory_order_relaxed) != 0) continue;
      UseSlots(i + 1);
      uint64_t expected = 0;
      if (slot.compare_exchange_strong(expected, word,
                                       std::memory_order_acq_rel)) {
        return i;
      }
    }
  }
  mappings_lost.store(true, std::memory_order_release);
  return -1;
}

void LockTable() {
  const pid_t me = getpid();
  for (;;) {
    pid_t holder = 0;
    if (table_writer.compare_exchange_weak(holder, me,
                                           std::memory_order_acquire)) {
      return;
    }
    if (holder != 0 && holder != me) {  // a parent's writer, not in this child
      if (table_writer.compare_exchange_strong(holder, me,
                                               std::memory_order_acquire)) {
        mappings_lost.store(true, std::memory_order_release);
        return;
      }
      continue;
    }
    sched_yield();
  }
}

void UnlockTable() { table_writer.store(0, std::memory_order_release); }

// Takes [start, start + bytes), about to be unmapped, out of the mappings
// that hold it (munmap may span several adjacent ones): each shrinks,
// splits in two, or goes. Before the munmap, so that no other thread's map
// can have been given these addresses yet and be taken out instead. Call
// it with the table locked (LockTable()).
//
// Every page of a live mapping is in some slot at every instant, for the
// readers, which take no lock (Covered(), ResidentMappedBytes()): a split
// first puts the right part in a slot of its own, then bumps `splits`,
// then shrinks the old slot to the left part (or frees it), each a release
// that the readers' acquires pair with. In between, the right part is in
// two slots, which a reader must bear (Covered() walks by the union). A
// reader's pass can still miss a page that moved during it: it read the
// new slot before the right part was added there, and the old one after
// it shrank. Then it saw the shrink, so it sees the bump of `splits` made
// before it, and reads a count other than the one it started with: it
// walks again. A reader that started with that count already read every
// slot after the right part was added, and found it. Writers take turns,
// so that two unmaps of parts of one mapping never split the same slot at
// once, one of them from a word the other already changed.
void RemoveMapping(uintptr_t start, size_t bytes) {
  const uintptr_t end = start + bytes;
  void (*observe)(internal::TableStep, int) =
      table_observer.load(std::memory_order_acquire);
  const int used = slots_used.load(std::memory_order_acquire);
  for (int i = 0; i < used; ++i) {
    std::atomic<uint64_t>& slot = mappings[i];
    const uint64_t word = slot.load(std::memory_order_acquire);
    if (word == 0) continue;
    const uintptr_t from = MappingStart(word);
    const uintptr_t to = from + MappingBytes(word);
    if (to <= start || end <= from) continue;  // no overlap
    const uint64_t left = from < start ? MappingWord(from, start - from) : 0;
    if (end < to) {
      const int right = AddMapping(end, to - end);
      if (observe != nullptr) observe(internal::TableStep::kSplitAdded, right);
      splits.fetch_add(1, std::memory_order_acq_rel);
    }
    slot.store(left, std::memory_order_release);
  }
}

// The end of the part of [start, end) that the live mappings cover from
// `start` on: `end` when they cover all of it, else the first page they do
// not. See RemoveMapping() for why a split meanwhile cannot hide a page.
uintptr_t Covered(uintptr_t start, uintptr_t end) {
  void (*observe)(internal::TableStep, int) =
      table_observer.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t splits_before = splits.load(std::memory_order_acquire);
    uintptr_t covered = start;
    bool progress = true;
    while (covered < end && progress) {
      progress = false;
      const int used = slots_used.load(std::memory_order_acquire);
      for (int i = 0; i < used && covered < end; ++i) {
        const uint64_t word = mappings[i].load(std::memory_order_acquire);
        if (observe != nullptr) observe(internal::TableStep::kWalkRead, i);
        if (word == 0) continue;
        const uintptr_t from = MappingStart(word);
        const uintptr_t to = from + MappingBytes(word);
        if (from <= covered && covered < to) {
          covered = to;
          progress = true;
        }
      }
    }
    if (covered >= end) return end;
    if (splits.load(std::memory_order_acquire) == splits_before) return covered;
  }
}

// A line for stderr, built without malloc or stdio.
class Line {
 public:
  Line& operator<<(const char* text) {
    while (*text != '\0' && used_ < sizeof(text_) - 1) text_[used_++] = *text++;
    return *this;
  }
  Line& operator<<(size_t n) {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    while (k > 0 && used_ < sizeof(text_) - 1) text_[used_++] = digits[--k];
    return *this;
  }
  Line& Hex(uintptr_t n) {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = "0123456789abcdef"[n % 16];
      n /= 16;
    } while (n != 0);
    *this << "0x";
    while (k > 0 && used_ < sizeof(text_) - 1) text_[used_++] = digits[--k];
    return *this;
  }
  [[noreturn]] void WriteAndAbort() {
    text_[used_++] = '\n';
    for (size_t done = 0; done < used_;) {
      const ssize_t n = write(STDERR_FILENO, text_ + done, used_ - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    abort();
  }

 private:
  char text_[400];  // the longest line is about 260 characters
  size_t used_ = 0;
};

// Refuses `call`(pages, bytes), outside pages.h's contract: one line on
// stderr naming the call, `why` (after the address of `page`, when
// `has_page`) and the contract's rule, then abort().
[[noreturn]] void Refuse(const char* call, void* pages, size_t bytes,
                         const char* why, bool has_page = false,
                         uintptr_t page = 0) {
  Line line;
  line << "allocator_design::" << call << "(";
  line.Hex(reinterpret_cast<uintptr_t>(pages))
      << ", " << bytes << ") refused: ";
  if (has_page) line.Hex(page) << " ";
  line << why
       << "; pages.h: `pages` and `bytes` as one of the map calls "
          "gave them, or a page-aligned part of it (PageSize() "
       << PageSize() << ")";
  line.WriteAndAbort();
}

// Checks `call`(pages, bytes) against pages.h's contract, and refuses it
// (Refuse()) when it breaks it. False for an empty range, which is no call.
bool Allowed(const char* call, void* pages, size_t bytes) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(pages);
  const size_t page = PageSize();
  if (start % page != 0) {
    Refuse(call, pages, bytes, "`pages` is not page-aligned");
  }
  if (bytes % page != 0) {
    Refuse(call, pages, bytes, "`bytes` is not a multiple of PageSize()");
  }
  if (bytes == 0) return false;
  if (bytes > UINTPTR_MAX - start) {
    Refuse(call, pages, bytes, "the range runs past the end of memory");
  }
  if (mappings_lost.load(std::memory_order_acquire)) return true;
  const uintptr_t covered = Covered(start, start + bytes);
  if (covered != start + bytes &&
      !mappings_lost.load(std::memory_order_acquire)) {
    Refuse(call, pages, bytes,
           "is a page in no live mapping of the page source (never mapped, "
           "or unmapped since)",
           true, covered);
  }
  return true;
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
  if (!Allowed("UnmapPages", pages, bytes)) return;
  const uintptr_t start = reinterpret_cast<uintptr_t>(pages);
  LockTable();
  RemoveMapping(start, bytes);
  UnlockTable();
  if (munmap(pages, bytes) != 0) {  // ENOMEM: too many mappings to split
    AddMapping(start, bytes);
    return;
  }
  Add(counts.unmap_calls, 1);
  Add(counts.bytes_unmapped, bytes);
}

void ReleasePages(void* pages, size_t bytes) {
  KeepErrno keep;
  if (!Allowed("ReleasePages", pages, bytes)) return;
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

bool ParkedAtMapGate() { return gate.load(std::memory_order_acquire) == 2; }

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

void SetTableObserver(void (*observer)(TableStep step, int slot)) {
  table_observer.store(observer, std::memory_order_release);
}

std::optional<uint64_t> ResidentMappedBytes() {
  KeepErrno keep;
  if (mappings_lost.load(std::memory_order_acquire)) return std::nullopt;
  const size_t page = PageSize();
  constexpr size_t kPagesPerCall = 4096;
  unsigned char resident[kPagesPerCall];
  uint64_t total = 0;
  const int used = slots_used.load(std::memory_order_acquire);
  for (int i = 0; i < used; ++i) {
    const uint64_t word = mappings[i].load(std::memory_order_acquire);
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
