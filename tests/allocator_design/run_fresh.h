// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: run_fresh.h
// -----------------------------------------------------------------------------
//
// The suite's one way to run a check in a fresh process: every test of
// task_test.cc and locks_test.cc that needs an allocator no earlier test
// has touched (a count from zero, a fork, a lock observer) runs its body as
// an ALLOCLAB_FRESH_CALL through RunFresh().
//
// Example:
//
//   void MyCall(alloclab::FreshCall& call) { call.Record("held", ...); }
//   ALLOCLAB_FRESH_CALL("allocator_design_my_call", MyCall);
//
//   TEST(Validator, Mine) {
//     absl::StatusOr<alloclab::FreshCallResult> r =
//         allocator_design::suite::RunFresh("allocator_design_my_call");
//     ASSERT_TRUE(r.ok()) << r.status();
//   }

#ifndef ALLOCLAB_TESTS_ALLOCATOR_DESIGN_RUN_FRESH_H_
#define ALLOCLAB_TESTS_ALLOCATOR_DESIGN_RUN_FRESH_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"

namespace allocator_design::suite {

// RunFresh()
//
// alloclab::RunFreshCall(), with a sanitizer told to stop at its first
// report: the fresh copy ends with _exit(), which skips the exit code a
// sanitizer sets for the reports it printed, so a data race found in the
// copy would not fail the test otherwise. Stopped, the copy crashes, and
// RunFreshCall() says so.
absl::StatusOr<alloclab::FreshCallResult> RunFresh(absl::string_view name,
                                                   absl::string_view arg = "");

}  // namespace allocator_design::suite

#endif  // ALLOCLAB_TESTS_ALLOCATOR_DESIGN_RUN_FRESH_H_
