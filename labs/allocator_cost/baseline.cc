// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/allocator_cost/baseline.h"

#include "absl/strings/str_cat.h"

namespace allocator_cost {

void AppendRecord(uint64_t id, std::string* out) {
  absl::StrAppend(out, "id=", id, " name=user", id % 1000,
                  " score=", id * 7 % 101);
}

std::string FormatRecordNew(uint64_t id) {
  std::string line;
  AppendRecord(id, &line);
  return line;
}

void FillBlock(uint64_t seed, absl::Span<uint8_t> out) {
  // xorshift64 needs a non-zero state; the golden-ratio constant gives one
  // for every seed, 0 included.
  uint64_t state = seed ^ 0x9e3779b97f4a7c15ULL;
  for (uint8_t& byte : out) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    byte = static_cast<uint8_t>(state);
  }
}

std::vector<uint8_t> FillBlockNew(uint64_t seed) {
  // Not std::vector(n): that would zero the bytes first and double the work.
  std::vector<uint8_t> block;
  block.resize(kBlockBytes);
  FillBlock(seed, absl::MakeSpan(block));
  return block;
}

}  // namespace allocator_cost
