// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: pages.h
// -----------------------------------------------------------------------------
//
// The page source: the only way the lab's allocators get memory from the
// kernel and give it back, and the clock their decay reads. Every call is
// one system call (an aligned mapping: up to three), and every call is
// counted, so that a test can hold an allocator's own counters (task.h's
// Counters) to what really happened, and the experiment can show the
// system calls per operation.
//
// Nothing here calls malloc: it runs inside malloc. And nothing here
// changes errno: free() must leave it as it was (POSIX.1-2024), and a
// failed map is the caller's to report (malloc sets ENOMEM itself).
//
// An unmap or release outside the contract below is refused, as glibc
// refuses a bad free() ("munmap_chunk(): invalid pointer"): the call
// writes one line to stderr naming itself, its arguments and the rule it
// breaks, and aborts the process. A correct allocator never sees it; a
// wrong one stops at its first bad call, not at a crash far from it.
//
// Example:
//
//   void* span = allocator_design::MapAlignedPages(1 << 20, 1 << 20);
//   if (span == nullptr) return nullptr;  // the kernel refused
//   // ... carve blocks from it; when all are free and idle:
//   allocator_design::ReleasePages(span, 1 << 20);  // still mapped, zeroes
//   allocator_design::PageSourceCounts c =
//       allocator_design::ReadPageSourceCounts();
//   // c.map_calls == 1, c.bytes_released == 1 << 20

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_PAGES_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_PAGES_H_

#include <cstddef>
#include <cstdint>

namespace allocator_design {

// PageSize()
//
// The kernel's page size (sysconf(_SC_PAGESIZE)): every length below is a
// multiple of it.
size_t PageSize();

// MapPages()
//
// `bytes` of fresh, zeroed, readable and writable memory (mmap, anonymous,
// private), page-aligned; nullptr when the kernel refuses or `bytes` is 0 or
// not a multiple of PageSize().
void* MapPages(size_t bytes);

// MapAlignedPages()
//
// As MapPages(), aligned to `alignment` (a power of two, at least
// PageSize()): one mapping of bytes + alignment, and its two ends unmapped.
void* MapAlignedPages(size_t bytes, size_t alignment);

// UnmapPages()
//
// munmap: the range is gone, its addresses may be handed out again by the
// kernel. `pages` and `bytes` as one of the calls above gave them, or a
// page-aligned part of it: `pages` page-aligned, `bytes` a multiple of
// PageSize(), and every page of the range in a live mapping (mapped by the
// calls above and not unmapped since; the range may span adjacent ones).
// Anything else is refused: a line on stderr, and abort(). An empty range
// (`bytes` 0 at a page-aligned `pages`, nullptr too) is no call: nothing
// happens and nothing is counted.
void UnmapPages(void* pages, size_t bytes);

// ReleasePages()
//
// madvise(MADV_DONTNEED): the kernel takes the pages back now, the range
// stays mapped, and reads as zeroes on its next touch (a page fault each).
// `pages` and `bytes` as for UnmapPages(), refused and empty alike.
void ReleasePages(void* pages, size_t bytes);

// PageSourceCounts
//
// Every call since the process started, and the bytes each kind moved.
struct PageSourceCounts {
  uint64_t map_calls = 0;  // MapPages() and MapAlignedPages() that succeeded
  uint64_t unmap_calls = 0;
  uint64_t release_calls = 0;
  uint64_t bytes_mapped = 0;  // asked for, without an aligned map's ends
  uint64_t bytes_unmapped = 0;
  uint64_t bytes_released = 0;
};

// ReadPageSourceCounts()
PageSourceCounts ReadPageSourceCounts();

// NowNs()
//
// The clock of the decay (task.h's kDecayNs): CLOCK_MONOTONIC in
// nanoseconds. Tests replace it (internal/pages_testing.h), so that "a
// second later" needs no second.
uint64_t NowNs();

}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_PAGES_H_
