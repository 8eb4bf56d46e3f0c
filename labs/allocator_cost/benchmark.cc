// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_cost with Google Benchmark, the standard harness, so that its
// numbers can be put beside the course's own experiment. A MemoryManager
// built on the course's allocation counter adds "allocs_per_iter" to each
// result: Google Benchmark runs each benchmark once more with it on, the way
// the experiment has a separate counting pass. Version 1.7.1 prints it only
// in the JSON output, and it counts the whole benchmark function, set-up
// included, divided by the iterations of that one run.
//
//   bazel run //labs/allocator_cost:benchmark
//   bazel run //labs/allocator_cost:benchmark -- --benchmark_filter=Small
//   bazel run //labs/allocator_cost:benchmark -- --benchmark_format=json

#include "benchmark/benchmark.h"

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/instruments/alloc_counter.h"
#include "labs/allocator_cost/task.h"

namespace allocator_cost {
namespace {

// MemoryManagerWithPointerStop
//
// Google Benchmark changed MemoryManager::Stop: 1.7 declares
// `Stop(Result*)` pure virtual (deprecated) beside `Stop(Result&)`, and 1.9
// has only `Stop(Result&)`. Probed from the installed header, not from a
// version number: where the pointer form exists, this base implements it by
// forwarding to the reference form; where it does not, it adds nothing.
// (Naming the deprecated form to probe for it, and overriding it, warn on
// 1.7: the warning is the point of the probe, not a mistake.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
template <typename Base, typename = void>
class MemoryManagerWithPointerStop : public Base {};

template <typename Base>
class MemoryManagerWithPointerStop<
    Base, std::void_t<decltype(std::declval<Base&>().Stop(
              std::declval<typename Base::Result*>()))>> : public Base {
 public:
  using Base::Stop;
  void Stop(typename Base::Result* result) override { this->Stop(*result); }
};
#pragma GCC diagnostic pop

// CountingMemoryManager
//
// Reports the allocations of the memory-measurement run, counted by
// //common/instruments:alloc_counter in per-thread mode; bytes are not tracked.
class CountingMemoryManager
    : public MemoryManagerWithPointerStop<benchmark::MemoryManager> {
 public:
  using MemoryManagerWithPointerStop::Stop;

  void Start() override {
    alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
    start_ = alloclab::TotalAllocations();
  }

  void Stop(Result& result) override {
    result.num_allocs =
        static_cast<int64_t>(alloclab::TotalAllocations() - start_);
    alloclab::SetCountingMode(alloclab::CountingMode::kOff);
  }

 private:
  uint64_t start_ = 0;
};

void BM_SmallNew(benchmark::State& state) {
  uint64_t id = 0;
  for (auto _ : state) {
    std::string line = FormatRecordNew(id++);
    benchmark::DoNotOptimize(line.data());
  }
}
BENCHMARK(BM_SmallNew);

void BM_SmallReuse(benchmark::State& state) {
  uint64_t id = 0;
  std::string line;
  for (auto _ : state) {
    FormatRecordInto(id++, line);
    benchmark::DoNotOptimize(line.data());
  }
}
BENCHMARK(BM_SmallReuse);

void BM_LargeNew(benchmark::State& state) {
  uint64_t seed = 0;
  for (auto _ : state) {
    std::vector<uint8_t> block = FillBlockNew(seed++);
    benchmark::DoNotOptimize(block.data());
  }
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(kBlockBytes));
}
BENCHMARK(BM_LargeNew);

void BM_LargeReuse(benchmark::State& state) {
  uint64_t seed = 0;
  std::vector<uint8_t> block;
  for (auto _ : state) {
    FillBlockInto(seed++, block);
    benchmark::DoNotOptimize(block.data());
  }
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(kBlockBytes));
}
BENCHMARK(BM_LargeReuse);

// The new-string call while state.range(0) strings of random sizes stay
// alive; each call frees a random one of them. Unlike the experiment, whose
// batches start from fresh random sizes, the slots here fill up with record
// lines as the iterations go on.
void BM_SmallNewLiveSet(benchmark::State& state) {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<size_t> size(16, 1024);
  std::vector<std::string> live(static_cast<size_t>(state.range(0)));
  for (std::string& s : live) s.assign(size(rng), 'x');
  uint64_t id = 0;
  for (auto _ : state) {
    std::string& slot = live[rng() % live.size()];
    slot = FormatRecordNew(id++);
    benchmark::DoNotOptimize(slot.data());
  }
}
BENCHMARK(BM_SmallNewLiveSet)->Arg(4096);

}  // namespace
}  // namespace allocator_cost

int main(int argc, char** argv) {
  alloclab::SetCountingMode(alloclab::CountingMode::kOff);
  allocator_cost::CountingMemoryManager memory_manager;
  benchmark::RegisterMemoryManager(&memory_manager);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  benchmark::RegisterMemoryManager(nullptr);
  return 0;
}
