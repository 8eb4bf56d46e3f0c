/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler whose kept blocks are a reserve, taken only when the
 * backend fails, "so the program survives running out of memory". It keeps
 * blocks within its bound and gives them all back, but it asks the backend
 * for every block: no released block is reused, and every allocation is
 * still musl's mmap. ReusesAFreedLargeBlock must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

void* recycler_allocate(struct recycler* r, size_t size) {
  const long c = kept_class(r, size);
  if (c < 0) return backend_allocate(r, size);
  /* The mistake: the backend first; the kept blocks only when it fails. */
  void* block = backend_allocate(r, (size_t)c * KEPT_CLASS_BYTES);
  return block != NULL ? block : kept_pop(r, c);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, kept_class(r, size), block, size);
}
