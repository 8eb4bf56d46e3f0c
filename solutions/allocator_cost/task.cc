// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_cost: the reference solution. Both calls keep the caller's
// memory: clear() and resize() never give capacity back, so once the buffer
// is warm there is nothing left to allocate.

#include "labs/allocator_cost/task.h"

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  out.clear();  // keeps the capacity
  AppendRecord(id, out);
}

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  out.resize(kBlockBytes);  // allocates only the first time
  FillBlock(seed, absl::MakeSpan(out));
}

}  // namespace allocator_cost
