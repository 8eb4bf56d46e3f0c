// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: reserve room for the longest line (45 bytes, the largest id's)
// before writing, "so that once `out` is warm no line can ever make it
// grow". Warmed by the longest line it never allocates; but an `out` with
// exactly the capacity for a shorter line is made to grow: task.h promises
// no allocation when `out` has the capacity for *the* line, not for the
// longest one. The suite must reject it.

#include "labs/allocator_cost/task.h"

// The reference, with its FormatRecordInto() renamed out of the way.
#define FormatRecordInto ReferenceFormatRecordInto
#include "solutions/allocator_cost/task.cc"
#undef FormatRecordInto

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  constexpr size_t kLongestLine = 45;  // "id=18446744073709551615 ..."
  out.clear();
  out.reserve(kLongestLine);
  AppendRecord(id, out);
}

}  // namespace allocator_cost
