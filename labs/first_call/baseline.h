// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: baseline.h
// -----------------------------------------------------------------------------
//
// The given half of lab first_call: the "real call" of the lab's imaginary
// program, and the plain way to get memory for it. The program keeps one
// 256 KiB working buffer and calls `Work()` on it; the question is what the
// first of those calls costs when nothing was prepared. Your task (task.h)
// is to prepare the buffer at start-up so that this first call costs what
// every later call costs.
//
// `MapBuffer()` is what a program gets when it just asks for memory: address
// space, with no page behind it yet. A fresh glibc process serves a 256 KiB
// malloc the same way (one mmap; see lab mmap_threshold), so the first write
// to each page is a page fault, paid inside whatever call writes first.
//
// Example:
//
//   absl::StatusOr<absl::Span<uint8_t>> buffer =
//       first_call::MapBuffer(first_call::kBufferBytes);
//   if (!buffer.ok()) return buffer.status();
//   uint64_t sum = first_call::Work(7, *buffer);  // 64 page faults here
//   sum = first_call::Work(8, *buffer);           // none here
//   first_call::UnmapBuffer(*buffer);

#ifndef ALLOCLAB_LABS_FIRST_CALL_BASELINE_H_
#define ALLOCLAB_LABS_FIRST_CALL_BASELINE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace first_call {

// kBufferBytes
//
// The working buffer: 256 KiB, as in the reference run; 64 pages where pages
// are 4 KiB. Code asks `PageBytes()` for the page size, never assumes it.
inline constexpr size_t kBufferBytes = 256 * 1024;

// PageBytes()
//
// The size of a base page on this machine, from sysconf(_SC_PAGESIZE).
size_t PageBytes();

// PagesIn()
//
// How many pages `bytes` bytes span, rounded up: the minor faults a first
// write to all of them costs with base pages.
size_t PagesIn(size_t bytes);

// Work()
//
// The real call: fills `buffer` with the xorshift64 stream of `seed`, eight
// bytes per step (the tail of a size that is not a multiple of 8 gets the
// low bytes of one more step; the same bytes as alloclab::FillPseudoRandom()
// of common/stats/pseudo_random.h), and returns `Checksum()` of what it wrote.
// It writes every byte, so it touches every page of the buffer; the work per
// byte is small, so that what a page fault costs shows in its time.
uint64_t Work(uint64_t seed, absl::Span<uint8_t> buffer);

// Checksum()
//
// Reads `buffer` back and folds it into one number: `Work()`'s result when
// the bytes are still the ones it wrote.
uint64_t Checksum(absl::Span<const uint8_t> buffer);

// MapBuffer()
//
// A private anonymous mapping of `bytes` (rounded up to whole pages),
// readable and writable, touched by nobody. It asks for base pages
// (MADV_NOHUGEPAGE), so that a system with transparent huge pages set to
// "always" cannot hide the faults this lab counts. InvalidArgument for 0
// bytes; ResourceExhausted, with mmap's reason, when the kernel refuses.
absl::StatusOr<absl::Span<uint8_t>> MapBuffer(size_t bytes);

// UnmapBuffer()
//
// Gives a `MapBuffer()` mapping back to the kernel; an empty span is a no-op.
void UnmapBuffer(absl::Span<uint8_t> buffer);

}  // namespace first_call

#endif  // ALLOCLAB_LABS_FIRST_CALL_BASELINE_H_
