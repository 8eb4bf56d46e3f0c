// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: internal/size_classes.h
// -----------------------------------------------------------------------------
//
// The size classes of the reference allocator (../task.cc), which
// thread_owned_pages.cc uses unchanged: 52 sizes from 16 bytes to 256 KiB
// (16-byte steps to 128, then four per doubling), the size of the spans
// that hold each class (64 KiB to a class of 16 KiB, above the smallest
// power of two that holds two blocks), the
// fast path's class of a size (ClassOf(), a table look-up to 1 KiB) and the
// alignment each class's blocks have, all checked at compile time. They
// are written once here so that the two allocators cannot drift apart in
// what the other design claims to share.
//
// Not a header of the ordinary kind: a piece of an allocator's source,
// included by exactly one translation unit per allocator (the reference's
// task.cc, and thread_owned_pages.cc), inside that allocator's
// `allocator_design` anonymous namespace, so that each library keeps its
// own definitions, with internal linkage, as if they were written in it.
// The includer provides <cstddef>, <cstdint> and task.h (kMinAlignment).
// Internal to solutions/allocator_design: nothing else may include it.
//
// Example:
//
//   namespace allocator_design {
//   namespace {
//   #include "solutions/allocator_design/internal/size_classes.h"
//   static_assert(ClassSize(ClassOf(100)) == 112);
//   }  // namespace
//   }  // namespace allocator_design

#ifndef SOLUTIONS_ALLOCATOR_DESIGN_INTERNAL_SIZE_CLASSES_H_
#define SOLUTIONS_ALLOCATOR_DESIGN_INTERNAL_SIZE_CLASSES_H_

// -----------------------------------------------------------------------------
// Size classes, computed at compile time.
// -----------------------------------------------------------------------------

constexpr size_t kSmallMax = size_t{256} << 10;
constexpr int kNumClasses = 52;

// ClassSize()
//
// Classes 0-7: 16, 32, ..., 128; then four per doubling: 160, 192, 224,
// 256, 320, ..., 256 KiB.
constexpr size_t ClassSize(int c) {
  if (c < 8) return size_t{16} * static_cast<size_t>(c + 1);
  const size_t base = size_t{128} << ((c - 8) / 4);
  return base + static_cast<size_t>((c - 8) % 4 + 1) * (base / 4);
}

// SizeToClass()
//
// The smallest class that holds `size` (<= kSmallMax; 0 is class 0).
constexpr int SizeToClass(size_t size) {
  if (size <= 128) return size == 0 ? 0 : static_cast<int>((size - 1) / 16);
  const int lg = 63 - __builtin_clzll(size - 1);  // 2^lg < size <= 2^(lg+1)
  const int step = static_cast<int>((size - 1) >> (lg - 2)) - 4;  // 0..3
  return 8 + (lg - 7) * 4 + step;
}

// Spans come in powers of two from 64 KiB, each aligned to its size (the
// pool keeps each size apart, KindOf()): 64 KiB for classes up to 16 KiB,
// and above, the smallest that holds kBlocksPerBigSpan blocks, 64 KiB to
// 512 KiB. A span of a large class is pinned while any of its blocks is
// live or in a cache: with spans of 1 MiB for every class above 16 KiB, a
// producer and a consumer of messages of every size from 16 KiB to 256 KiB
// held a MiB or more for each class (promise 4). kBigSpanBytes bounds
// them, and is the largest chunk.
constexpr size_t kSpanBytes = size_t{64} << 10;
constexpr size_t kBigSpanBytes = size_t{1} << 20;
constexpr size_t kSmallSpanMaxClass = size_t{16} << 10;
constexpr size_t kBlocksPerBigSpan = 2;
constexpr size_t SpanBytesOf(int c) {
  if (ClassSize(c) <= kSmallSpanMaxClass) return kSpanBytes;
  size_t bytes = kSpanBytes;
  while (bytes < kBlocksPerBigSpan * ClassSize(c)) bytes *= 2;
  return bytes;
}
constexpr int KindOf(size_t span_bytes) {  // 0: 64 KiB, 1: 128 KiB, ...
  int kind = 0;
  while ((kSpanBytes << kind) < span_bytes) ++kind;
  return kind;
}
constexpr int kSpanKinds = KindOf(SpanBytesOf(kNumClasses - 1)) + 1;

// The fast path's class of a size up to kLookupMax: one load, no branch.
constexpr size_t kLookupMax = 1024;
struct SmallClassTable {
  uint8_t of[kLookupMax / 16 + 1];
};
constexpr SmallClassTable MakeSmallClassTable() {
  SmallClassTable t{};
  for (size_t i = 0; i <= kLookupMax / 16; ++i) {
    t.of[i] = static_cast<uint8_t>(SizeToClass(i * 16));
  }
  return t;
}
constexpr SmallClassTable kSmallClass = MakeSmallClassTable();

constexpr bool SmallClassTableIsRight() {
  for (size_t size = 0; size <= kLookupMax; ++size) {
    if (kSmallClass.of[(size + 15) / 16] != SizeToClass(size)) return false;
  }
  return true;
}
static_assert(SmallClassTableIsRight(), "the small-size table is wrong");

[[gnu::always_inline]] inline int ClassOf(size_t size) {
  return size <= kLookupMax ? kSmallClass.of[(size + 15) / 16]
                            : SizeToClass(size);
}

// A block of class c starts at a multiple of its size from its span's
// start: its address is aligned to the largest power of two that divides
// the size (at most the span's alignment). An aligned request takes the
// first class whose blocks are aligned enough.
constexpr size_t ClassAlignment(int c) {
  const size_t s = ClassSize(c);
  const size_t natural = s & (~s + 1);
  return natural < SpanBytesOf(c) ? natural : SpanBytesOf(c);
}

constexpr bool ClassTableIsRight() {
  for (int c = 0; c < kNumClasses; ++c) {
    if (SizeToClass(ClassSize(c)) != c) return false;
    if (c + 1 < kNumClasses && SizeToClass(ClassSize(c) + 1) != c + 1) {
      return false;
    }
    if (ClassSize(c) % kMinAlignment != 0) return false;
    if (SpanBytesOf(c) / ClassSize(c) < kBlocksPerBigSpan) return false;
    if (SpanBytesOf(c) > kBigSpanBytes) return false;
  }
  return ClassSize(kNumClasses - 1) == kSmallMax;
}
static_assert(ClassTableIsRight(), "the size-class table is inconsistent");

#endif  // SOLUTIONS_ALLOCATOR_DESIGN_INTERNAL_SIZE_CLASSES_H_
