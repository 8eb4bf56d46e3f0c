// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/adoption/workloads.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/instruments/sink.h"
#include "common/stats/pseudo_random.h"
#include "common/workloads/churn.h"

namespace alloclab::adoption {
namespace {

// treemap: keys drawn from twice the target size, so that inserts and
// erases balance around a live set of about kTreemapLiveKeys nodes.
constexpr uint64_t kTreemapLiveKeys = 65536;
// msgsend: the queue holds this many messages; a full queue blocks its
// producers, an empty one its consumers.
constexpr size_t kQueueCapacity = 256;
// msgsend: message bodies of 16..256 bytes.
constexpr uint64_t kMessageMaxBytes = 256;

// Runs `body(thread_index)` on `threads` threads and sums what they return.
template <typename Body>
uint64_t OnThreads(int threads, Body body) {
  std::vector<uint64_t> results(static_cast<size_t>(threads), 0);
  std::vector<std::thread> team;
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] { results[static_cast<size_t>(t)] = body(t); });
  }
  uint64_t sum = 0;
  for (int t = 0; t < threads; ++t) {
    team[static_cast<size_t>(t)].join();
    sum += results[static_cast<size_t>(t)];
  }
  return sum;
}

uint64_t Treemap(const WorkloadParams& p) {
  return OnThreads(p.threads, [&](int t) {
    alloclab::XorShift64 rng(p.seed * 1000 + static_cast<uint64_t>(t));
    std::map<uint64_t, uint64_t> map;
    for (uint64_t i = 0; i < p.iterations; ++i) {
      const uint64_t draw = rng.Next();
      const uint64_t key = draw % (2 * kTreemapLiveKeys);
      if (draw & (uint64_t{1} << 40)) {
        map[key] = i;
      } else {
        map.erase(key);
      }
    }
    uint64_t sum = map.size();
    for (const auto& [key, value] : map) sum += key;
    return sum;
  });
}

uint64_t Scalability(const WorkloadParams& p, size_t bytes) {
  return OnThreads(p.threads, [&](int) {
    uint64_t done = 0;
    for (uint64_t i = 0; i < p.iterations; ++i) {
      void* block = std::malloc(bytes);
      if (block == nullptr) std::abort();
      alloclab::Escape(block);  // keeps the pair GCC would delete
      std::free(block);
      ++done;
    }
    return done;
  });
}

// A bounded FIFO of message pointers, in a fixed ring (no allocation of
// its own). Plain mutex and condition variables: their cost is the same
// under every allocator; what differs is who frees what another thread
// allocated.
class Queue {
 public:
  explicit Queue(int producers) : producers_(producers) {}

  void Push(void* message) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [&] { return count_ < kQueueCapacity; });
    ring_[(head_ + count_) % kQueueCapacity] = message;
    ++count_;
    not_empty_.notify_one();
  }

  // nullptr once every producer is done and the queue is empty.
  void* Pop() {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return count_ > 0 || producers_ == 0; });
    if (count_ == 0) return nullptr;
    void* message = ring_[head_];
    head_ = (head_ + 1) % kQueueCapacity;
    --count_;
    not_full_.notify_one();
    return message;
  }

  void ProducerDone() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--producers_ == 0) not_empty_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  void* ring_[kQueueCapacity] = {};
  size_t head_ = 0;
  size_t count_ = 0;
  int producers_;
};

// A message: its size, then bytes the consumer reads.
uint64_t Msgsend(const WorkloadParams& p) {
  const int producers = p.threads >= 2 ? p.threads / 2 : 1;
  const int consumers = p.threads >= 2 ? p.threads - producers : 1;
  Queue queue(producers);
  std::atomic<uint64_t> checksum{0};
  std::vector<std::thread> team;
  for (int t = 0; t < producers; ++t) {
    const uint64_t share =
        p.iterations / static_cast<uint64_t>(producers) +
        (static_cast<uint64_t>(t) <
                 p.iterations % static_cast<uint64_t>(producers)
             ? 1
             : 0);
    team.emplace_back([&, t, share] {
      alloclab::XorShift64 rng(p.seed * 1000 + static_cast<uint64_t>(t));
      for (uint64_t i = 0; i < share; ++i) {
        const uint64_t bytes = 16 + rng.Next() % (kMessageMaxBytes - 15);
        auto* message = static_cast<uint64_t*>(std::malloc(bytes));
        if (message == nullptr) std::abort();
        message[0] = bytes;
        message[1] = i;
        queue.Push(message);
      }
      queue.ProducerDone();
    });
  }
  for (int t = 0; t < consumers; ++t) {
    team.emplace_back([&] {
      uint64_t sum = 0;
      while (void* message = queue.Pop()) {
        const auto* words = static_cast<const uint64_t*>(message);
        sum += words[0] + words[1];
        std::free(message);  // mostly not the thread that allocated it
      }
      checksum += sum;
    });
  }
  for (std::thread& thread : team) thread.join();
  return checksum.load();
}

