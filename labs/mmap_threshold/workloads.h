// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: workloads.h
// -----------------------------------------------------------------------------
//
// The given half of lab mmap_threshold: the call whose system calls the lab
// counts. It asks malloc for a 256 KiB buffer, writes every byte of it (so
// every page is touched, as real work on the buffer would), and frees it.
// 256 KiB is twice glibc's initial mmap threshold, so the first call gets a
// mapping of its own; what the next 999 calls get is the lab's question.
//
// The experiment and the tests run exactly this code, so their counts can be
// compared with each other and with `strace -c` of the same loop.
//
// Example:
//
//   mmap_threshold::BigBufferCalls(1000);  // the reference run's loop

#ifndef ALLOCLAB_LABS_MMAP_THRESHOLD_WORKLOADS_H_
#define ALLOCLAB_LABS_MMAP_THRESHOLD_WORKLOADS_H_

#include <cstddef>
#include <cstdint>

namespace mmap_threshold {

// kBlockBytes
//
// The big buffer: 256 KiB, 64 pages of 4 KiB.
inline constexpr size_t kBlockBytes = 256 * 1024;

// BigBufferCall()
//
// One call: malloc(kBlockBytes), fill it with `fill`, free it. Returns a
// byte read back from the buffer before the free, so that the compiler
// cannot drop the allocation (GCC deletes a malloc/free pair whose memory
// is never observed). Aborts with a message if malloc fails.
uint8_t BigBufferCall(uint8_t fill);

// BigBufferCalls()
//
// `calls` calls of BigBufferCall() in a row, each with its own fill byte.
void BigBufferCalls(int64_t calls);

// TouchEveryPage()
//
// Writes one byte in every page of `block` (`bytes` long): what a caller
// does to make sure a mapping it got is really backed by memory. The probes
// of the lab use it on blocks they free, so that the block is as real as the
// buffer of BigBufferCall().
void TouchEveryPage(void* block, size_t bytes);

}  // namespace mmap_threshold

#endif  // ALLOCLAB_LABS_MMAP_THRESHOLD_WORKLOADS_H_
