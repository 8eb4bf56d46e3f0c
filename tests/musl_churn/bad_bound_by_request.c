/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that checks its bound against the size the caller
 * released, not the size it really holds. It rounds every request up to a
 * 4 KiB class and keeps the class-sized block, but asks "does `size` still
 * fit?": with bounds that are multiples of 4 KiB the two agree, and with
 * any other bound the last block kept takes the held bytes up to a class
 * past the bound (299,008 held with a bound of 299,005). Task.h counts the
 * bound "in bytes as allocated from the backend".
 * HoldsNoMoreThanABoundThatIsNoMultipleOfAClass must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, kept_class(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  const long c = kept_class(r, size);
  const size_t bytes = (size_t)c * KEPT_CLASS_BYTES;
  /* The mistake: `size`, where the block holds `bytes`. */
  if (c < 0 || r->held_bytes + size > r->config.bound_bytes) {
    backend_release(r, block, c < 0 ? size : bytes);
    return;
  }
  kept_push(r, c, block, bytes);
}
