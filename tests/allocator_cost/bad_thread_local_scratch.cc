// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: format into a thread-local scratch string, then copy it into
// `out`. "The scratch is kept per thread, so after its first call nothing
// allocates, and every test warms up before it counts." But the scratch
// allocates on each thread's first call, into an `out` that already had the
// capacity for the line: task.h promises no allocation then, on every
// thread's first call as on its hundredth. The suite must reject it.

#include "labs/allocator_cost/task.h"

// The reference, with its FormatRecordInto() renamed out of the way.
#define FormatRecordInto ReferenceFormatRecordInto
#include "solutions/allocator_cost/task.cc"
#undef FormatRecordInto

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  thread_local std::string scratch;
  scratch.clear();
  AppendRecord(id, scratch);
  out.assign(scratch);
}

}  // namespace allocator_cost
