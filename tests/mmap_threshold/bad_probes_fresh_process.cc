// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "probe in a brand-new process, then nothing can disturb the
// heap". Nothing does, but a new process has a new heap, whose threshold has
// never moved: this probe finds 128 KiB whatever the caller freed. The suite
// must reject it.
//
// The trial and the search come from known_bad_common.h, the policy from the
// reference; the mistake is the process they run in.

#include <cstddef>
#include <cstdlib>

#include "absl/status/statusor.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/sink.h"
#include "labs/mmap_threshold/task.h"
#include "tests/mmap_threshold/known_bad_common.h"

// The reference, with its ProbeMmapThreshold() renamed out of the way.
#define ProbeMmapThreshold ReferenceProbeMmapThreshold
#include "solutions/mmap_threshold/task.cc"
#undef ProbeMmapThreshold

namespace mmap_threshold {
namespace {

// The right search, in the wrong process: the new one is thrown away, so
// it may keep everything it allocates.
void SearchInNewProcess(alloclab::FreshCall& call) {
  alloclab::Escape(malloc(1));
  absl::StatusOr<size_t> threshold =
      known_bad::SearchThreshold(known_bad::MapsKeepingBlocks);
  if (!threshold.ok()) {
    call.Fail(threshold.status().message());
    return;
  }
  call.Record("threshold", static_cast<double>(*threshold));
}
ALLOCLAB_FRESH_CALL("bad_probe_in_new_process", SearchInNewProcess);

}  // namespace

absl::StatusOr<size_t> ProbeMmapThreshold() {
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("bad_probe_in_new_process");
  if (!r.ok()) return r.status();
  return static_cast<size_t>(r->values.at("threshold"));
}

}  // namespace mmap_threshold
