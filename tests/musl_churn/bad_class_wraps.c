/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that rounds a request up to its class with
 * `(size + KEPT_CLASS_BYTES - 1) / KEPT_CLASS_BYTES`, the usual idiom. For
 * every size a program can allocate it is right; but at the top of size_t
 * the sum wraps around, SIZE_MAX lands in class 0, and the recycler asks
 * the backend for 0 bytes and hands that block out for SIZE_MAX, where
 * task.h promises a block of at least `size` bytes or NULL.
 * RecyclerTopOfSizeTest.ASizeNoBackendHasGetsNull must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

static long class_of(const struct recycler* r, size_t size) {
  if (size < r->config.min_size || size < KEPT_MIN_BYTES) return -1;
  /* The mistake: the sum wraps around for the last 4095 sizes. */
  const size_t c = (size + KEPT_CLASS_BYTES - 1) / KEPT_CLASS_BYTES;
  return c < KEPT_CLASSES ? (long)c : -1;
}

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, class_of(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, class_of(r, size), block, size);
}
