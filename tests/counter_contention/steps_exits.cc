// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Probe for known_bad_only_if: exits 0 when this build and machine run the
// suite's stepped exit and stepped read (exit_checkpoints.h), so that a
// counter whose fold has a window must fail
// CounterTest.TotalsNeverGoDownAsAThreadExits, and one whose reader has a
// window CounterTest.TotalsNeverGoDownAsAReaderIsStoppedInside; 1,
// with the reason, when the test skips instead (a ThreadSanitizer build,
// or a machine that refuses ptrace(2) of one's own thread); 2 when it
// cannot tell.

#include <cstdio>

#include "absl/status/status.h"
#include "tests/counter_contention/exit_checkpoints.h"

int main() {
  using counter_contention::exit_checkpoints::kSkipReason;
  if (kSkipReason != nullptr) {
    std::printf("the stepped exit is %s\n", kSkipReason);
    return 1;
  }
  const absl::Status status = counter_contention::exit_checkpoints::CanTrace();
  if (absl::IsFailedPrecondition(status)) {
    std::printf("the stepped exit is not run here: %s\n",
                status.ToString().c_str());
    return 1;
  }
  if (!status.ok()) {
    std::printf("could not tell: %s\n", status.ToString().c_str());
    return 2;
  }
  std::printf("the stepped exit runs here: a thread was held by a tracer\n");
  return 0;
}
