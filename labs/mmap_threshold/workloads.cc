// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/mmap_threshold/workloads.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/instruments/sink.h"

namespace mmap_threshold {
namespace {

// Keeps results observable: what lands here cannot be optimized away.
volatile uint8_t g_sink;

}  // namespace

uint8_t BigBufferCall(uint8_t fill) {
  auto* block = static_cast<uint8_t*>(malloc(kBlockBytes));
  if (block == nullptr) {
    std::fprintf(stderr, "BigBufferCall: malloc(%zu) failed\n", kBlockBytes);
    std::abort();
  }
  std::memset(block, fill, kBlockBytes);
  alloclab::Escape(block);  // the stores must happen, the malloc stay
  const uint8_t seen = block[(fill * 4099u) % kBlockBytes];
  free(block);
  return seen;
}

void BigBufferCalls(int64_t calls) {
  for (int64_t i = 0; i < calls; ++i) {
    g_sink = BigBufferCall(static_cast<uint8_t>(i));
  }
}

void TouchEveryPage(void* block, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto* bytes_of = static_cast<volatile uint8_t*>(block);
  for (size_t offset = 0; offset < bytes; offset += page) {
    bytes_of[offset] = 1;
  }
  alloclab::Escape(block);
}

}  // namespace mmap_threshold
