/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * -----------------------------------------------------------------------------
 * File: known_bad_common.h
 * -----------------------------------------------------------------------------
 *
 * What the known-bad recyclers share, so that each bad_*.c keeps only its
 * own mistake: a recycler struct with per-class lists of kept blocks (the
 * pointer to the next block and the block's own backend size stored in the
 * block, so that blocks of different sizes may share a class), and the parts
 * that are right in both (create, held bytes, destroy).
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

/* KEPT_CLASS_BYTES, KEPT_CLASSES: the width and number of size classes. */
#define KEPT_CLASS_BYTES 4096
#define KEPT_CLASSES 1024

/* KEPT_MIN_BYTES: the smallest block that can be kept (it holds the link to
 * the next kept block and its own size). */
#define KEPT_MIN_BYTES (sizeof(void*) + sizeof(size_t))

/* struct recycler
 *
 * `heads[c]`: the kept blocks of class c, a list linked through the blocks;
 * `held_bytes`: the backend sizes of all kept blocks, added up. */
struct recycler {
  struct recycler_config config;
  size_t held_bytes;
  void* heads[KEPT_CLASSES];
};

/* kept_push()
 *
 * Keeps `block`, allocated from the backend with `bytes` bytes, in class
 * `c`'s list; held_bytes grows by `bytes`. */
void kept_push(struct recycler* r, long c, void* block, size_t bytes);

/* kept_pop()
 *
 * The last block kept in class `c`, taken off its list (held_bytes shrinks
 * by its backend size), or NULL when the class has none. */
void* kept_pop(struct recycler* r, long c);

/* backend_allocate(), backend_release()
 *
 * The backend of `r`'s config, called with its context. */
void* backend_allocate(struct recycler* r, size_t size);
void backend_release(struct recycler* r, void* block, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ALLOCLAB_TESTS_MUSL_CHURN_KNOWN_BAD_COMMON_H_ */
