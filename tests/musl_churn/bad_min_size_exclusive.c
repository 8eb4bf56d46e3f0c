/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that keeps only blocks *larger* than min_size, "a
 * block of min_size is still a small one". Every block the suite's churn
 * keeps is far above min_size, and every small one far below; but task.h
 * lets blocks "of this many bytes or more" be kept and reuses a freed large
 * block: a block of exactly min_size passes through here, and is never
 * reused. MinSizes/RecyclerMinSizeTest must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

static long class_of(const struct recycler* r, size_t size) {
  /* The mistake: <=, where only a smaller block passes through. */
  if (size <= r->config.min_size) return -1;
  return kept_size_class(size);
}

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, class_of(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, class_of(r, size), block, size);
}
