// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: sink.h
// -----------------------------------------------------------------------------
//
// A way to keep an allocation the compiler would rather delete. GCC at -O2
// removes a malloc whose result is never used, and a malloc/free (or
// new/delete) pair on a pointer nothing else reads: the call a lab means to
// count or time is then simply gone, and the count reads 0. A probe that
// allocates only to change the heap's state (take the top chunk, keep a
// block) has exactly such pointers, and so does a loop that writes a block
// and frees it.
//
// `Escape()` tells the compiler that a pointer, and the memory behind it,
// is seen by code it cannot look into: the allocation must happen, and
// stores into the memory made before the call must be done by then. It
// emits no instruction of its own. For a value rather than a pointer, a
// volatile sink (`volatile uint64_t g_sink; g_sink = result;`) does the
// same job; in Google Benchmark code, `benchmark::DoNotOptimize()`.
//
// Example:
//
//   void* block = malloc(256 * 1024);
//   memset(block, 1, 256 * 1024);
//   alloclab::Escape(block);  // the malloc, the memset and the free stay
//   free(block);

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_SINK_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_SINK_H_

namespace alloclab {

// Escape()
//
// An empty asm statement that takes `p` as an input and clobbers memory: as
// far as the optimizer knows, it may read `p`, everything `p` points to, and
// any other memory. A null `p` is fine (malloc's failure can be escaped too).
inline void Escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_SINK_H_
