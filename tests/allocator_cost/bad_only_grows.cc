// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: grow the caller's vector only when it is too small, and fill
// its first `kBlockBytes` bytes. It never allocates once warm and every test
// that starts from a small vector passes; but a caller whose vector is
// larger than a block keeps its size, so `out` does not hold exactly
// FillBlockNew(seed). The suite must reject it.

#include "labs/allocator_cost/task.h"

// The reference, with its FillBlockInto() renamed out of the way.
#define FillBlockInto ReferenceFillBlockInto
#include "solutions/allocator_cost/task.cc"
#undef FillBlockInto

namespace allocator_cost {

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  if (out.size() < kBlockBytes) out.resize(kBlockBytes);
  FillBlock(seed, absl::MakeSpan(out.data(), kBlockBytes));
}

}  // namespace allocator_cost
