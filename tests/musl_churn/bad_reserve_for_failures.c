/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler whose kept blocks are a reserve, taken only when the
 * backend fails, "so the program survives running out of memory". It keeps
 * blocks within its bound and gives them all back, but it asks the backend
 * for every block: no released block is reused, and every allocation is
 * still musl's mmap. ReusesAFreedLargeBlock must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

static long class_of(const struct recycler* r, size_t size) {
  if (size < r->config.min_size || size < KEPT_MIN_BYTES) return -1;
  const size_t c = (size + KEPT_CLASS_BYTES - 1) / KEPT_CLASS_BYTES;
  return c < KEPT_CLASSES ? (long)c : -1;
}

void* recycler_allocate(struct recycler* r, size_t size) {
  const long c = class_of(r, size);
  if (c < 0) return backend_allocate(r, size);
  /* The mistake: the backend first; the kept blocks only when it fails. */
  void* block = backend_allocate(r, (size_t)c * KEPT_CLASS_BYTES);
  return block != NULL ? block : kept_pop(r, c);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  const long c = class_of(r, size);
  const size_t bytes = (size_t)c * KEPT_CLASS_BYTES;
  if (c < 0 || r->held_bytes + bytes > r->config.bound_bytes) {
    backend_release(r, block, c < 0 ? size : bytes);
    return;
  }
  kept_push(r, c, block, bytes);
}