// large_blocks: each allocation replaces the block of a random slot (freed
// first, as a program drops its old buffer before it reads the next) with
// one of a random size, written every kLargeBlocksTouchStride bytes and
// read back at its ends.
uint64_t LargeBlocks(const WorkloadParams& p) {
  alloclab::XorShift64 rng(p.seed);
  unsigned char* slots[kLargeBlocksLive] = {};
  uint64_t sizes[kLargeBlocksLive] = {};
  uint64_t sum = 0;
  for (uint64_t i = 0; i < p.iterations; ++i) {
    const uint64_t slot = rng.Next() % kLargeBlocksLive;
    const uint64_t bytes =
        kLargeBlocksMinBytes +
        rng.Next() % (kLargeBlocksMaxBytes - kLargeBlocksMinBytes + 1);
    std::free(slots[slot]);
    auto* block = static_cast<unsigned char*>(std::malloc(bytes));
    if (block == nullptr) return 0;
    for (uint64_t at = 0; at < bytes; at += kLargeBlocksTouchStride) {
      block[at] = static_cast<unsigned char>(i + at / kLargeBlocksTouchStride);
    }
    block[bytes - 1] = static_cast<unsigned char>(i);
    alloclab::Escape(block);
    sum += bytes + block[0] + block[bytes - 1];
    slots[slot] = block;
    sizes[slot] = bytes;
  }
  for (int s = 0; s < kLargeBlocksLive; ++s) {
    if (slots[s] != nullptr) sum += sizes[s] % 4096;
    std::free(slots[s]);
  }
  return sum;
}

}  // namespace

const std::vector<std::string>& WorkloadNames() {
  static const auto* const kNames = new std::vector<std::string>{
      "treemap", "scalability_8", "scalability_1024",
      "msgsend", "churn",         "large_blocks"};
  return *kNames;
}

absl::Status CheckWorkloadName(absl::string_view workload) {
  for (const std::string& name : WorkloadNames()) {
    if (workload == name) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown workload '", workload,
                   "'; known: ", absl::StrJoin(WorkloadNames(), ", ")));
}

uint64_t Operations(absl::string_view workload, int threads,
                    uint64_t iterations) {
  if (workload == "msgsend" || workload == "churn" ||
      workload == "large_blocks") {
    return iterations;
  }
  return iterations * static_cast<uint64_t>(threads > 0 ? threads : 1);
}

uint64_t DefaultIterations(absl::string_view workload, bool quick) {
  uint64_t full = 0;
  uint64_t quick_share_percent = 10;  // of the full count, when quick
  if (workload == "treemap") {
    full = 400'000;
    quick_share_percent = 50;  // its peak RSS grows with the nodes made
  }
  if (workload == "scalability_8" || workload == "scalability_1024") {
    full = 16'777'216;  // the linux-scalability test's count
  }
  if (workload == "msgsend") full = 4'000'000;
  if (workload == "churn") {
    full = 200'000;            // the musl thread's count
    quick_share_percent = 75;  // glibc's peak RSS grows with every call
  }
  if (workload == "large_blocks") {
    full = 1'000;
    quick_share_percent = 25;  // its peak RSS grows as larger sizes are drawn
  }
  return quick ? full / 100 * quick_share_percent : full;
}

absl::StatusOr<uint64_t> RunWorkload(absl::string_view workload,
                                     const WorkloadParams& params) {
  if (absl::Status s = CheckWorkloadName(workload); !s.ok()) return s;
  if (params.threads < 1 || params.threads > kMaxThreads ||
      params.iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload ", workload, ": threads (", params.threads, ") must be 1 to ",
        kMaxThreads, " and iterations (", params.iterations, ") at least 1"));
  }
  if (workload == "treemap") return Treemap(params);
  if (workload == "scalability_8") return Scalability(params, 8);
  if (workload == "scalability_1024") return Scalability(params, 1024);
  if (workload == "msgsend") return Msgsend(params);
  if (workload == "churn") {
    churn_params churn = {};
    churn.iterations = params.iterations;
    churn.scale = kChurnScale;
    churn.seed = params.seed;
    if (const char* problem = churn_check_params(&churn)) {
      return absl::InvalidArgumentError(absl::StrCat("churn: ", problem));
    }
    const uint64_t checksum = churn_run(&churn);
    if (checksum == CHURN_FAILED) {
      return absl::InternalError("churn: an allocation returned NULL");
    }
    return checksum;
  }
  if (workload == "large_blocks") {
    const uint64_t checksum = LargeBlocks(params);
    if (checksum == 0) {
      return absl::InternalError("large_blocks: an allocation returned NULL");
    }
    return checksum;
  }
  return absl::InternalError(
      absl::StrCat("workload '", workload, "' is named but has no body"));
}

}  // namespace alloclab::adoption
