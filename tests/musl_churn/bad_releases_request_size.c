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

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, kept_class(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  const long c = kept_class(r, size);
  const size_t bytes = (size_t)c * KEPT_CLASS_BYTES;
  if (c < 0 || r->held_bytes + bytes > r->config.bound_bytes) {
    /* The mistake: the caller's size, not the size allocated. */
    backend_release(r, block, size);
    return;
  }
  kept_push(r, c, block, bytes);
}
