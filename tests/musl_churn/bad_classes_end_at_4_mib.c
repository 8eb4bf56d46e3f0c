/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: a recycler with a fixed table of 1024 classes of 4 KiB, "no
 * block of the churn is larger than 4 MiB". Every promise holds for the
 * sizes the table covers, and the churn's blocks all fit it; but task.h
 * reuses a freed large block of any size the bound allows, and a block
 * past the table's last class passes straight through here, freed and
 * allocated again each time. RecyclerTest.ReusesAFreedBlockOfEveryLargeSize
 * must fail. */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

static long class_of(const struct recycler* r, size_t size) {
  if (size < r->config.min_size || size < KEPT_MIN_BYTES) return -1;
  const size_t c = (size + KEPT_CLASS_BYTES - 1) / KEPT_CLASS_BYTES;
  /* The mistake: past the table, the block is not kept. */
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
  if (c < 0 || bytes > r->config.bound_bytes - r->held_bytes) {
    backend_release(r, block, c < 0 ? size : bytes);
    return;
  }
  kept_push(r, c, block, bytes);
}
