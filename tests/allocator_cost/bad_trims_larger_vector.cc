// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a vector that held more than twice a block is trimmed to one
// block ("give the excess back"). Its bytes are right, and a vector that
// held one block, warm or not, is filled in place; but a vector larger than
// two blocks held a block too, and task.h's "whatever its size before,
// larger ones included" with "must not allocate ... when `out` already held
// a block" forbids the new allocation shrink_to_fit() makes. The suite must
// reject it.

#include "labs/allocator_cost/task.h"

// The reference, with its FillBlockInto() renamed out of the way.
#define FillBlockInto ReferenceFillBlockInto
#include "solutions/allocator_cost/task.cc"
#undef FillBlockInto

namespace allocator_cost {

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  const bool was_larger = out.capacity() > 2 * kBlockBytes;
  out.resize(kBlockBytes);
  if (was_larger) out.shrink_to_fit();  // the mistake
  FillBlock(seed, absl::MakeSpan(out));
}

}  // namespace allocator_cost
