// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: processes.h
// -----------------------------------------------------------------------------
//
// The programs behind the experiment's rows, each run in a fresh process of
// its own (common/harness/fresh_process.h), because glibc's threshold remembers
// every big free of a process:
//
//   "mmap_threshold_loop", arg "<policy> <count|time> <calls> <trim 0|1>":
//     the 256 KiB loop under a policy (ApplyPolicy()), then malloc_trim(0)
//     when asked. `count` records the loop's "mmap", "munmap", "brk" and
//     "madvise" under ptrace; `time` records "loop_ns" and
//     "loop_minor_faults", "trim_ns", the memory the loop leaves
//     ("malloc_free_kib": mallinfo2's free bytes; "heap_top_kib": its top
//     chunk; "top_resident_kib": the pages of that top chunk mincore(2)
//     finds resident) and "threshold_bytes", the probe's answer after.
//   "mmap_threshold_probe", arg: bytes to allocate, touch and free first
//     (0: none); records "probe_ns" and "threshold_bytes".
//
// Example:
//
//   absl::StatusOr<alloclab::Samples> s = alloclab::RunFreshCalls(
//       "dynamic", "mmap_threshold_loop", 3, "dynamic time 1000 0");

#ifndef ALLOCLAB_LABS_MMAP_THRESHOLD_PROCESSES_H_
#define ALLOCLAB_LABS_MMAP_THRESHOLD_PROCESSES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/instruments/syscalls.h"

namespace mmap_threshold {

// The environment variable of the tunables row, and its value: the
// threshold set to the one it has anyway (kDefaultMmapThreshold), so that
// the row shows the switch alone.
inline constexpr char kTunables[] = "GLIBC_TUNABLES";
std::string TunablesValue();

// The system calls a loop process counts, in this order.
inline constexpr const char* kSyscalls[] = {"mmap", "munmap", "brk", "madvise"};

// ApplyPolicy()
//
// Sets up the policy named `name` in this process: "dynamic", "fixed"
// (128 KiB) or "tunables" (no call: glibc read GLIBC_TUNABLES at start-up;
// FailedPrecondition when it is not set).
absl::Status ApplyPolicy(absl::string_view name);

// RunLoopOnly()
//
// The experiment's --loop=POLICY: `calls` calls of the loop under `policy`
// and nothing else, silent, so that `strace -c -f` of it sees what the
// experiment's whole-process counts see. Returns main's exit code (1, with
// the reason on stderr, when the policy cannot be set).
int RunLoopOnly(absl::string_view policy, int64_t calls);

// CountWholeProgram()
//
// This program run again with --loop=`policy` --calls=`calls` (and the
// tunables environment when `tunables`), its system calls counted from its
// execve on, as `strace -c -f` counts them. Internal when it did not exit 0.
absl::StatusOr<alloclab::SyscallCounts> CountWholeProgram(
    absl::string_view policy, int64_t calls, bool tunables);

}  // namespace mmap_threshold

#endif  // ALLOCLAB_LABS_MMAP_THRESHOLD_PROCESSES_H_
