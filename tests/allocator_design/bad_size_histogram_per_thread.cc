// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: every thread counts the sizes it asks for, in a table of its
// own ("to tune the size classes"): one counter per 16 bytes up to 256 KiB,
// 128 KiB of thread-local storage. Fixed state of a known size, but task.h
// lets each thread have at most kMaxThreadLocalBytes of it: every thread
// has the table, thousands of them at once, and none of it is memory the
// page source gave or the counters see. Nothing else is wrong: the
// reference does the rest. The suite must reject it.

#include <cstddef>
#include <cstdint>

#include "labs/allocator_design/task.h"

// The reference, with its entry point renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {
namespace {

constexpr size_t kCountedMax = size_t{256} << 10;
constinit thread_local uint64_t size_counts[kCountedMax / 16 + 1]
    __attribute__((tls_model("initial-exec"))) = {};

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  ++size_counts[(size < kCountedMax ? size : kCountedMax) / 16];
  return ReferenceAllocate(size, alignment, zero);
}

}  // namespace allocator_design
