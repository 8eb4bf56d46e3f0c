/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that gives a block it does not keep back to the
 * backend with the caller's size, "the size the caller freed". The block
 * was allocated with its class's size, larger for any request that is not
 * a multiple of a class: a backend such as munmap() then leaves its tail
 * mapped. task.h gives blocks back with the size they were allocated with.
 * GivesEverythingBackWithItsSize must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

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
  const size_t bytes = (size_t)c * KEPT_CLASS_BYTES;
  if (c < 0 || r->held_bytes + bytes > r->config.bound_bytes) {
    /* The mistake: the caller's size, not the size allocated. */
    backend_release(r, block, size);
    return;
  }
  kept_push(r, c, block, bytes);
}
