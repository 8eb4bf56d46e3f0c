/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler with no bound. Every large block is kept, so the
 * munmap calls vanish, and so does the memory: it holds whatever the peak of
 * freed blocks was, which is what glibc does and what musl set out not to.
 * NeverHoldsMoreThanItsBound and KeepsWhatItsBoundAllows must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, kept_class(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  const long c = kept_class(r, size);
  if (c < 0) {
    backend_release(r, block, size);
    return;
  }
  kept_push(r, c, block, (size_t)c * KEPT_CLASS_BYTES); /* no bound check */
}
