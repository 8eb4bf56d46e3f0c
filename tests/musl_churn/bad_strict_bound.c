/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler whose bound is strict, "held + block < bound". It
 * never exceeds its bound, and with bounds many blocks wide it keeps one
 * block fewer at most, which no churn count notices; but a bound of exactly
 * one block keeps nothing at all, and task.h's bound is inclusive: the held
 * bytes may reach `bound_bytes`. KeepsABlockThatFillsTheBoundExactly must
 * fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, kept_class(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  const long c = kept_class(r, size);
  const size_t bytes = (size_t)c * KEPT_CLASS_BYTES;
  /* The mistake: >=, where only > breaks the bound. */
  if (c < 0 || r->held_bytes + bytes >= r->config.bound_bytes) {
    backend_release(r, block, c < 0 ? size : bytes);
    return;
  }
  kept_push(r, c, block, bytes);
}
