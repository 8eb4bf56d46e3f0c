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

// The reference, with its FormatRecordInto() renamed out of the way.
#define FormatRecordInto ReferenceFormatRecordInto
#include "solutions/allocator_cost/task.cc"
#undef FormatRecordInto

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  out.clear();
  if (out.capacity() > 1024) out.shrink_to_fit();  // the mistake
  AppendRecord(id, out);
}

}  // namespace allocator_cost
