// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/stats/pseudo_random.h"

#include <cstring>

namespace alloclab {

void FillPseudoRandom(uint64_t seed, absl::Span<uint8_t> out) {
  XorShift64 words(seed);
  uint8_t* const bytes = out.data();
  const size_t size = out.size();
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= size; i += sizeof(uint64_t)) {
    const uint64_t word = words.Next();
    std::memcpy(bytes + i, &word, sizeof(word));  // host byte order
  }
  if (i < size) {
    const uint64_t word = words.Next();
    std::memcpy(bytes + i, &word, size - i);  // its first bytes, as stored
  }
}

}  // namespace alloclab
