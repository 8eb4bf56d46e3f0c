// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: fresh_process_flag.h
// -----------------------------------------------------------------------------
//
// The `--fresh_processes=N` flag of the labs that measure first calls: how
// many new processes each first-call row starts. Only experiments that link
// `//common/harness:fresh_process_flag` have it, so `--help` never lists a flag
// a lab would ignore.
//
// Example:
//
//   const alloclab::LabOptions options = alloclab::InitLab(argc, argv, usage);
//   const int processes = alloclab::FreshProcesses(options, 3, 9);

#ifndef ALLOCLAB_COMMON_HARNESS_FRESH_PROCESS_FLAG_H_
#define ALLOCLAB_COMMON_HARNESS_FRESH_PROCESS_FLAG_H_

#include "common/harness/lab_main.h"

namespace alloclab {

// FreshProcesses()
//
// The value of --fresh_processes, or, when it is 0 (the default),
// `quick_default` under --quick and `full_default` otherwise. Exits 1 with a
// message for a negative value.
int FreshProcesses(const LabOptions& options, int quick_default,
                   int full_default);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_FRESH_PROCESS_FLAG_H_
