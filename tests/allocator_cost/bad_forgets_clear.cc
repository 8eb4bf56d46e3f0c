// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: appends to the caller's string without clearing it first. No
// allocation while the capacity lasts, but the line is wrong from the
// second call on. The suite must reject it.

#include "labs/allocator_cost/task.h"

// The reference, with its FormatRecordInto() renamed out of the way.
#define FormatRecordInto ReferenceFormatRecordInto
#include "solutions/allocator_cost/task.cc"
#undef FormatRecordInto

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) { AppendRecord(id, out); }

}  // namespace allocator_cost
