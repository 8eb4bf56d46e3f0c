/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * -----------------------------------------------------------------------------
 * File: task.h
 * -----------------------------------------------------------------------------
 *
 * Lab musl_churn, your task: a bounded recycler for large blocks, in C (the
 * musl build of the workload is compiled by musl-gcc, which compiles C).
 *
 * musl's mallocng gives a block of CHURN_MUSL_MMAP_THRESHOLD bytes or more
 * back to the kernel (munmap) the moment it is freed, and the next such
 * request maps fresh memory again: two system calls per block, and the page
 * faults of its fresh pages. The recycler sits between the workload and
 * malloc and keeps freed blocks of at least `min_size` bytes, by size class,
 * to hand them out again, as long as everything it keeps adds up to no more
 * than `bound_bytes`. A block it cannot keep goes back to the backend at once.
 * That is Rich Felker's trade, under your control: memory kept against
 * kernel work saved. The experiment's `_recycled` rows show both sides.
 *
 * The rules the suite checks (`bazel test //tests/musl_churn:starter_test`):
 *
 *   - every block comes from `backend.allocate` and goes back through
 *     `backend.release` with the size it was allocated with (not
 *     necessarily the size the caller asked for: you may round up to a
 *     class size);
 *   - a block handed out for `size` bytes has at least `size` usable bytes;
 *   - the bytes held (allocated from the backend, released by the caller,
 *     not yet given back) never exceed `bound_bytes`, counted in the sizes
 *     the blocks were allocated with (a class size, not the caller's), for
 *     any bound, a multiple of 4 KiB or not; the bound is inclusive: held
 *     bytes may reach it exactly (a bound of one block keeps that block);
 *     and recycler_held_bytes() says how many they are;
 *   - blocks smaller than `min_size` are passed straight through;
 *   - recycler_destroy() gives back everything held;
 *   - a freed large block is reused: allocate, release, allocate the same
 *     size again makes one backend allocation when the bound allows it.
 *
 * The starter passes every call straight to the backend: correct, and no
 * help at all.
 *
 * Example:
 *
 *   struct recycler_config config = {0};
 *   config.min_size = CHURN_MUSL_MMAP_THRESHOLD;
 *   config.bound_bytes = 64 << 20;
 *   config.backend.allocate = my_malloc;        (wrappers of malloc, free)
 *   config.backend.release = my_free;
 *   struct recycler* r = recycler_create(&config);
 *   void* block = recycler_allocate(r, 200 * 1024);
 *   recycler_release(r, block, 200 * 1024);     (kept, not freed)
 *   block = recycler_allocate(r, 200 * 1024);   (the same block again)
 *   recycler_release(r, block, 200 * 1024);
 *   recycler_destroy(r);                         (everything freed)
 */

#ifndef ALLOCLAB_LABS_MUSL_CHURN_TASK_H_
#define ALLOCLAB_LABS_MUSL_CHURN_TASK_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* struct recycler_backend
 *
 * Where blocks really come from and go to: malloc and free in the workload,
 * a counting wrapper in the tests. `release` must get the size its block was
 * allocated with. */
struct recycler_backend {
  void* (*allocate)(void* context, size_t size);
  void (*release)(void* context, void* block, size_t size);
  void* context;
};

/* struct recycler_config
 *
 * `min_size`: blocks of this many bytes or more may be kept (smaller ones
 * pass straight through). `bound_bytes`: the most the recycler may hold, in
 * bytes as allocated from the backend; 0 keeps nothing. */
struct recycler_config {
  size_t min_size;
  size_t bound_bytes;
  struct recycler_backend backend;
};

/* RECYCLER_LAB_BOUND_BYTES
 *
 * The bound of the experiment's `_recycled` rows and of the suite's musl
 * test: 64 MiB, about a quarter of what glibc keeps resident for the same
 * churn at scale 1024 (200,000 iterations). Change it and watch both columns
 * move. */
#define RECYCLER_LAB_BOUND_BYTES ((size_t)64 << 20)

struct recycler;

/* recycler_create()
 *
 * A new recycler, or NULL when `config` has no backend functions or the
 * recycler's own bookkeeping cannot be allocated. The config is copied. */
struct recycler* recycler_create(const struct recycler_config* config);

/* recycler_allocate()
 *
 * A block of at least `size` bytes (size >= 1), or NULL when the backend has
 * none: any size up to SIZE_MAX, so a size whose class would not fit in a
 * size_t gets NULL, never a block of a class that wrapped around. */
void* recycler_allocate(struct recycler* recycler, size_t size);

/* recycler_release()
 *
 * Takes back a block that recycler_allocate(recycler, size) returned, with
 * the same `size`: keeps it for reuse, or gives it back to the backend. */
void recycler_release(struct recycler* recycler, void* block, size_t size);

/* recycler_held_bytes()
 *
 * The bytes held now: kept for reuse, not handed out, not given back. */
size_t recycler_held_bytes(const struct recycler* recycler);

/* recycler_destroy()
 *
 * Gives every held block back to the backend and frees the recycler.
 * Release every block you were handed before: the recycler does not track
 * blocks out on loan. NULL is a no-op. */
void recycler_destroy(struct recycler* recycler);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ALLOCLAB_LABS_MUSL_CHURN_TASK_H_ */
