// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: cpus_flag.h
// -----------------------------------------------------------------------------
//
// The `--cpus=LIST` flag of the labs that place thread teams: the CPUs the
// experiment may use, in the kernel's list format ("0-3,8", as taskset -c
// writes it). Without it, every online CPU this process may run on. Only
// experiments that link `//common/harness:cpus_flag` have it.
//
// A list that does not parse, a CPU that is not online and a CPU outside the
// affinity mask (taskset, a cgroup cpuset, --cpu) are errors that name the
// flag, for the lab's `check_flags` to refuse before any work.
//
// Example:
//
//   absl::StatusOr<alloclab::Topology> topo = alloclab::ReadTopology();
//   absl::StatusOr<std::vector<int>> cpus = alloclab::UsableCpus(*topo);
//   if (!cpus.ok()) return cpus.status();  // "--cpus=9: CPU 9 is not online"

#ifndef ALLOCLAB_COMMON_HARNESS_CPUS_FLAG_H_
#define ALLOCLAB_COMMON_HARNESS_CPUS_FLAG_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/harness/lab_main.h"
#include "common/machine/topology.h"

namespace alloclab {

// UsableCpus()
//
// The CPUs --cpus names, sorted, each checked online in `topology` and in
// the calling thread's affinity mask; or, when --cpus is empty (the
// default), the online CPUs of that mask. InvalidArgument, prefixed
// "--cpus=<value>: ", when a CPU cannot be used.
absl::StatusOr<std::vector<int>> UsableCpus(const Topology& topology);

// CheckCpusFlag()
//
// For a lab's `LabSpec::check_flags` (experiment.h): reads this machine's
// topology and checks --cpus against it, as UsableCpus() does.
absl::Status CheckCpusFlag(const LabOptions& options);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_CPUS_FLAG_H_
