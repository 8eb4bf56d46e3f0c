// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab mmap_threshold: the starter. The probe returns the threshold the
// manual page documents, whatever the process did before, and the policy
// changes nothing. Run `bazel run //labs/mmap_threshold -- --quick` to see
// both in the table: every probe row reads 131072, and the fixed row looks
// just like the dynamic one. Then make them tell the truth.

#include "labs/mmap_threshold/task.h"

namespace mmap_threshold {

absl::StatusOr<size_t> ProbeMmapThreshold() {
  // TODO(you): find the threshold by watching malloc (mallinfo2(3): hblks
  // counts the blocks malloc mapped). Three things to get right, in the
  // order you will meet them:
  //   - malloc only considers mmap when the heap cannot serve a request
  //     from memory it already has;
  //   - a probe must not leave blocks or heap growth behind;
  //   - freeing a mapped block moves the very threshold you are measuring.
  // //common/harness:fresh_process (alloclab::RunInForkedChild) is available.
  return kDefaultMmapThreshold;
}

absl::Status SetMallocPolicy(const MallocPolicy& policy) {
  // TODO(you): Fixed(t) must hold the threshold at t (mallopt(3)); both
  // kinds must refuse what glibc cannot do (see task.h, "Errors").
  (void)policy;
  return absl::OkStatus();
}

}  // namespace mmap_threshold
