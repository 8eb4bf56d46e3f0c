// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: make room for the block with reserve(), "that is the call that
// allocates once", and fill the reserved bytes. The memory is there and is
// never allocated again, but the vector's size is whatever it was: `out`
// does not hold FillBlockNew(seed), whose kBlockBytes bytes sit beyond its
// end. The suite must reject it.

#include "labs/allocator_cost/task.h"

// The reference, with its FillBlockInto() renamed out of the way.
#define FillBlockInto ReferenceFillBlockInto
#include "solutions/allocator_cost/task.cc"
#undef FillBlockInto

namespace allocator_cost {

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  out.reserve(kBlockBytes);
  FillBlock(seed, absl::MakeSpan(out.data(), kBlockBytes));
}

}  // namespace allocator_cost
