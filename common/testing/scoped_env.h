// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: scoped_env.h
// -----------------------------------------------------------------------------
//
// An environment variable set for a scope, and put back as it was when the
// scope ends. glibc's malloc reads GLIBC_TUNABLES and the MALLOC_*_
// variables once, at start-up, so the only way to show their effect is to
// start a new process with them: a fresh call (fresh_process.h) or a traced
// command (syscalls.h) inherits the environment of the moment it starts.
// Setting the variable for exactly those starts, and restoring it after,
// keeps it from leaking into the next variant or the next test.
//
// The environment belongs to the whole process and setenv(3) is not
// thread-safe: use a ScopedEnv only while no other thread reads or writes
// the environment (getenv() included), as in a single-threaded experiment or
// a test body.
//
// Example:
//
//   {
//     alloclab::ScopedEnv env("GLIBC_TUNABLES",
//                             "glibc.malloc.mmap_threshold=131072");
//     if (!env.status().ok()) return env.status();
//     result = alloclab::RunFreshCall("loop");  // starts with the tunable
//   }
//   // GLIBC_TUNABLES is back to its old value, or unset if it was unset.

#ifndef ALLOCLAB_COMMON_TESTING_SCOPED_ENV_H_
#define ALLOCLAB_COMMON_TESTING_SCOPED_ENV_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// ScopedEnv
//
// Sets one environment variable for the lifetime of the object; the
// destructor gives it back its old value, or unsets it if it had none (a
// variable set to "" counts as set, and comes back as ""). Scopes nest: an
// inner ScopedEnv of the same name restores the outer one's value.
//
// A name that setenv(3) cannot take (empty, or with '=' in it) or a value
// with a NUL byte changes nothing: status() says why, and the destructor
// leaves the environment alone.
class ScopedEnv {
 public:
  ScopedEnv(absl::string_view name, absl::string_view value);
  ~ScopedEnv();

  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

  // status()
  //
  // OK when the variable is set; otherwise InvalidArgument (bad name or
  // value) or Internal (setenv failed), with the reason.
  const absl::Status& status() const { return status_; }

 private:
  std::string name_;
  std::optional<std::string> old_value_;  // nullopt: it was not set
  absl::Status status_;
};

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_TESTING_SCOPED_ENV_H_
