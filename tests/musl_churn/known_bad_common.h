/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * -----------------------------------------------------------------------------
 * File: known_bad_common.h
 * -----------------------------------------------------------------------------
 *
 * What the known-bad recyclers share, so that each bad_*.c keeps only its
 * own mistake: a recycler struct with per-class lists of kept blocks (the
 * pointer to the next block stored in the block), and the parts that are
 * right in both (create, held bytes, destroy).
 *
 * Example (a bad_*.c):
 *
 *   void* recycler_allocate(struct recycler* r, size_t size) {
 *     long c = my_class(r, size);
 *     void* block = c < 0 ? NULL : kept_pop(r, c);
 *     return block != NULL ? block : backend_allocate(r, size);
 *   }
 */

#ifndef ALLOCLAB_TESTS_MUSL_CHURN_KNOWN_BAD_COMMON_H_
#define ALLOCLAB_TESTS_MUSL_CHURN_KNOWN_BAD_COMMON_H_

#include <stddef.h>

#include "labs/musl_churn/task.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KEPT_CLASS_BYTES 4096
#define KEPT_CLASSES 1024

struct recycler {
  struct recycler_config config;
  size_t held_bytes;
  void* heads[KEPT_CLASSES];
  size_t sizes[KEPT_CLASSES]; /* the backend size of the blocks of a class */
};

/* kept_push(), kept_pop(): class `c`'s list; held_bytes follows. */
void kept_push(struct recycler* r, long c, void* block, size_t bytes);
void* kept_pop(struct recycler* r, long c);

void* backend_allocate(struct recycler* r, size_t size);
void backend_release(struct recycler* r, void* block, size_t size);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* ALLOCLAB_TESTS_MUSL_CHURN_KNOWN_BAD_COMMON_H_ */
