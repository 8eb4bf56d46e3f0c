/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that compares min_size with the class size a
 * request rounds up to, "what is kept is the class block, so that is the
 * size that counts". Every size the suite tried before is far from
 * min_size, on one side or the other, and there the two agree; but a
 * request just below min_size rounds up past it and is kept, where task.h
 * passes blocks smaller than min_size straight through.
 * MinSizes/RecyclerMinSizeTest must fail.
 */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

static long class_of(const struct recycler* r, size_t size) {
  if (size < KEPT_MIN_BYTES) return -1;
  const size_t c = (size + KEPT_CLASS_BYTES - 1) / KEPT_CLASS_BYTES;
  /* The mistake: the class size, not the request, is held to min_size. */
  if (c * KEPT_CLASS_BYTES < r->config.min_size) return -1;
  return c < KEPT_CLASSES ? (long)c : -1;
}

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, class_of(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, class_of(r, size), block, size);
}
