// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: processes.h
// -----------------------------------------------------------------------------
//
// The programs behind the experiment's fresh-process rows, each a fresh call
// (common/harness/fresh_process.h) that runs in a new copy of the experiment:
//
//   "first_call_cold"        maps the buffer (MapBuffer) and measures the
//                            first Work() on it: "first_call_ns", "..._faults"
//   "first_call_prefaulted"  measures PrepareBuffer() ("prefault_...") and
//                            the first Work() after it ("first_call_..."),
//                            and records the "method" it reported
//   "first_call_hugepage"    arg: the huge page size in bytes; the first
//                            Work() on one aligned huge page advised
//                            MADV_HUGEPAGE, and its "anon_huge_kib" (smaps)
//
// Example:
//
//   absl::StatusOr<alloclab::Samples> cold = alloclab::RunFreshCalls(
//       "cold_first_call", "first_call_cold", 5);

#ifndef ALLOCLAB_LABS_FIRST_CALL_PROCESSES_H_
#define ALLOCLAB_LABS_FIRST_CALL_PROCESSES_H_

// The calls register themselves by name: nothing to declare.

#endif  // ALLOCLAB_LABS_FIRST_CALL_PROCESSES_H_
