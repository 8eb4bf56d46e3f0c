// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/allocator_cost/baseline.h"

#include "common/stats/pseudo_random.h"

namespace allocator_cost {

void FillBlock(uint64_t seed, absl::Span<uint8_t> out) {
  alloclab::FillPseudoRandom(seed, out);
}

std::vector<uint8_t> FillBlockNew(uint64_t seed) {
  std::vector<uint8_t> block(kBlockBytes);  // zeroed, then overwritten
  FillBlock(seed, absl::MakeSpan(block));
  return block;
}

}  // namespace allocator_cost
