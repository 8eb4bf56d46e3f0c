// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The C ABI on task.h, written once for every implementation: malloc, free,
// calloc, realloc, reallocarray, posix_memalign, aligned_alloc, memalign,
// valloc, pvalloc and malloc_usable_size, with glibc's declarations (the
// compiler holds these definitions to <stdlib.h> and <malloc.h>), errno set
// to ENOMEM on every failure, and the fork handlers registered from a
// constructor. Linked into a shared library (`:libyours.so`) it replaces
// glibc's malloc through LD_PRELOAD; linked into a program it replaces it
// there (alwayslink, so that nothing needs to name it).
//
// Where the C standard leaves a choice, this shim makes glibc's, so that a
// program behaves the same on it:
//
//   - malloc(0) is a unique block; realloc(p, 0) with p non-null frees p
//     and returns NULL (errno untouched), as glibc's REALLOC_ZERO_BYTES_FREES;
//     realloc(NULL, n) is malloc(n);
//   - realloc keeps the block when its usable size suffices, even for a
//     smaller size; otherwise it moves the bytes, and on failure leaves the
//     old block as it was;
//   - a block that realloc moves to grow it gets room to grow again: at
//     least a quarter more than its old usable size, as tcmalloc's realloc
//     gives (below). A block grown by appends then moves a few dozen times
//     on its way to megabytes, not once per page;
//   - posix_memalign returns EINVAL unless the alignment is a power of two
//     multiple of sizeof(void*), and ENOMEM without touching errno;
//   - aligned_alloc fails with EINVAL unless the alignment is a power of two
//     (glibc 2.38 and later); memalign rounds any other alignment up to one
//     (as glibc's always has);
//   - valloc aligns to a page; pvalloc also rounds the size up to a page
//     (pvalloc(0) is one page).
//
// free() leaves errno as it found it (POSIX.1-2024) without saving it: the
// page source (pages.h), the only code of an allocator here that makes
// system calls, keeps errno itself, so the fast path of free() pays
// nothing for it (a save and a restore around Free() were 1.7 ns of the
// reference's 6.6 ns malloc/free pair).
//
// Example:
//
//   LD_PRELOAD=bazel-bin/labs/allocator_design/libyours.so ls /

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cstddef>
#include <cstdint>

#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace {

using allocator_design::Allocate;
using allocator_design::kMinAlignment;

bool IsPowerOfTwo(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// A block, or nullptr with errno set to ENOMEM.
void* AllocateOrNoMemory(size_t size, size_t alignment, bool zero) {
  void* block = Allocate(size, alignment, zero);
  if (block == nullptr) errno = ENOMEM;
  return block;
}

// The smallest power of two at least `n`; 0 when there is none.
size_t RoundUpToPowerOfTwo(size_t n) {
  size_t p = 1;
  while (p < n && p != 0) p <<= 1;
  return p;
}

// What realloc asks for when it must move a block of `usable` bytes to
// grow it: at least a quarter more (saturating at SIZE_MAX), so that each
// move multiplies the block's size by at least 5/4. A program that grows a
// block by appends (a string, a buffer read from a pipe) would otherwise
// move it at every append that crosses its usable size, which for a block
// rounded only to a page is every 4 KiB: a mapping, a copy of the whole
// block, its page faults and an unmap each time, quadratic in the final
// size. tcmalloc's realloc grows by the same quarter and falls back to the
// size asked for when the larger block is refused (gperftools 2.10 and
// 2.16, Debian 12's and 13's: do_realloc_with_callback() in
// src/tcmalloc.cc); glibc's realloc grows a mapped chunk with mremap,
// which moves page table entries, not bytes (glibc 2.36 and 2.41, Debian
// 12's and 13's: malloc.c's __libc_realloc calls mremap_chunk(), with
// HAVE_MREMAP set for Linux in malloc-sysdep.h).
size_t GrowthWithHeadroom(size_t usable) {
  const size_t quarter = usable / 4;
  return quarter > SIZE_MAX - usable ? SIZE_MAX : usable + quarter;
}

// glibc's memalign: an alignment that is not a power of two is rounded up
// to one; one too large to round is EINVAL.
void* Memalign(size_t alignment, size_t size) {
  if (alignment <= kMinAlignment) return AllocateOrNoMemory(size, 0, false);
  const size_t rounded = RoundUpToPowerOfTwo(alignment);
  if (rounded == 0) {
    errno = EINVAL;
    return nullptr;
  }
  return AllocateOrNoMemory(size, rounded, false);
}

// The pthread_atfork() handlers, registered once, before main(), when the
// library or the program that links the shim is loaded.
__attribute__((constructor)) void RegisterForkHandlers() {
  pthread_atfork(allocator_design::ForkPrepare, allocator_design::ForkParent,
                 allocator_design::ForkChild);
}

}  // namespace

