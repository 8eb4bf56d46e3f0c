/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * -----------------------------------------------------------------------------
 * File: churn.h
 * -----------------------------------------------------------------------------
 *
 * The churn workload of the musl thread (lab musl_churn's source,
 * docs/labs/musl_churn.md), shared by two labs: musl_churn runs it against
 * glibc and against musl, jemalloc_adoption as one of its six workloads
 * under every allocator. In C so that one source builds
 * against glibc (gcc) and against musl (musl-gcc) and both binaries do the
 * same work: up to CHURN_MAX_LIVE live blocks of random sizes
 * ((draw % 256) + 1) * scale bytes; each new block has its last byte written
 * (a touch, so that the block is really backed by memory; the thread's
 * program wrote p[1023] instead, a byte on the block's first page, which
 * its header's page already is, so there a mapped block touched one page
 * and here two); once the table is
 * full, every new block first frees a random live one; everything is freed at
 * the end.
 *
 * The random draws come from the workload's own xorshift64 (the generator of
 * common/stats/pseudo_random.h, seeded the same way), not from rand(): glibc's
 * and musl's rand() give different sequences, and the two builds must ask for
 * exactly the same sizes in the same order. The checksum of the requested
 * sizes proves that they did.
 *
 * Blocks come from malloc and go back to free unless the caller passes an
 * allocator (e.g. lab musl_churn's recycler, or a test's counting wrapper).
 *
 * Example:
 *
 *   struct churn_params params = {0};
 *   params.iterations = 200000;
 *   params.scale = 1024;    (the thread's sizes: 1 KiB .. 256 KiB)
 *   params.seed = 1;
 *   uint64_t checksum = churn_run(&params);
 *   if (checksum == CHURN_FAILED) ...  (churn_check_params() says why)
 */

#ifndef ALLOCLAB_COMMON_WORKLOADS_CHURN_H_
#define ALLOCLAB_COMMON_WORKLOADS_CHURN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CHURN_MAX_LIVE: the most blocks alive at once (the thread's MAXF). */
#define CHURN_MAX_LIVE 4096

/* CHURN_SIZE_CLASSES: the number of distinct sizes, 1..256 times the scale. */
#define CHURN_SIZE_CLASSES 256

/* CHURN_MUSL_MMAP_THRESHOLD
 *
 * musl 1.2's mallocng (Debian's musl-tools is 1.2.3) serves a request of
 * this many bytes or more with an mmap of its own and unmaps it on free
 * (MMAP_THRESHOLD in mallocng's meta.h); smaller requests come from groups
 * of same-size slots that it manages itself. The tests, the experiment's
 * share column and the chapter all use this one number. */
#define CHURN_MUSL_MMAP_THRESHOLD 131052

/* CHURN_MAX_SCALE: the largest scale churn_check_params() accepts (blocks of
 * up to 256 * 64 KiB = 16 MiB, 64 GiB of address space when all are live). */
#define CHURN_MAX_SCALE 65536

/* CHURN_PROGRESS_INTERVAL: iterations between two progress callbacks. */
#define CHURN_PROGRESS_INTERVAL 65536

/* CHURN_FAILED: what churn_run() returns when it could not run; a run's
 * checksum is never this value. */
#define CHURN_FAILED 0

/* struct churn_allocator
 *
 * Where the blocks come from, when not from malloc/free. `release` gets the
 * size the block was allocated with. */
struct churn_allocator {
  void* (*allocate)(void* context, size_t size);
  void (*release)(void* context, void* block, size_t size);
  void* context;
};

/* struct churn_params
 *
 * `iterations`: allocations to make (>= 1). `scale`: bytes per size step,
 * 1..CHURN_MAX_SCALE (the thread used 1024; Rich Felker suggested 256).
 * `seed`: any value. `allocator`: NULL for malloc/free. `progress`: NULL, or
 * called with the iterations done every CHURN_PROGRESS_INTERVAL iterations
 * (the caller decides whether and how often to print). */
struct churn_params {
  uint64_t iterations;
  uint64_t scale;
  uint64_t seed;
  const struct churn_allocator* allocator;
  void (*progress)(void* context, uint64_t done, uint64_t total);
  void* progress_context;
};

/* churn_libc_allocator()
 *
 * malloc and free as a churn_allocator (what a NULL `allocator` means), for
 * a caller that puts something between the churn and malloc. */
const struct churn_allocator* churn_libc_allocator(void);

/* churn_check_params()
 *
 * NULL when `params` can run, else a message that says what is wrong (a
 * static string). */
const char* churn_check_params(const struct churn_params* params);

/* churn_run()
 *
 * Runs the workload and returns the checksum of the sizes it asked for
 * (FNV-1a over the sizes, in order). CHURN_FAILED when the params are bad or
 * an allocation returned NULL; everything allocated is freed either way. */
uint64_t churn_run(const struct churn_params* params);

/* churn_block_size()
 *
 * The size one random draw asks for: ((draw % CHURN_SIZE_CLASSES) + 1) *
 * scale. */
uint64_t churn_block_size(uint64_t draw, uint64_t scale);

/* churn_classes_at_or_above()
 *
 * How many of the CHURN_SIZE_CLASSES sizes at `scale` are at least
 * `threshold` bytes: the share of requests (every class is equally likely)
 * that musl sends to mmap when `threshold` is CHURN_MUSL_MMAP_THRESHOLD. */
uint32_t churn_classes_at_or_above(uint64_t scale, uint64_t threshold);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ALLOCLAB_COMMON_WORKLOADS_CHURN_H_ */
