/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * The churn workload (churn.h). Plain C99 with nothing but <stdlib.h>: the
 * same file is compiled by gcc for glibc and by musl-gcc for musl. */

#include "common/workloads/churn.h"

#include <stdlib.h>

/* The golden-ratio constant common/stats/pseudo_random.h mixes into the seed,
 * so that seed 0 does not leave xorshift64 stuck at 0. */
#define CHURN_GOLDEN_RATIO 0x9e3779b97f4a7c15ULL

#define CHURN_FNV_OFFSET 0xcbf29ce484222325ULL
#define CHURN_FNV_PRIME 0x100000001b3ULL

/* One live block and the size it was asked with: the allocator's release
 * gets the size back. */
struct churn_block {
  unsigned char* data;
  size_t size;
};

/* Called through a pointer, so that the compiler sees neither a malloc nor a
 * free it could pair up and delete: the workload's whole point is the calls. */
static void* churn_malloc(void* context, size_t size) {
  (void)context;
  return malloc(size);
}

static void churn_free(void* context, void* block, size_t size) {
  (void)context;
  (void)size;
  free(block);
}

static const struct churn_allocator churn_libc = {churn_malloc, churn_free,
                                                  NULL};

const struct churn_allocator* churn_libc_allocator(void) { return &churn_libc; }

static uint64_t churn_next(uint64_t* state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

uint64_t churn_block_size(uint64_t draw, uint64_t scale) {
  return ((draw % CHURN_SIZE_CLASSES) + 1) * scale;
}

uint32_t churn_classes_at_or_above(uint64_t scale, uint64_t threshold) {
  uint32_t count = 0;
  for (uint64_t k = 0; k < CHURN_SIZE_CLASSES; ++k) {
    if (churn_block_size(k, scale) >= threshold) ++count;
  }
  return count;
}

const char* churn_check_params(const struct churn_params* params) {
  if (params == NULL) return "no parameters";
  if (params->iterations < 1) return "iterations must be at least 1";
  if (params->scale < 1 || params->scale > CHURN_MAX_SCALE) {
    return "scale must be between 1 and 65536 bytes";
  }
  if (params->allocator != NULL && (params->allocator->allocate == NULL ||
                                    params->allocator->release == NULL)) {
    return "the allocator needs both allocate and release";
  }
  return NULL;
}

uint64_t churn_run(const struct churn_params* params) {
  if (churn_check_params(params) != NULL) return CHURN_FAILED;
  const struct churn_allocator* allocator =
      params->allocator != NULL ? params->allocator : &churn_libc;
  /* The table is the workload's own bookkeeping: one allocation of 64 KiB,
   * below both libcs' mmap thresholds, made before the churn starts. */
  struct churn_block* live = malloc(CHURN_MAX_LIVE * sizeof(*live));
  if (live == NULL) return CHURN_FAILED;

  uint64_t state = params->seed == CHURN_GOLDEN_RATIO
                       ? CHURN_GOLDEN_RATIO
                       : params->seed ^ CHURN_GOLDEN_RATIO;
  uint64_t checksum = CHURN_FNV_OFFSET;
  size_t count = 0;
  int failed = 0;
  for (uint64_t i = 0; i < params->iterations; ++i) {
    const uint64_t draw = churn_next(&state);
    const size_t size = (size_t)churn_block_size(draw, params->scale);
    unsigned char* block = allocator->allocate(allocator->context, size);
    if (block == NULL) {
      failed = 1;
      break;
    }
    block[size - 1] = (unsigned char)draw;
    checksum = (checksum ^ size) * CHURN_FNV_PRIME;
    if (count >= CHURN_MAX_LIVE) {
      /* The high half picks the victim: the low bits already chose the
       * size, and the two choices should not be tied together. */
      const size_t victim = (size_t)((draw >> 32) % count);
      allocator->release(allocator->context, live[victim].data,
                         live[victim].size);
      live[victim] = live[--count];
    }
    live[count].data = block;
    live[count].size = size;
    ++count;
    if (params->progress != NULL && (i + 1) % CHURN_PROGRESS_INTERVAL == 0) {
      params->progress(params->progress_context, i + 1, params->iterations);
    }
  }
  while (count > 0) {
    --count;
    allocator->release(allocator->context, live[count].data, live[count].size);
  }
  free(live);
  if (failed) return CHURN_FAILED;
  return checksum == CHURN_FAILED ? 1 : checksum;
}
