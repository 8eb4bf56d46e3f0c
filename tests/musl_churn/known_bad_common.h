/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * -----------------------------------------------------------------------------
 * File: known_bad_common.h
 * -----------------------------------------------------------------------------
 *
 * What the known-bad recyclers share, so that each bad_*.c keeps only its
 * own mistake: a recycler struct with a fixed table of per-class lists of
 * kept blocks (the pointer to the next block and the block's own backend
 * size stored in the block, so that blocks of different sizes may share a
 * class), its class rule, allocate and release by class, and the parts
 * that are right in all of them (create, held bytes, destroy). It is not
 * the reference's recycler, whose helpers are static and cannot be renamed
 * alone (docs/adding_a_lab.md, section 5): past its table a block passes
 * straight through, which is bad_classes_end_at_4_mib.c's mistake.
 *
 * Each bad_*.c defines recycler_allocate() and recycler_release(), one
 * line each where it gets them right.
 *
 * Example (a bad_*.c whose mistake is the class rule's look at min_size):
 *
 *   static long my_class(const struct recycler* r, size_t size) {
 *     if (size <= r->config.min_size) return -1;  // the mistake
 *     return kept_size_class(size);
 *   }
 *
 *   void* recycler_allocate(struct recycler* r, size_t size) {
 *     return kept_allocate(r, my_class(r, size), size);
 *   }
 *   void recycler_release(struct recycler* r, void* block, size_t size) {
 *     kept_release(r, my_class(r, size), block, size);
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

/* kept_class()
 *
 * The class of a request of `size` bytes, or -1 when it passes straight
 * through: below min_size, or kept_size_class()'s -1. */
long kept_class(const struct recycler* r, size_t size);

/* kept_size_class()
 *
 * kept_class() without min_size, for a class rule whose mistake is in its
 * look at min_size: the class of a block of `size` bytes, or -1 when it is
 * too small to hold the links of a kept block or past the table's last
 * class. Class c holds blocks of c * KEPT_CLASS_BYTES (sizes rounded up). */
long kept_size_class(size_t size);

/* kept_allocate()
 *
 * recycler_allocate() for a request of `size` bytes in class `c`: the last
 * block kept in the class, or a new class-sized block from the backend; for
 * c < 0, `size` bytes from the backend. */
void* kept_allocate(struct recycler* r, long c, size_t size);

/* kept_release()
 *
 * recycler_release() for a block of a request of `size` bytes in class `c`:
 * kept while the held bytes stay within the bound, given back with the
 * size it was allocated with otherwise (and for c < 0). */
void kept_release(struct recycler* r, long c, void* block, size_t size);

/* backend_allocate(), backend_release()
 *
 * The backend of `r`'s config, called with its context. */
void* backend_allocate(struct recycler* r, size_t size);
void backend_release(struct recycler* r, void* block, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ALLOCLAB_TESTS_MUSL_CHURN_KNOWN_BAD_COMMON_H_ */
