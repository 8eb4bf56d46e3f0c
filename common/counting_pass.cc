// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/counting_pass.h"

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "common/alloc_counter.h"

namespace alloclab {

uint64_t CountAllocations(absl::FunctionRef<void()> fn) {
  SetCountingMode(CountingMode::kPerThread);
  const uint64_t before = ThreadAllocations();
  fn();
  const uint64_t allocations = ThreadAllocations() - before;
  SetCountingMode(CountingMode::kOff);
  return allocations;
}

}  // namespace alloclab
