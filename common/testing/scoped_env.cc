// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/testing/scoped_env.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/subprocess.h"

namespace alloclab {

ScopedEnv::ScopedEnv(absl::string_view name, absl::string_view value)
    : name_(name) {
  // setenv() stops a name or a value at its first NUL, which would set a
  // variable nobody asked for; and for an empty name or one with '=' it
  // says only EINVAL. Checked here, so the message names the problem.
  if (name.empty() || absl::StrContains(name, '=') ||
      absl::StrContains(name, '\0')) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat("environment variable name '", name,
                     "': it must be non-empty, without '=' or NUL"));
    return;
  }
  if (absl::StrContains(value, '\0')) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat("the value for ", name, " has a NUL byte"));
    return;
  }
  if (const char* old = getenv(name_.c_str())) old_value_ = old;
  if (setenv(name_.c_str(), std::string(value).c_str(), 1) != 0) {
    status_ = absl::InternalError(
        absl::StrCat("setenv(", name, "): ", internal::ErrnoText(errno)));
  }
}

ScopedEnv::~ScopedEnv() {
  if (!status_.ok()) return;  // nothing was changed
  if (old_value_.has_value()) {
    setenv(name_.c_str(), old_value_->c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

}  // namespace alloclab