extern "C" {

// malloc()
__attribute__((visibility("default"))) void* malloc(size_t size) noexcept {
  return AllocateOrNoMemory(size, 0, false);
}

// free()
__attribute__((visibility("default"))) void free(void* block) noexcept {
  if (block == nullptr) return;
  allocator_design::Free(block);
}

// calloc()
__attribute__((visibility("default"))) void* calloc(size_t count,
                                                    size_t size) noexcept {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return AllocateOrNoMemory(bytes, 0, true);
}

// realloc()
__attribute__((visibility("default"))) void* realloc(void* block,
                                                     size_t size) noexcept {
  if (block == nullptr) return AllocateOrNoMemory(size, 0, false);
  if (size == 0) {
    free(block);
    return nullptr;
  }
  const size_t usable = allocator_design::UsableSize(block);
  if (size <= usable) return block;
  void* moved = nullptr;
  const size_t headroom = GrowthWithHeadroom(usable);
  if (size < headroom) {
    // A refused headroom is no error yet: errno stays as it was.
    const int saved = errno;
    moved = Allocate(headroom, 0, false);
    errno = saved;
  }
  if (moved == nullptr) moved = AllocateOrNoMemory(size, 0, false);
  if (moved == nullptr) return nullptr;  // the old block stays as it was
  memcpy(moved, block, usable);
  free(block);
  return moved;
}

// reallocarray(): glibc's own calls its internal realloc, not this one.
__attribute__((visibility("default"))) void* reallocarray(
    void* block, size_t count, size_t size) noexcept {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(block, bytes);
}

// posix_memalign()
__attribute__((visibility("default"))) int posix_memalign(
    void** out, size_t alignment, size_t size) noexcept {
  if (!IsPowerOfTwo(alignment) || alignment % sizeof(void*) != 0) {
    return EINVAL;
  }
  const int saved = errno;
  void* block = Allocate(size, alignment, false);
  errno = saved;
  if (block == nullptr) return ENOMEM;
  *out = block;
  return 0;
}

// aligned_alloc()
__attribute__((visibility("default"))) void* aligned_alloc(
    size_t alignment, size_t size) noexcept {
  if (!IsPowerOfTwo(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return AllocateOrNoMemory(size, alignment, false);
}

// memalign()
__attribute__((visibility("default"))) void* memalign(size_t alignment,
                                                      size_t size) noexcept {
  return Memalign(alignment, size);
}

// valloc()
__attribute__((visibility("default"))) void* valloc(size_t size) noexcept {
  return Memalign(allocator_design::PageSize(), size);
}

// pvalloc()
__attribute__((visibility("default"))) void* pvalloc(size_t size) noexcept {
  const size_t page = allocator_design::PageSize();
  if (size > SIZE_MAX - (page - 1)) {
    errno = ENOMEM;
    return nullptr;
  }
  const size_t rounded = size == 0 ? page : (size + page - 1) & ~(page - 1);
  return Memalign(page, rounded);
}

// malloc_usable_size()
__attribute__((visibility("default"))) size_t malloc_usable_size(
    void* block) noexcept {
  return block == nullptr ? 0 : allocator_design::UsableSize(block);
}

}  // extern "C"
