// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: appends to the caller's string without clearing it first. No
// allocation while the capacity lasts, but the line is wrong from the
// second call on. The suite must reject it.

#include "labs/allocator_cost/task.h"

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) { AppendRecord(id, out); }

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  out.resize(kBlockBytes);
  FillBlock(seed, absl::MakeSpan(out));
}

}  // namespace allocator_cost
