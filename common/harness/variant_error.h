// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: variant_error.h
// -----------------------------------------------------------------------------
//
// An error that names the row it belongs to. An experiment measures several
// variants (rows) with the same code, so "fresh process 3 of 7: exit 1" alone
// does not say which row failed; `VariantError()` prefixes the variant's
// name and keeps the status code, so the message that ends the run (or the
// note that replaces a row) reads "variant 'calloc': fresh process 3 of 7:
// exit 1". Every helper of the harness that measures a variant returns its
// errors this way, and a lab's own measuring code should too.
//
// clang-format off
// Example:
//
//   absl::StatusOr<double> ns = TimeWorkload(variant);
//   if (!ns.ok()) return alloclab::VariantError(variant.name, ns.status());
// clang-format on

#ifndef ALLOCLAB_COMMON_HARNESS_VARIANT_ERROR_H_
#define ALLOCLAB_COMMON_HARNESS_VARIANT_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// VariantError()
//
// `status` with its message prefixed "variant '<variant>': ", the same code.
// OK stays OK.
absl::Status VariantError(absl::string_view variant,
                          const absl::Status& status);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_VARIANT_ERROR_H_
