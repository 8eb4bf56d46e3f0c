/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Known-bad: size classes rounded down. A request takes exactly its size
 * from the backend, and a block is kept in the class of size / 4 KiB, so a
 * 129 KiB block kept in class 32 (128..132 KiB) is handed out for a 131 KiB
 * request: 2 KiB short. The churn writes the last byte of every block: in
 * such a one, past the end of what musl mapped for it, and the musl build
 * dies of a segmentation fault (the munmap test reports the signal); ASan
 * stops a glibc build. HandsOutAtLeastTheRequestedSize must fail: the
 * suite's tracker catches the short block before anything writes into it
 * (and the tests that churn through it fail too, on the aborted run). */

#include "labs/musl_churn/task.h"
#include "tests/musl_churn/known_bad_common.h"

static long class_of(const struct recycler* r, size_t size) {
  if (size < r->config.min_size || size < KEPT_MIN_BYTES) return -1;
  const size_t c = size / KEPT_CLASS_BYTES; /* the mistake: rounds down */
  return c < KEPT_CLASSES ? (long)c : -1;
}

void* recycler_allocate(struct recycler* r, size_t size) {
  const long c = class_of(r, size);
  if (c < 0) return backend_allocate(r, size);
  void* block = kept_pop(r, c);
  return block != NULL ? block : backend_allocate(r, size);
}

void recycler_release(struct recycler* r, void* block, size_t size) {
  const long c = class_of(r, size);
  if (c < 0 || r->held_bytes + size > r->config.bound_bytes) {
    backend_release(r, block, size);
    return;
  }
  kept_push(r, c, block, size);
}
