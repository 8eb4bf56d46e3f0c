// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_design: the experiment (being written: lab
// jemalloc_adoption's table with your allocator in it).

#include "common/experiment.h"

#include "absl/status/status.h"

namespace {

absl::Status Experiment(alloclab::Lab&) {
  return absl::UnimplementedError("lab allocator_design's experiment");
}

alloclab::LabSpec Spec() {
  return {.lab = "allocator_design",
          .usage =
              "Lab allocator_design: your allocator beside glibc, "
              "jemalloc, tcmalloc and mimalloc.",
          .columns = {}};
}

}  // namespace

ALLOCLAB_EXPERIMENT_MAIN(Spec, Experiment)
