// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_cost: the starter. It produces the right bytes, but each call
// still builds a fresh string or vector and moves it into the caller's, so
// every call pays one malloc and one free: exactly what the "new" versions
// do. Run `bazel run //labs/allocator_cost -- --quick` to see it in the
// table, then make the allocations per call of the reuse rows 0.00.

#include "labs/allocator_cost/task.h"

namespace allocator_cost {

void FormatRecordInto(uint64_t id, std::string& out) {
  // TODO(you): write the line into `out`'s existing memory instead.
  out = FormatRecordNew(id);
}

void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out) {
  // TODO(you): fill `out`'s existing 256 KiB instead of a new vector.
  out = FillBlockNew(seed);
}

}  // namespace allocator_cost
