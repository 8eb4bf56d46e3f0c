// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: exit_checkpoints.h
// -----------------------------------------------------------------------------
//
// A checkpoint after every instruction of a thread's exit, and a stop at
// every instruction of a reader's call, for the race tests of promise 2
// ("never goes down while threads run"). A count that leaves a
// thread's slot when the thread exits must reach the total before, or as,
// the slot leaves it. A fold that moves it in two steps (add the slot to a
// retired total, then clear the slot; or the other way round) has a window
// between them in which a reader counts it twice or not at all, whether the
// two steps are atomics or a lock and an atomic. Sampling the total and
// hoping to land in that window is a race test that passes some runs; a
// test that stops only at mutex calls cannot stop inside a lock-free fold.
//
// This library stops the exiting thread after each instruction instead. A
// tracer process (forked before the thread starts) single-steps the
// thread with ptrace(2) from the moment its function returns until it is
// gone (thread_local destructors, pthread key destructors, the C library's
// own exit code), and after each step the calling thread reads the total
// while the exiting thread stands still. Every window of two or more
// instructions is seen, on every run, whatever the counter is built from.
//
// A reading that cannot finish while the thread stands still (the thread
// holds a lock the reader waits for: the reader sleeps; or the reader
// spins until the thread finishes a step of its own) is not waited for:
// the tracer steps on, and the reading finishes later. A reader that spins
// is told from one that is only slow by the CPU time it burns (kSpinTicks),
// never by the clock, so a busy machine delays the test but cannot skip a
// reading.
//
// The window may be in the reader instead: a seqlock reader that checks
// the sequence only before it reads, never after, misses an exit that
// happens while it reads. StepThroughCalls() turns the roles round: it
// stops the reader's call after 0, 1, 2, ... instructions, one call per
// stop, and at each stop lets the caller act (let a thread exit whole)
// while the reader stands still, until a call returns before its stop.
//
// It forks: call it from a process with one thread (a fresh call,
// common/harness/fresh_process.h). It needs ptrace(2) on a thread of one's own
// process, which Linux allows unless a container's seccomp profile or
// Yama's ptrace_scope 3 forbid it; StepThroughExit() and StepThroughCalls()
// then return FailedPrecondition, saying so.
//
// Example:
//
//   uint64_t lowest = UINT64_MAX;
//   absl::StatusOr<exit_checkpoints::Stepped> stepped =
//       exit_checkpoints::StepThroughExit(
//           [] { for (int i = 0; i < 1000; ++i) CountAllocation(); },
//           [&] { lowest = std::min(lowest, TotalAllocations()); });
//   // stepped->steps instructions of exit, stepped->readings readings
//
//   absl::StatusOr<exit_checkpoints::Stepped> stopped =
//       exit_checkpoints::StepThroughCalls(
//           [&] { /* start a thread that counts and waits */ return tid; },
//           [&] { now = TotalAllocations(); },
//           [&] { /* let that thread exit and join it */ });
//   // stopped->calls calls, each stopped one instruction later

#ifndef ALLOCLAB_TESTS_COUNTER_CONTENTION_EXIT_CHECKPOINTS_H_
#define ALLOCLAB_TESTS_COUNTER_CONTENTION_EXIT_CHECKPOINTS_H_

#include <sys/types.h>

#include <algorithm>
#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace counter_contention {
namespace exit_checkpoints {

// kSkipReason
//
// Why the stepped exit is not run in this build, or nullptr. Under
// ThreadSanitizer a thread's exit is some 74,000 instructions (the
// sanitizer's own bookkeeping: 35 times the plain build's), each stepped
// and read after: minutes on a busy machine. The plain and AddressSanitizer
// builds run it; under ThreadSanitizer the sampled test still checks the
// fold for data races.
//
// kCallsSkipReason is the same for StepThroughCalls(), and set in the same
// builds (steps_exits, the known-bads' probe, reads kSkipReason only). Its
// instructions stepped grow as the square of the call's length, since each
// stop restarts the call: 7,750 for the reference's TotalAllocations() in
// the plain build, 88,831 under AddressSanitizer (3.8 s); under
// ThreadSanitizer, whose mutex interceptors lengthen the call, the stepped
// read of the suite had not finished after 400 s on a busy 2-CPU machine.
#if defined(__SANITIZE_THREAD__)
inline constexpr const char* kSkipReason =
    "not run under ThreadSanitizer: a thread's exit is some 74,000 "
    "instructions there, each stepped and read after (exit_checkpoints.h)";
inline constexpr const char* kCallsSkipReason =
    "not run under ThreadSanitizer: each stop restarts the call, so the "
    "instructions stepped grow as the square of its length, and the "
    "sanitizer's interceptors make it long (exit_checkpoints.h)";
#else
inline constexpr const char* kSkipReason = nullptr;
inline constexpr const char* kCallsSkipReason = nullptr;
#endif

// What one traced exit saw.
struct Stepped {
  uint64_t steps = 0;     // instructions the thread ran after its function
  uint64_t readings = 0;  // read() calls finished while it stood still
  uint64_t waited = 0;    // steps at which the reading could not finish
  uint64_t calls = 0;     // StepThroughCalls(): calls stopped in
};

// StepThroughExit()
//
// Runs `body` on a new thread, stops that thread as `body` returns, and
// single-steps the rest of its life. `read` runs on the calling thread once
// before the first step and once after each step, while the thread stands
// still (but for readings that wait for it, above). Returns when the thread
// has been joined.
absl::StatusOr<Stepped> StepThroughExit(absl::FunctionRef<void()> body,
                                        absl::FunctionRef<void()> read);

// StepThroughCalls()
//
// Runs `call` on a new thread again and again, and stops it inside each
// call: the first after 0 instructions, the next after 1, then 2, ..., until
// a call returns before its stop (the last). Every instruction boundary of
// the call is a stop of one call, as long as the calls run the same code on
// the same data up to their stop (nothing else runs meanwhile). Before each
// call, `prepare` runs on the calling thread and returns the thread that
// `at_stop` waits for (0: none); at each stop, `at_stop` runs on the calling
// thread while the stepped one stands still, but for an `at_stop` that
// waits for it (that thread sleeps, or spins, above): the call then goes
// on, and `at_stop` finishes later. A call does not start before the last
// call's `at_stop` has finished. Returns when the thread has been joined;
// `steps` counts every instruction stepped, `readings` the stops.
absl::StatusOr<Stepped> StepThroughCalls(absl::FunctionRef<pid_t()> prepare,
                                         absl::FunctionRef<void()> call,
                                         absl::FunctionRef<void()> at_stop);

// CanTrace()
//
// Whether StepThroughExit() can hold a thread here: it starts one, holds it
// as StepThroughExit() would, and lets it go without stepping.
// FailedPrecondition as StepThroughExit()'s when it cannot.
absl::Status CanTrace();

}  // namespace exit_checkpoints
}  // namespace counter_contention

#endif  // ALLOCLAB_TESTS_COUNTER_CONTENTION_EXIT_CHECKPOINTS_H_
