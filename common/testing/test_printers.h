// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: test_printers.h
// -----------------------------------------------------------------------------
//
// For tests: GoogleTest prints Abseil's text types as text. Debian builds
// Abseil with its own absl::string_view (not an alias of std::string_view),
// which GoogleTest takes for a container of chars, so a failed message check
// printed `{ 'P' (80, 0x50), 'i' (105, 0x69), ... }`; and this Abseil's
// absl::StatusOr has no printer at all, so it printed raw bytes. With this
// header a string_view prints as a quoted string, and a StatusOr as its
// value or its status.
//
// GoogleTest finds a PrintTo() by argument-dependent lookup, so these live
// in the namespace of the types they print (Abseil's, inline namespace
// included). Every lab suite gets this header before its first line
// (tools/lab.bzl's lab_tests forces it in, so that all of a suite's files
// print the same way); another test includes it.
//
// Example:
//
//   EXPECT_THAT(status.message(), testing::HasSubstr("no SMT"));
//   // Actual: "asked for 1 pair, but ..." (of type absl::...::string_view)

#ifndef ALLOCLAB_COMMON_TESTING_TEST_PRINTERS_H_
#define ALLOCLAB_COMMON_TESTING_TEST_PRINTERS_H_

#include <ostream>
#include <string>

#include "absl/base/config.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace absl {
ABSL_NAMESPACE_BEGIN

#ifndef ABSL_USES_STD_STRING_VIEW
// PrintTo(string_view)
//
// As GoogleTest prints a std::string: quoted, with escapes.
inline void PrintTo(string_view text, std::ostream* os) {
  *os << ::testing::PrintToString(std::string(text));
}
#endif

#if defined(ABSL_LTS_RELEASE_VERSION) && ABSL_LTS_RELEASE_VERSION < 20230802
// PrintTo(StatusOr<T>)
//
// The value as GoogleTest prints a T, or the status ("INVALID_ARGUMENT:
// ..."). Abseil has its own from its 2023-08-02 release on.
template <typename T>
void PrintTo(const StatusOr<T>& value, std::ostream* os) {
  if (value.ok()) {
    *os << ::testing::PrintToString(*value);
  } else {
    *os << value.status();
  }
}
#endif

ABSL_NAMESPACE_END
}  // namespace absl

#endif  // ALLOCLAB_COMMON_TESTING_TEST_PRINTERS_H_
