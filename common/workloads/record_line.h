// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: record_line.h
// -----------------------------------------------------------------------------
//
// The record line, the course's small workload: one short formatted line per
// id, long enough that a fresh std::string of it always allocates. Lab
// allocator_cost measures its "new" and "reuse" forms; labs
// counter_contention and smt_siblings time the same line in their loops, so
// that the three measure one workload and no lab carries another's copy.
//
// Example:
//
//   std::string line = alloclab::FormatRecordNew(42);
//   // line == "id=42 name=user42 score=92"
//   line.clear();
//   alloclab::AppendRecord(43, line);  // reuses line's capacity

#ifndef ALLOCLAB_COMMON_WORKLOADS_RECORD_LINE_H_
#define ALLOCLAB_COMMON_WORKLOADS_RECORD_LINE_H_

#include <cstdint>
#include <string>

namespace alloclab {

// AppendRecord()
//
// Appends the record line of `id` to `out`:
//
//   id=<id> name=user<id % 1000> score=<id * 7 % 101>
//
// with `id * 7` computed in uint64_t (wrapping, as C++ unsigned arithmetic
// does). It allocates only when `out` lacks the capacity. Takes `out` by
// reference, as lab allocator_cost's task.h functions do.
void AppendRecord(uint64_t id, std::string& out);

// FormatRecordNew()
//
// Returns the record line of `id` in a new string. The shortest line (id 0)
// is 23 bytes, longer than libstdc++'s 15-byte small-string buffer, so every
// call allocates.
std::string FormatRecordNew(uint64_t id);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_WORKLOADS_RECORD_LINE_H_
