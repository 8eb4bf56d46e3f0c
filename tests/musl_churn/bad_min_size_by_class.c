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
  const long c = kept_size_class(size);
  /* The mistake: the class size, not the request, is held to min_size. */
  if (c < 0 || (size_t)c * KEPT_CLASS_BYTES < r->config.min_size) return -1;
  return c;
}

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, class_of(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, class_of(r, size), block, size);
}
