// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// which_malloc_counted: which_malloc linked with the allocation counter,
// which defines malloc in the program and forwards each call to the next
// definition. The probe must name that next definition, not the program.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/statusor.h"
#include "common/machine/allocator_probe.h"

int main() {
  void* volatile block = std::malloc(64);
  std::free(block);
  absl::StatusOr<alloclab::MallocProvider> provider = alloclab::ProbeMalloc();
  if (!provider.ok()) {
    std::fprintf(stderr, "which_malloc_counted: %s\n",
                 std::string(provider.status().message()).c_str());
    return 1;
  }
  std::printf("%s\nwrapped_by: %s\n", alloclab::ProviderLine(*provider).c_str(),
              provider->wrapped_by.c_str());
  return 0;
}
