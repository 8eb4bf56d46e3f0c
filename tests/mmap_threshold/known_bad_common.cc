// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "tests/mmap_threshold/known_bad_common.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/sink.h"
#include "labs/mmap_threshold/task.h"

namespace mmap_threshold {
namespace known_bad {

int MapsKeepingBlocks(size_t size) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const size_t top = mallinfo2().keepcost;
    if (top > 40) alloclab::Escape(malloc(top - 40));
    const struct mallinfo2 before = mallinfo2();
    alloclab::Escape(malloc(size));
    const struct mallinfo2 after = mallinfo2();
    if (after.hblks > before.hblks) return 1;
    if (after.arena > before.arena) return 0;
  }
  return -1;
}

absl::StatusOr<size_t> SearchThreshold(absl::FunctionRef<int(size_t)> maps,
                                       size_t* largest_tried) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t low = 1;
  size_t high = 2 * kMmapThresholdMax / page;
  for (int answer = maps(high * page); answer != 1;
       answer = maps(high * page)) {
    if (answer < 0 || high * page >= (size_t{1} << 40)) {
      if (largest_tried != nullptr) *largest_tried = high * page;
      return absl::InternalError("no answer");
    }
    low = high + 1;
    high *= 2;
  }
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    const int answer = maps(mid * page);
    if (answer < 0) return absl::InternalError("no answer");
    if (answer == 1) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return high * page;
}

absl::StatusOr<size_t> ProbeInForkedCopy(
    absl::FunctionRef<absl::Status(size_t largest_tried)> nothing_maps) {
  // What the copy sends back: a threshold, or 0 and the size it stopped at.
  struct Found {
    size_t threshold = 0;
    size_t largest_tried = 0;
  };
  absl::StatusOr<Found> found = alloclab::RunInForkedChild<Found>([] {
    Found f;
    absl::StatusOr<size_t> t =
        SearchThreshold(MapsKeepingBlocks, &f.largest_tried);
    if (t.ok()) f.threshold = *t;
    return f;
  });
  if (!found.ok()) return found.status();
  if (found->threshold == 0) return nothing_maps(found->largest_tried);
  return found->threshold;
}

}  // namespace known_bad

}  // namespace mmap_threshold
