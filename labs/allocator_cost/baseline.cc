// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/allocator_cost/baseline.h"

#include <cstring>

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
  // for every seed, 0 included. Each step yields 8 bytes.
  uint64_t state = seed ^ 0x9e3779b97f4a7c15ULL;
  size_t i = 0;
  for (; i + sizeof(state) <= out.size(); i += sizeof(state)) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    std::memcpy(out.data() + i, &state, sizeof(state));
  }
  for (; i < out.size(); ++i) out[i] = static_cast<uint8_t>(state >> (8 * (i % 8)));
}

std::vector<uint8_t> FillBlockNew(uint64_t seed) {
  std::vector<uint8_t> block(kBlockBytes);  // zeroed, then overwritten
  FillBlock(seed, absl::MakeSpan(block));
  return block;
}

}  // namespace allocator_cost
