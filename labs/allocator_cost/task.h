// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: task.h
// -----------------------------------------------------------------------------
//
// Lab allocator_cost, your task: the "reuse" versions of the two calls in
// baseline.h. They write the same bytes as FormatRecordNew() and
// FillBlockNew(), but into memory the caller owns and passes in again on
// every call. Once that memory is warm (it has held one result as long as
// this one), a call must make no allocation at all, and the big block must
// not touch a page it has not touched before.
//
// The difference between the two halves, measured side by side by the
// experiment, is what one malloc+free costs (docs/labs/allocator_cost.md).
// `bazel test //tests/allocator_cost:starter_test` checks your task.cc.
//
// Example:
//
//   std::string line;                      // the caller keeps this
//   for (uint64_t id = 0; id < n; ++id) {
//     allocator_cost::FormatRecordInto(id, line);
//     Write(line);                         // allocation-free after id 0
//   }

#ifndef ALLOCLAB_LABS_ALLOCATOR_COST_TASK_H_
#define ALLOCLAB_LABS_ALLOCATOR_COST_TASK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "labs/allocator_cost/baseline.h"

namespace allocator_cost {

// FormatRecordInto()
//
// Replaces the contents of `out` with FormatRecordNew(id). Must not allocate
// when `out` already has the capacity for the line.
void FormatRecordInto(uint64_t id, std::string& out);

// FillBlockInto()
//
// Makes `out` hold exactly FillBlockNew(seed) (`kBlockBytes` bytes), whatever
// its size before, larger ones included. Must not allocate, nor fault in a
// new page, when `out` already held a block.
void FillBlockInto(uint64_t seed, std::vector<uint8_t>& out);

}  // namespace allocator_cost

#endif  // ALLOCLAB_LABS_ALLOCATOR_COST_TASK_H_
