// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: syscalls.h
// -----------------------------------------------------------------------------
//
// How many times a call, or a whole program, asks the kernel for memory. An
// allocator that is fast in a benchmark can still make an mmap and a munmap
// per request; a timer shows a slow call but not why, a count of mmap,
// munmap, brk, madvise and mremap does.
//
// The counts come from ptrace(2), the way `strace -c -f` gets them: every
// thread and every forked child of the traced program stops at each system
// call, the tracer reads the call's number at its entry and counts it once.
// The tracer runs in a helper process of its own, so waiting for the traced
// threads never reaps an unrelated child of the caller.
//
// Two entry points:
//
//   - `CountSyscallsInChild(fn)` forks, and counts only what `fn` does in the
//     child: the child marks the start and the end of `fn` with a marker
//     system call, so the fork, the ptrace handshake and the child's exit are
//     not in the counts.
//   - `CountSyscallsOfCommand(argv)` runs a program from its execve to its
//     exit, all its threads and children included.
//
// Never time anything under ptrace: each traced system call costs two stops
// and several context switches, so a call that makes many system calls runs
// many times slower than it does untraced. Counts are exact; times are not
// meaningful. Measure time in a separate, untraced run.
//
// Tracing needs the kernel's permission. It fails, with a status that says
// why, when this process is itself traced (under strace or gdb: one tracer
// per process), under a seccomp policy or a container that forbids ptrace,
// or with Yama's ptrace_scope set to 3.
//
// Example:
//
//   absl::StatusOr<alloclab::SyscallCounts> counts =
//       alloclab::CountSyscallsInChild([] {
//         void* p = malloc(256 << 10);
//         benchmark::DoNotOptimize(p);
//         free(p);
//       });
//   if (!counts.ok()) return counts.status();  // e.g. ptrace refused
//   // counts->mmap == 1 and counts->munmap == 1 while glibc's mmap threshold
//   // is still at its initial 128 KiB.

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_SYSCALLS_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_SYSCALLS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace alloclab {

// SyscallCounts
//
// Calls counted at their entry, whether or not they succeeded (as `strace
// -c` counts them). `total` counts every system call, the five named ones
// included. Two subsets look at the arguments, because they say what a call
// was for: `mmap_populate` counts the mmap calls with MAP_POPULATE in their
// flags, `madvise_populate` the madvise calls whose advice is
// MADV_POPULATE_READ or MADV_POPULATE_WRITE (both counted in `mmap` and
// `madvise` too).
struct SyscallCounts {
  int64_t mmap = 0;
  int64_t munmap = 0;
  int64_t brk = 0;
  int64_t madvise = 0;
  int64_t mremap = 0;
  int64_t total = 0;
  int64_t mmap_populate = 0;
  int64_t madvise_populate = 0;

  friend bool operator==(const SyscallCounts&, const SyscallCounts&) = default;
};

SyscallCounts operator+(const SyscallCounts& a, const SyscallCounts& b);
SyscallCounts operator-(const SyscallCounts& a, const SyscallCounts& b);

// FormatSyscallCounts()
//
// One "name count" line per field, in the order mmap, munmap, brk, madvise,
// mremap, total (the populate subsets are not printed): what the
// `count_syscalls` tool prints and its test parses.
std::string FormatSyscallCounts(const SyscallCounts& counts);

// CountSyscallsInChild()
//
// Forks a child that runs `fn` under ptrace and returns the system calls
// made while `fn` ran, by the child and by every thread or process `fn`
// started, until `fn` returned. The child's memory is a copy of the
// caller's: `fn` may read anything the caller set up, and nothing it
// changes comes back.
//
// The same caveat as any fork applies in a multithreaded caller: only the
// calling thread exists in the child, so `fn` must not wait on a lock that
// another thread of the caller might have held.
//
// Errors: FailedPrecondition when the kernel refuses ptrace (the message
// names the call and errno); Internal when the child crashed (the signal is
// named) or `fn` left the child before returning (exit(), exec).
absl::StatusOr<SyscallCounts> CountSyscallsInChild(
    absl::FunctionRef<void()> fn);

// ProcessSyscalls
//
// The counts of one traced program and how it ended: `exit_code` when it
// exited (else -1), `term_signal` when a signal killed it (else 0).
struct ProcessSyscalls {
  SyscallCounts counts;
  int exit_code = -1;
  int term_signal = 0;
};

// CountSyscallsOfCommand()
//
// Runs `argv` (argv[0] is looked up on PATH like a shell does) with this
// process's environment plus `extra_env` ("NAME=value" entries that replace
// a variable of the same name, e.g.
// "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072"), and counts every system
// call from its first execve to the exit of the last thread or child it
// started, as `strace -c -f` does. A program that exits with a non-zero status
// or is killed is not an error: its status is in the result.
//
// LeakSanitizer (part of AddressSanitizer) cannot run under ptrace: a
// sanitized program fails at exit unless "ASAN_OPTIONS=detect_leaks=0" is
// in `extra_env`.
//
// Waits until every traced process has exited, so a program that leaves a
// daemon behind keeps this call waiting as it would keep strace.
//
// When `stdout_text` is given, the program's standard output goes there
// instead of this process's (a program that reports facts, as the
// allocator probe's provider line, is read back without printing them);
// the redirection is made before the execve, so it is not in the counts.
//
// Errors: InvalidArgument for an empty `argv` or a malformed `extra_env`
// entry; NotFound when execve fails (the message names the program and
// errno); FailedPrecondition when the kernel refuses ptrace.
absl::StatusOr<ProcessSyscalls> CountSyscallsOfCommand(
    const std::vector<std::string>& argv,
    const std::vector<std::string>& extra_env = {},
    std::string* stdout_text = nullptr);

// UnlessRefused()
//
// The course's one rule for counts that need ptrace: a refusal is not an
// error. A container's profile, a seccomp policy or Yama may forbid ptrace;
// the untraced measurements still stand, and the counts become n/a. Give it
// what a counter above returned. Returns the counts when there are some;
// std::nullopt when the kernel refused ptrace (FailedPrecondition), after
// keeping the first refusal in `refused` for the caller's "n/a" note; any
// other error unchanged.
//
// Example:
//
//   std::optional<absl::Status> refused;
//   for (const std::string& program : programs) {
//     absl::StatusOr<std::optional<alloclab::ProcessSyscalls>> counted =
//         alloclab::UnlessRefused(
//             alloclab::CountSyscallsOfCommand({program}), refused);
//     if (!counted.ok()) return counted.status();  // not a refusal
//     if (!counted->has_value()) break;            // n/a from here on
//     ...                                          // (*counted)->counts
//   }
//   if (refused.has_value()) {
//     results.AddNote(alloclab::RefusedNote("system calls", *refused));
//   }
template <typename Counts>
absl::StatusOr<std::optional<Counts>> UnlessRefused(
    absl::StatusOr<Counts> counted, std::optional<absl::Status>& refused) {
  if (counted.ok()) return std::optional<Counts>(*std::move(counted));
  if (!absl::IsFailedPrecondition(counted.status())) return counted.status();
  if (!refused.has_value()) refused = counted.status();
  return std::optional<Counts>();
}

// RefusedNote()
//
// The course's one wording for counts that UnlessRefused() made n/a:
// "<what>: n/a (<why the kernel refused>)", e.g. "syscalls/op: n/a
// (ptrace(PTRACE_TRACEME) refused: EPERM ...)".
std::string RefusedNote(absl::string_view what, const absl::Status& refused);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_SYSCALLS_H_
