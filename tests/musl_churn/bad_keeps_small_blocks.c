/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler that keeps every released block, small ones too,
 * "they cost a call to the backend as well". Below min_size the backend's
 * own free lists already serve them without a system call, and a kept
 * small block only takes room under the bound; task.h passes them straight
 * through. PassesSmallBlocksStraightThrough must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

/* The mistake: the class of the size alone; min_size is not looked at, and
 * every block is kept. */
void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, kept_size_class(size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, kept_size_class(size), block, size);
}
