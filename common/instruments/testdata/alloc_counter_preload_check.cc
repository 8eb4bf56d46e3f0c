// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// alloc_counter_preload_check glibc|jemalloc
//
// Counts its own malloc/free calls with //common/instruments:alloc_counter,
// then checks who served them: with "jemalloc" (run under
// LD_PRELOAD=libjemalloc.so.2), jemalloc's own per-thread byte counter must
// have grown by what was asked; with "glibc", no jemalloc may be loaded. Exit 0
// when both the count and the allocator are right, 1 with a message otherwise.

#include <dlfcn.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/instruments/alloc_counter.h"

namespace {

// Through volatile pointers, so that the compiler keeps every call.
void* (*volatile c_malloc)(size_t) = &malloc;
void (*volatile c_free)(void*) = &free;

using MallctlFn = int (*)(const char*, void*, size_t*, void*, size_t);

// jemalloc's count of the bytes this thread has allocated, or -1 without
// jemalloc (or without its statistics).
int64_t JemallocThreadAllocated(MallctlFn mallctl) {
  uint64_t bytes = 0;
  size_t size = sizeof(bytes);
  if (mallctl == nullptr ||
      mallctl("thread.allocated", &bytes, &size, nullptr, 0) != 0) {
    return -1;
  }
  return static_cast<int64_t>(bytes);
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "alloc_counter_preload_check: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "glibc") != 0 &&
                    std::strcmp(argv[1], "jemalloc") != 0)) {
    std::fprintf(stderr, "usage: %s glibc|jemalloc\n", argv[0]);
    return 2;
  }
  const bool want_jemalloc = std::strcmp(argv[1], "jemalloc") == 0;
  const auto mallctl =
      reinterpret_cast<MallctlFn>(dlsym(RTLD_DEFAULT, "mallctl"));
  const std::string note = alloclab::MallocCountingNote();
  std::printf("%s\n", note.c_str());

  constexpr int kCalls = 1000;
  constexpr size_t kBytes = 256;
  alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
  void* blocks[kCalls];
  const int64_t served_before = JemallocThreadAllocated(mallctl);
  const uint64_t counted_before = alloclab::ThreadAllocations();
  for (void*& block : blocks) block = c_malloc(kBytes);
  const uint64_t counted = alloclab::ThreadAllocations() - counted_before;
  const int64_t served_after = JemallocThreadAllocated(mallctl);
  for (void* block : blocks) c_free(block);

  std::printf("counted %llu mallocs of %d\n",
              static_cast<unsigned long long>(counted), kCalls);
  if (counted != kCalls) return Fail("the counter missed mallocs");
  if (want_jemalloc) {
    if (served_before < 0) {
      return Fail(
          "jemalloc does not serve this process (LD_PRELOAD "
          "libjemalloc.so.2 missing? Debian package libjemalloc2, "
          "installed by tools/setup.sh)");
    }
    const int64_t served = served_after - served_before;
    std::printf("jemalloc's thread.allocated grew by %lld bytes\n",
                static_cast<long long>(served));
    if (served < static_cast<int64_t>(kCalls * kBytes)) {
      return Fail("jemalloc did not serve the counted mallocs");
    }
    if (note.find("libjemalloc") == std::string::npos) {
      return Fail("the counter does not say it forwards to jemalloc");
    }
  } else {
    if (mallctl != nullptr) return Fail("jemalloc is loaded, glibc expected");
    if (note.find("libc.so") == std::string::npos) {
      return Fail("the counter does not say it forwards to glibc");
    }
  }
  std::printf("ok: %s served the counted mallocs\n", argv[1]);
  return 0;
}
