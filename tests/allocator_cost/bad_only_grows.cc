// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: grow the caller's vector only when it is too small, and fill
// its first `kBlockBytes` bytes. It never allocates once warm and every test
// that starts from a small vector passes; but a caller whose vector is
// larger than a block keeps its size, so `out` does not hold exactly
// FillBlockNew(seed). The suite must reject it.

#include "labs/allocator_cost/task.h"

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  out.clear();
  AppendRecord(id, out);
}

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  if (out.size() < kBlockBytes) out.resize(kBlockBytes);
  FillBlock(seed, absl::MakeSpan(out.data(), kBlockBytes));
}

}  // namespace allocator_cost
