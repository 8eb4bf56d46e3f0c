// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: fresh_process.h
// -----------------------------------------------------------------------------
//
// The first call, measured where it really happens: in a new process. A warm
// benchmark never sees the page faults, lazy symbol binding and empty malloc
// arena that a command-line tool pays on its first call.
//
// Two ways to get a new process:
//
//   - `RunFreshCall(name)` starts a new copy of this program (fork + exec of
//     /proc/self/exe) that runs only the function registered under `name`
//     and reports back. Nothing of the parent's heap, caches of the dynamic
//     loader or touched pages carries over: the call is truly first. The
//     program's main() must call `MaybeRunFreshCall()` first thing (the
//     course's lab main and test main do).
//   - `RunInForkedChild(fn)` forks and runs `fn` in the child. Cheaper, but
//     the child inherits the parent's heap and mappings: use it to isolate
//     side effects (a probe that moves glibc's mmap threshold), not to
//     measure a first call.
//
// Inside a fresh call, `FreshCall::Measure()` times a region and counts its
// page faults; anything before it (a preparation) is not measured unless the
// function measures it too.
//
// Example:
//
//   void FirstBigVector(alloclab::FreshCall& call) {
//     call.Measure("first_call", [] { std::vector<char> v(256 << 10, 1); });
//   }
//   ALLOCLAB_FRESH_CALL("first_big_vector", FirstBigVector);
//
//   absl::StatusOr<alloclab::FreshCallResult> r =
//       alloclab::RunFreshCall("first_big_vector");
//   // r->values["first_call_ns"], r->values["first_call_minor_faults"]

#ifndef ALLOCLAB_COMMON_HARNESS_FRESH_PROCESS_H_
#define ALLOCLAB_COMMON_HARNESS_FRESH_PROCESS_H_

#include <map>
#include <string>
#include <type_traits>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// FreshCall
//
// What a registered function gets in the fresh process.
class FreshCall {
 public:
  explicit FreshCall(std::string arg) : arg_(std::move(arg)) {}

  // arg()
  //
  // The argument given to `RunFreshCall()`.
  absl::string_view arg() const { return arg_; }

  // Measure()
  //
  // Runs `fn` on this thread, recording "<label>_ns", "<label>_minor_faults"
  // and "<label>_major_faults" (page faults from getrusage(RUSAGE_THREAD)).
  void Measure(absl::string_view label, absl::FunctionRef<void()> fn);

  // Record()
  //
  // Reports any other value, e.g. the size a probe found.
  void Record(absl::string_view key, double value);

  // Fail()
  //
  // Reports that the call could not do its job; `RunFreshCall()` returns
  // this message as an Internal error.
  void Fail(absl::string_view message);

  const std::map<std::string, double>& values() const { return values_; }
  const std::string& failure() const { return failure_; }

 private:
  std::string arg_;
  std::map<std::string, double> values_;
  std::string failure_;
};

using FreshCallFn = void (*)(FreshCall&);

// RegisterFreshCall()
//
// Registers `fn` under `name`; returns true so that it can initialize a
// static. Registering one name twice aborts with a message.
bool RegisterFreshCall(absl::string_view name, FreshCallFn fn);

// ALLOCLAB_FRESH_CALL
//
// Registers a fresh call at static-initialization time.
#define ALLOCLAB_FRESH_CALL(name, fn)                              \
  [[maybe_unused]] static const bool alloclab_fresh_call_##fn##_ = \
      ::alloclab::RegisterFreshCall(name, fn)

// MaybeRunFreshCall()
//
// When this process was started by `RunFreshCall()`, runs the requested
// function, reports to the parent and exits; otherwise returns at once.
// Call it first thing in main().
void MaybeRunFreshCall();

// FreshCallResult
struct FreshCallResult {
  std::map<std::string, double> values;
};

// RunFreshCall()
//
// Starts a new copy of this program to run the call registered under
// `name` with `arg`, and waits for it. Errors: NotFound for an unknown name
// (checked in the parent), Internal when the child failed, crashed (the
// signal is named) or did not report.
absl::StatusOr<FreshCallResult> RunFreshCall(absl::string_view name,
                                             absl::string_view arg = "");

// RunInForkedChild()
//
// Forks, runs `fn` in the child and returns its result to the parent through
// a pipe. T must be trivially copyable. Internal error when the child
// crashes or exits without a result.
absl::Status RunInForkedChildRaw(absl::FunctionRef<void(void* out)> fn,
                                 void* out, size_t size);

template <typename T>
absl::StatusOr<T> RunInForkedChild(absl::FunctionRef<T()> fn) {
  static_assert(std::is_trivially_copyable_v<T>,
                "RunInForkedChild returns its result through a pipe");
  T result{};
  absl::Status status = RunInForkedChildRaw(
      [&](void* out) { *static_cast<T*>(out) = fn(); }, &result, sizeof(T));
  if (!status.ok()) return status;
  return result;
}

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_FRESH_PROCESS_H_
