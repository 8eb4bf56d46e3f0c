// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "assign() keeps the capacity, so this reuses the buffer". It
// does keep `out`'s capacity, but the fresh string built to assign from
// still costs one malloc and one free per call. The suite must reject it.

#include "labs/allocator_cost/task.h"

// The reference, with its FormatRecordInto() renamed out of the way.
#define FormatRecordInto ReferenceFormatRecordInto
#include "solutions/allocator_cost/task.cc"
#undef FormatRecordInto

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  const std::string fresh = FormatRecordNew(id);
  out.assign(fresh);
}

}  // namespace allocator_cost
