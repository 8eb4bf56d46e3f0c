// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// A test binary whose every check fails on purpose, compiled as a lab
// suite is (tools/copts.bzl's TEST_PRINTERS_COPTS): what a learner reads
// when a message check fails. //common/testing:readable_failure_test runs it
// and checks that each failure shows the message as text. It includes no
// printer itself: common/testing/test_printers.h comes in as it comes into
// every suite, by the copts.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

// The message of a refusal is an absl::string_view.
TEST(ReadableFailureDemo, StringViewMatcher) {
  const absl::Status refused =
      absl::InvalidArgumentError("Picked nothing: 2 cores, no SMT");
  EXPECT_THAT(refused.message(), testing::HasSubstr("SMT sibling pair,"));
}

TEST(ReadableFailureDemo, StringViewEquality) {
  const absl::Status refused = absl::InvalidArgumentError("Picked nothing");
  EXPECT_EQ(refused.message(), absl::string_view("Picked something"));
}

TEST(ReadableFailureDemo, StatusOr) {
  const absl::StatusOr<int> got =
      absl::InvalidArgumentError("Picked nothing: 2 cores, no SMT");
  EXPECT_THAT(got, testing::Eq(absl::StatusOr<int>(3)));
}

}  // namespace
