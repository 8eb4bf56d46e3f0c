// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "tidy up" the block with the swap idiom before refilling it.
// The bytes are right, but swapping in a fresh vector hands the old memory
// back and allocates 256 KiB again on every call. The suite must reject it.

#include "labs/allocator_cost/task.h"

// The reference, with its FillBlockInto() renamed out of the way.
#define FillBlockInto ReferenceFillBlockInto
#include "solutions/allocator_cost/task.cc"
#undef FillBlockInto

namespace allocator_cost {

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  std::vector<uint8_t>(kBlockBytes).swap(out);
  FillBlock(seed, absl::MakeSpan(out));
}

}  // namespace allocator_cost
