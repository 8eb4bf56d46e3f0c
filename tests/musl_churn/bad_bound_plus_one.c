/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that makes its bound inclusive with one more byte,
 * "held + block < bound + 1". For every bound but one that is exactly
 * task.h's rule (held bytes may reach the bound); but `bound_bytes + 1`
 * wraps around to 0 for a bound of SIZE_MAX, the "no limit" a caller
 * writes, and then nothing is ever kept: no freed block is reused, where
 * the bound allows every one. RecyclerTopOfSizeTest.ABoundOfSizeMaxKeeps-
 * FreedBlocks must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, kept_class(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  const long c = kept_class(r, size);
  const size_t bytes = (size_t)c * KEPT_CLASS_BYTES;
  /* The mistake: bound_bytes + 1 is 0 when the bound is SIZE_MAX. */
  if (c < 0 || !(r->held_bytes + bytes < r->config.bound_bytes + 1)) {
    backend_release(r, block, c < 0 ? size : bytes);
    return;
  }
  kept_push(r, c, block, bytes);
}
