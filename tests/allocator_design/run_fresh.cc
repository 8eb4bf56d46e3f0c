// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "tests/allocator_design/run_fresh.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/testing/scoped_env.h"

namespace allocator_design::suite {

absl::StatusOr<alloclab::FreshCallResult> RunFresh(absl::string_view name,
                                                   absl::string_view arg) {
  std::vector<std::unique_ptr<alloclab::ScopedEnv>> envs;
  for (const char* variable : {"TSAN_OPTIONS", "UBSAN_OPTIONS"}) {
    const char* old = getenv(variable);
    const std::string value = old != nullptr && *old != '\0'
                                  ? absl::StrCat(old, ":halt_on_error=1")
                                  : std::string("halt_on_error=1");
    envs.push_back(std::make_unique<alloclab::ScopedEnv>(variable, value));
  }
  return alloclab::RunFreshCall(name, arg);
}

}  // namespace allocator_design::suite
