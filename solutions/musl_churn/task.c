/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Lab musl_churn, the reference recycler (task.h).
 *
 * Large requests are rounded up to a multiple of RECYCLER_CLASS_BYTES, and
 * each multiple is a size class with a list of kept blocks. A block of a
 * class serves every request that rounds to it, so a kept block is always at
 * least as large as what it is handed out for, and the backend always gets
 * a block back with the size it was allocated with: the class size, computed
 * again from the size the caller passes to recycler_release().
 *
 * The lists are intrusive: a kept block's first bytes hold the pointer to
 * the next one, so keeping a block costs no allocation (min_size is at least
 * a pointer). RECYCLER_CLASSES classes cover sizes from min_size up; larger
 * blocks pass straight through. A release that would take the held bytes
 * over the bound gives the block back at once. */

#include "labs/musl_churn/task.h"

#include <stdlib.h>

/* Class granularity: the requests of the course's workload are multiples of
 * its scale (256 or 1024 bytes), so four of them share a class at scale
 * 1024 and rounding wastes under 3% of a 128 KiB block. */
#define RECYCLER_CLASS_BYTES 4096

/* Classes kept: from the first class at or above min_size, 4 MiB of sizes. */
#define RECYCLER_CLASSES 1024

struct recycler {
  struct recycler_config config;
  size_t first_class_bytes; /* the smallest class size that may be kept */
  size_t held_bytes;
  void* heads[RECYCLER_CLASSES]; /* kept blocks of each class */
};

static size_t round_up_to_class(size_t size) {
  return (size + RECYCLER_CLASS_BYTES - 1) / RECYCLER_CLASS_BYTES *
         RECYCLER_CLASS_BYTES;
}

/* The class of a request, or -1 when it passes through (too small, or
 * beyond the last class). */
static long class_of(const struct recycler* recycler, size_t size) {
  if (size < recycler->config.min_size) return -1;
  if (size > (size_t)-1 - RECYCLER_CLASS_BYTES) return -1; /* no rounding */
  const size_t index = (round_up_to_class(size) - recycler->first_class_bytes) /
                       RECYCLER_CLASS_BYTES;
  return index < RECYCLER_CLASSES ? (long)index : -1;
}

static size_t class_bytes(const struct recycler* recycler, long index) {
  return recycler->first_class_bytes + (size_t)index * RECYCLER_CLASS_BYTES;
}

struct recycler* recycler_create(const struct recycler_config* config) {
  if (config == NULL || config->backend.allocate == NULL ||
      config->backend.release == NULL) {
    return NULL;
  }
  struct recycler* recycler = calloc(1, sizeof(*recycler));
  if (recycler == NULL) return NULL;
  recycler->config = *config;
  /* A kept block holds a pointer: nothing smaller may be kept. */
  if (recycler->config.min_size < sizeof(void*)) {
    recycler->config.min_size = sizeof(void*);
  }
  recycler->first_class_bytes = round_up_to_class(recycler->config.min_size);
  return recycler;
}

void* recycler_allocate(struct recycler* recycler, size_t size) {
  const struct recycler_backend* backend = &recycler->config.backend;
  const long index = class_of(recycler, size);
  if (index < 0) return backend->allocate(backend->context, size);
  void* block = recycler->heads[index];
  if (block != NULL) {
    recycler->heads[index] = *(void**)block;
    recycler->held_bytes -= class_bytes(recycler, index);
    return block;
  }
  return backend->allocate(backend->context, class_bytes(recycler, index));
}

void recycler_release(struct recycler* recycler, void* block, size_t size) {
  const struct recycler_backend* backend = &recycler->config.backend;
  const long index = class_of(recycler, size);
  if (index < 0) {
    backend->release(backend->context, block, size);
    return;
  }
  const size_t bytes = class_bytes(recycler, index);
  if (bytes > recycler->config.bound_bytes - recycler->held_bytes ||
      recycler->held_bytes > recycler->config.bound_bytes) {
    backend->release(backend->context, block, bytes);
    return;
  }
  *(void**)block = recycler->heads[index];
  recycler->heads[index] = block;
  recycler->held_bytes += bytes;
}

size_t recycler_held_bytes(const struct recycler* recycler) {
  return recycler->held_bytes;
}

void recycler_destroy(struct recycler* recycler) {
  if (recycler == NULL) return;
  const struct recycler_backend* backend = &recycler->config.backend;
  for (long index = 0; index < RECYCLER_CLASSES; ++index) {
    const size_t bytes = class_bytes(recycler, index);
    while (recycler->heads[index] != NULL) {
      void* block = recycler->heads[index];
      recycler->heads[index] = *(void**)block;
      backend->release(backend->context, block, bytes);
    }
  }
  free(recycler);
}
