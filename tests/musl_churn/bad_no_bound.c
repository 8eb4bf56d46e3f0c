/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler with no bound. Every large block is kept, so the
 * munmap calls vanish, and so does the memory: it holds whatever the peak of
 * freed blocks was, which is what glibc does and what musl set out not to.
 * NeverHoldsMoreThanItsBound and KeepsWhatItsBoundAllows must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

/* Classes of 4 KiB from 0, rounded up: a kept block fits every request of
 * its class. */
static long class_of(const struct recycler* r, size_t size) {
  if (size < r->config.min_size || size < KEPT_MIN_BYTES) return -1;
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
  if (c < 0) {
    backend_release(r, block, size);
    return;
  }
  kept_push(r, c, block, (size_t)c * KEPT_CLASS_BYTES); /* no bound check */
}
