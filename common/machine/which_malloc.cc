// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// which_malloc: prints which library serves malloc in this process, as one
// provider line (allocator_probe.h), e.g.
//
//   $ LD_PRELOAD=libjemalloc.so.2 bazel-bin/common/machine/which_malloc
//   alloclab-malloc-provider: jemalloc /lib/x86_64-linux-gnu/libjemalloc.so.2
//
// Exits 1 with a message where the dynamic linker cannot say (a static
// build). The allocator probe's tests run it under each preload.

#include <cstdio>
#include <cstdlib>

#include "absl/status/statusor.h"
#include "common/machine/allocator_probe.h"

int main() {
  // One allocation, so that the allocator has really started when asked.
  void* volatile block = std::malloc(64);
  std::free(block);
  absl::StatusOr<alloclab::MallocProvider> provider = alloclab::ProbeMalloc();
  if (!provider.ok()) {
    std::fprintf(stderr, "which_malloc: %s\n",
                 std::string(provider.status().message()).c_str());
    return 1;
  }
  std::printf("%s\n", alloclab::ProviderLine(*provider).c_str());
  return 0;
}
