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

/* known_bad_common's recycler as it is: the mistake is the end of its table
 * (kept_class(): past the last class, a block passes straight through). */
void* recycler_allocate(struct recycler* r, size_t size) {
  return kept_allocate(r, kept_class(r, size), size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  kept_release(r, kept_class(r, size), block, size);
}
