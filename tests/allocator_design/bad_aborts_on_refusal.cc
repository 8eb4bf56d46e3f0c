// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a refused map is fatal, "out of memory cannot be handled
// anyway", as many a toy allocator's `if (p == MAP_FAILED) abort();` has
// it. But malloc() must return NULL with ENOMEM, and the program decides:
// a server drops one request, a cache evicts, a test prints what failed.
// task.h: Allocate() returns nullptr when the page source refuses. The
// reference does the rest. The suite must reject it.

#include <cstddef>
#include <cstdlib>

#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

void* MapPagesOrAbort(size_t bytes) {
  void* p = MapPages(bytes);
  if (p == nullptr) abort();  // the mistake
  return p;
}

void* MapAlignedPagesOrAbort(size_t bytes, size_t alignment) {
  void* p = MapAlignedPages(bytes, alignment);
  if (p == nullptr) abort();  // the mistake
  return p;
}

}  // namespace
}  // namespace allocator_design

// The reference, its every map going through the two above.
#define MapPages MapPagesOrAbort
#define MapAlignedPages MapAlignedPagesOrAbort
#include "solutions/allocator_design/task.cc"
#undef MapPages
#undef MapAlignedPages
