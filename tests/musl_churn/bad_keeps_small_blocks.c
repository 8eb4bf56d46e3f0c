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
  (void)r;
  /* The mistake: min_size is not looked at; every block is kept. */
  if (size < KEPT_MIN_BYTES) return -1;
  const size_t c = (size + KEPT_CLASS_BYTES - 1) / KEPT_CLASS_BYTES;
  return c < KEPT_CLASSES ? (long)c : -1;
}

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, class_of(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, class_of(r, size), block, size);
}
