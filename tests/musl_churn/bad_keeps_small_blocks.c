/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that keeps every released block, small ones too,
 * "they cost a call to the backend as well". Below min_size the backend's
 * own free lists already serve them without a system call, and a kept
 * small block only takes room under the bound; task.h passes them straight
 * through. PassesSmallBlocksStraightThrough must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

static long class_of(const struct recycler* r, size_t size) {
  /* The mistake: min_size is not looked at; every block is kept. */
  if (size < KEPT_MIN_BYTES) return -1;
  const size_t c = (size + KEPT_CLASS_BYTES - 1) / KEPT_CLASS_BYTES;
  return c < KEPT_CLASSES ? (long)c : -1;
}

void* recycler_allocate(struct recycler* r, size_t size) {
  const long c = class_of(r, size);
  if (c < 0) return backend_allocate(r, size);
  void* block = kept_pop(r, c);
  return block != NULL ? block
                       : backend_allocate(r, (size_t)c * KEPT_CLASS_BYTES);
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
