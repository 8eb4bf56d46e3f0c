/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that passes through the blocks below musl's mmap
 * threshold (131052 bytes, CHURN_MUSL_MMAP_THRESHOLD), "the blocks musl
 * unmaps are the ones worth keeping", instead of the ones below min_size.
 * With the lab's own config (min_size = that threshold) it is exactly right;
 * but min_size is the caller's choice: below it blocks must pass straight
 * through, and from it on a freed block is reused. task.h says so for any
 * min_size. MinSizes/RecyclerMinSizeTest must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

static long class_of(const struct recycler* r, size_t size) {
  (void)r;
  /* The mistake: musl's threshold, hard-coded, in place of min_size. */
  if (size < 131052) return -1;
  return kept_size_class(size);
}

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, class_of(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, class_of(r, size), block, size);
}
