// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_design: the starter. A correct allocator, and a naive one:
// one lock around everything, one free list per power-of-two size, blocks
// carved from 1 MiB chunks of the page source, big blocks mapped on their
// own and unmapped when freed, and nothing else ever given back. It passes
// every Validator* test of the suite; of the Design* ones, only those of
// promises 3 and 4 (its one shared list reuses whatever any thread freed)
// and four of promise 5's five traces: stages 1 and 2 of the suite's six
// (tests/allocator_design/stages.bzl, the chapter's "Your way in"). Run
// `bazel run //labs/allocator_design -- --quick` to see it in lab
// jemalloc_adoption's table, then climb the stages, one
// `bazel test //tests/allocator_design:stage_<n>_<name>_test` at a time
// (`bazel run //:board` names the highest you pass), up to
// `bazel test //tests/allocator_design:starter_test`, all of them at once.
//
// Every block has a 16-byte header just before it: the bytes the caller may
// use, and (for a block aligned beyond 16 bytes) how far it lies past the
// block it was cut from.

#include "labs/allocator_design/task.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"

namespace allocator_design {
namespace {

struct Header {
  size_t size;    // usable bytes after the header
  size_t offset;  // 0, or how far past its raw block an aligned block lies
};
static_assert(sizeof(Header) == kMinAlignment);

struct FreeBlock {
  FreeBlock* next;
};

constexpr size_t kChunkBytes = 1 << 20;
constexpr int kMinClass = 4;   // 16 bytes
constexpr int kMaxClass = 17;  // 128 KiB: larger blocks are mapped alone
constexpr size_t kMaxRequest = PTRDIFF_MAX;

// TODO(you): one lock on every call is promise 1's problem: every thread
// waits for every other, and each call is a visit to the shared pool.
constinit Lock lock;  // lock.h's, as task.h's rules say
constinit FreeBlock* free_lists[kMaxClass + 1] = {};
constinit char* chunk_next = nullptr;  // the chunk blocks are cut from
constinit char* chunk_end = nullptr;
constinit uint64_t central_visits = 0;
constinit uint64_t bytes_mapped = 0;
constinit uint64_t bytes_unmapped = 0;

Header* HeaderOf(const void* block) {
  return static_cast<Header*>(const_cast<void*>(block)) - 1;
}

int ClassOf(size_t size) {
  int c = kMinClass;
  while ((size_t{1} << c) < size) ++c;
  return c;
}

// A block of at least `size` bytes, 16-aligned, with its header set;
// `fresh` says whether it comes straight from the kernel (zeroed). Called
// with the lock held.
void* TakeBlock(size_t size, bool& fresh) {
  fresh = false;
  if (size <= (size_t{1} << kMaxClass)) {
    const int c = ClassOf(size);
    if (FreeBlock* b = free_lists[c]) {
      free_lists[c] = b->next;
      return b;
    }
    // TODO(you): a block freed here is only ever reused at its own size
    // (promise 5), and nothing goes back to the kernel (promises 2 to 4).
    const size_t need = sizeof(Header) + (size_t{1} << c);
    if (chunk_next == nullptr ||
        static_cast<size_t>(chunk_end - chunk_next) < need) {
      chunk_next = static_cast<char*>(MapPages(kChunkBytes));
      if (chunk_next == nullptr) return nullptr;
      chunk_end = chunk_next + kChunkBytes;
      bytes_mapped += kChunkBytes;
    }
    Header* h = reinterpret_cast<Header*>(chunk_next);
    chunk_next += need;
    *h = {size_t{1} << c, 0};
    fresh = true;
    return h + 1;
  }
  // Mapped alone, and unmapped by Free(): a thread that churned a block of
  // any size leaves nothing of it held (promise 3).
  const size_t page = PageSize();
  const size_t bytes = (sizeof(Header) + size + page - 1) / page * page;
  Header* h = static_cast<Header*>(MapPages(bytes));
  if (h == nullptr) return nullptr;
  bytes_mapped += bytes;
  *h = {bytes - sizeof(Header), 0};
  fresh = true;
  return h + 1;
}

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  if (alignment < kMinAlignment) alignment = kMinAlignment;
  if ((alignment & (alignment - 1)) != 0) return nullptr;
  if (size > kMaxRequest || alignment > kMaxRequest - size) return nullptr;
  // Aligned beyond 16: room to slide the block up to the next boundary.
  const size_t raw_size =
      alignment == kMinAlignment ? size : size + alignment - kMinAlignment;
  bool fresh;
  lock.Acquire();
  ++central_visits;
  char* raw = static_cast<char*>(TakeBlock(raw_size, fresh));
  lock.Release();
  if (raw == nullptr) return nullptr;
  if (zero && !fresh) memset(raw, 0, raw_size);
  const uintptr_t at = reinterpret_cast<uintptr_t>(raw);
  const size_t offset = ((at + alignment - 1) & ~(alignment - 1)) - at;
  if (offset == 0) return raw;
  // The aligned block's own header lies inside the raw block.
  char* block = raw + offset;
  *HeaderOf(block) = {HeaderOf(raw)->size - offset, offset};
  return block;
}

void Free(void* block) {
  if (block == nullptr) return;
  char* raw = static_cast<char*>(block) - HeaderOf(block)->offset;
  const size_t size = HeaderOf(raw)->size;
  if (size > (size_t{1} << kMaxClass)) {  // mapped alone: its header first
    lock.Acquire();
    ++central_visits;
    bytes_unmapped += sizeof(Header) + size;
    lock.Release();
    UnmapPages(HeaderOf(raw), sizeof(Header) + size);
    return;
  }
  FreeBlock* b = reinterpret_cast<FreeBlock*>(raw);
  lock.Acquire();
  ++central_visits;
  FreeBlock** list = &free_lists[ClassOf(size)];
  b->next = *list;
  *list = b;
  lock.Release();
}

size_t UsableSize(const void* block) { return HeaderOf(block)->size; }

// TODO(you): nothing here is per thread, so a thread's exit has nothing to
// give back. Yours will (promise 3).
void ThreadExit() {}

void ForkPrepare() { lock.Acquire(); }

void ForkParent() { lock.Release(); }

// The child has only the thread that forked, which holds the lock.
void ForkChild() { lock.Release(); }

Counters ReadCounters() {
  lock.Acquire();
  Counters c;
  c.central_visits = central_visits;
  c.bytes_held = bytes_mapped - bytes_unmapped;  // nothing is released
  c.bytes_returned = bytes_unmapped;
  lock.Release();
  return c;
}

}  // namespace allocator_design
