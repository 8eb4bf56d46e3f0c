// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/interleave.h"

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace alloclab {

absl::Status Interleave(
    int repetitions, int variants,
    absl::FunctionRef<absl::Status(const InterleavedRun&)> run,
    InterleaveOrder order) {
  if (variants <= 0) return absl::OkStatus();  // and no `% 0` below
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    const int first =
        order == InterleaveOrder::kRotated ? repetition % variants : 0;
    for (int position = 0; position < variants; ++position) {
      const InterleavedRun turn{.repetition = repetition,
                                .variant = (first + position) % variants,
                                .position = position};
      if (absl::Status status = run(turn); !status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace alloclab
