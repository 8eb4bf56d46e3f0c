// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "format into scratch memory, then copy; `out` keeps its
// capacity". It does, and no operator new is called, but the scratch buffer
// is one malloc and one free per call: exactly the cost the lab is about,
// made with the C functions instead of a std::string. The suite must reject
// it, which it can only because //common/instruments:alloc_counter counts
// malloc too.

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "labs/allocator_cost/task.h"

// The reference, with its FormatRecordInto() renamed out of the way.
#define FormatRecordInto ReferenceFormatRecordInto
#include "solutions/allocator_cost/task.cc"
#undef FormatRecordInto

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  constexpr size_t kScratchBytes = 64;  // the longest line is 45 bytes
  char* scratch = static_cast<char*>(malloc(kScratchBytes));
  if (scratch == nullptr) return;
  const int n = snprintf(scratch, kScratchBytes,
                         "id=%" PRIu64 " name=user%" PRIu64 " score=%" PRIu64,
                         id, id % 1000, static_cast<uint64_t>(id * 7) % 101);
  out.assign(scratch, static_cast<size_t>(n));
  free(scratch);
}

}  // namespace allocator_cost
