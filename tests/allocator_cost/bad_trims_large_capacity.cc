// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "a short line in a huge buffer wastes memory", so a string with
// more than 1 KiB of room is trimmed to the line before it is filled. Warm
// calls on a buffer the call itself grew never reach that size, and a
// buffer reserved for exactly the line is untouched; but a caller whose
// string has far more room than the line (a buffer shared with long lines)
// pays an allocation on every call, which task.h forbids when `out` already
// has the capacity. The suite must reject it.

#include "labs/allocator_cost/task.h"

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  out.clear();
  if (out.capacity() > 1024) out.shrink_to_fit();  // the mistake
  AppendRecord(id, out);
}

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  out.resize(kBlockBytes);
  FillBlock(seed, absl::MakeSpan(out));
}

}  // namespace allocator_cost
