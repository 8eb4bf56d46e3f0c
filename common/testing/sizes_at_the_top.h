// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: sizes_at_the_top.h
// -----------------------------------------------------------------------------
//
// The sizes at the top of size_t that the suites try on every function of
// a lab that takes a size: SIZE_MAX, the last page, the sizes whose rounding
// up to a 4 KiB class, to this machine's page or to a 1 MiB class wraps
// around to a small number, and the first sizes over PTRDIFF_MAX (which no
// allocation can have: malloc, mmap and every C++ container refuse them).
// A solution that rounds `size + granule - 1` without a check turns each of
// these into a tiny size and hands out a tiny block, or none at all, where
// its task promises an error; one that sizes a std::vector or `new[]` with
// them throws, and the program ends. No correct answer to any of them is a
// block of that size.
//
// Example:
//
//   for (const alloclab::TopSize& size : alloclab::SizesAtTheTop()) {
//     EXPECT_FALSE(PrepareBuffer(size.bytes).ok()) << size.what;
//   }

#ifndef ALLOCLAB_COMMON_TESTING_SIZES_AT_THE_TOP_H_
#define ALLOCLAB_COMMON_TESTING_SIZES_AT_THE_TOP_H_

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace alloclab {

// TopSize
//
// One size, a name for a test (letters, digits and underscores) and what it
// is, for a failure message.
struct TopSize {
  size_t bytes;
  std::string id;
  std::string what;
};

// How GoogleTest prints a TopSize (a parameter of a test): what it is.
inline void PrintTo(const TopSize& size, std::ostream* os) {
  *os << size.what << " (" << size.bytes << ")";
}

// SizesAtTheTop()
//
// The sizes, largest first, each named.
inline std::vector<TopSize> SizesAtTheTop() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t kMax = SIZE_MAX;
  const size_t kOverPtrdiff = static_cast<size_t>(PTRDIFF_MAX) + 1;
  return {
      {kMax, "size_max", "SIZE_MAX"},
      {kMax - 4096 + 2, "wraps_at_4_kib",
       "SIZE_MAX - 4094: rounded up to 4 KiB, it wraps to 0"},
      {kMax - page + 1, "last_page",
       "SIZE_MAX - page + 1: the last page of size_t"},
      {kMax - page + 2, "wraps_at_a_page",
       "SIZE_MAX - page + 2: rounded up to a page, it wraps"},
      {kMax - (size_t{1} << 20) + 2, "wraps_at_1_mib",
       "SIZE_MAX - 1 MiB + 2: rounded up to 1 MiB, it wraps"},
      {kOverPtrdiff + 1, "wraps_at_a_power_of_two",
       "PTRDIFF_MAX + 2: rounded up to a power of two, it wraps to 0"},
      {kOverPtrdiff, "over_ptrdiff_max",
       "PTRDIFF_MAX + 1: the first size no allocation can have"},
  };
}

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_TESTING_SIZES_AT_THE_TOP_H_
