// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/counting_pass.h"

#include <atomic>
#include <cstdint>
#include <latch>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "common/instruments/alloc_counter.h"

namespace alloclab {

uint64_t CountAllocations(absl::FunctionRef<void()> fn) {
  SetCountingMode(CountingMode::kPerThread);
  const uint64_t before = ThreadAllocations();
  fn();
  const uint64_t allocations = ThreadAllocations() - before;
  SetCountingMode(CountingMode::kOff);
  return allocations;
}

uint64_t CountOnThreads(int threads, absl::FunctionRef<uint64_t()> total,
                        absl::FunctionRef<void(int thread)> body) {
  std::latch started(threads + 1);
  std::atomic<bool> go{false};
  std::vector<std::thread> team;
  team.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      started.arrive_and_wait();
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      body(t);
    });
  }
  started.arrive_and_wait();
  const uint64_t before = total();
  go.store(true, std::memory_order_release);
  for (std::thread& t : team) t.join();
  return total() - before;
}

}  // namespace alloclab
