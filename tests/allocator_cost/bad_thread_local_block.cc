// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: fill a thread-local scratch block, then copy it into `out`.
// "The scratch is allocated once per thread and reused, `out` is only
// resized, so a warm call allocates nothing", and every test that warms up
// with FillBlockInto() first agrees. But the scratch allocates, and faults
// in 256 KiB of new pages, on each thread's first call, into an `out` that
// already held a block (one of FillBlockNew()'s): task.h promises neither
// happens then. The suite must reject it.

#include <algorithm>

#include "labs/allocator_cost/task.h"

// The reference, with its FillBlockInto() renamed out of the way.
#define FillBlockInto ReferenceFillBlockInto
#include "solutions/allocator_cost/task.cc"
#undef FillBlockInto

namespace allocator_cost {

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  thread_local std::vector<uint8_t> scratch(kBlockBytes);
  FillBlock(seed, absl::MakeSpan(scratch));
  out.resize(kBlockBytes);
  std::copy(scratch.begin(), scratch.end(), out.begin());
}

}  // namespace allocator_cost
