// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/variant_error.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace alloclab {

absl::Status VariantError(absl::string_view variant,
                          const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("variant '", variant,
                                                  "': ", status.message()));
}

}  // namespace alloclab
