// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: baseline.h
// -----------------------------------------------------------------------------
//
// The given half of lab allocator_cost: the "new" versions of the two calls,
// which build a fresh string or vector on every call and so pay for one
// malloc and one free each time. Your task (task.h) is the "reuse" half. Both
// produce exactly the same bytes; only where the memory comes from differs.
//
// Example:
//
//   std::string line = allocator_cost::FormatRecordNew(42);
//   // line == "id=42 name=user42 score=92"
//   std::vector<uint8_t> block = allocator_cost::FillBlockNew(7);
//   // block.size() == allocator_cost::kBlockBytes

#ifndef ALLOCLAB_LABS_ALLOCATOR_COST_BASELINE_H_
#define ALLOCLAB_LABS_ALLOCATOR_COST_BASELINE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "common/workloads/record_line.h"

namespace allocator_cost {

// kBlockBytes
//
// The big buffer: 256 KiB, twice glibc's initial mmap threshold (128 KiB).
inline constexpr size_t kBlockBytes = 256 * 1024;

// AppendRecord() / FormatRecordNew()
//
// The record line (common/workloads/record_line.h), the course's small
// workload: FormatRecordNew() is this lab's "new" form of it, a fresh string
// per call.
using alloclab::AppendRecord;
using alloclab::FormatRecordNew;

// FillBlock()
//
// Writes the block of `seed` into `out`: the labs' xorshift64 byte stream
// (common/stats/pseudo_random.h), so that every byte costs a little real work
// (about as much as the reference run's 256 KiB call) and the compiler
// cannot skip any.
void FillBlock(uint64_t seed, absl::Span<uint8_t> out);

// FillBlockNew()
//
// Returns a new vector of `kBlockBytes` bytes holding the block of `seed`.
std::vector<uint8_t> FillBlockNew(uint64_t seed);

}  // namespace allocator_cost

#endif  // ALLOCLAB_LABS_ALLOCATOR_COST_BASELINE_H_
