/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * The correct parts of the known-bad recyclers (known_bad_common.h). */

#include "tests/musl_churn/known_bad_common.h"

#include <stdlib.h>

void kept_push(struct recycler* r, long c, void* block, size_t bytes) {
  *(void**)block = r->heads[c];
  r->heads[c] = block;
  r->sizes[c] = bytes;
  r->held_bytes += bytes;
}

void* kept_pop(struct recycler* r, long c) {
  void* block = r->heads[c];
  if (block == NULL) return NULL;
  r->heads[c] = *(void**)block;
  r->held_bytes -= r->sizes[c];
  return block;
}

void* backend_allocate(struct recycler* r, size_t size) {
  return r->config.backend.allocate(r->config.backend.context, size);
}

void backend_release(struct recycler* r, void* block, size_t size) {
  r->config.backend.release(r->config.backend.context, block, size);
}

struct recycler* recycler_create(const struct recycler_config* config) {
  if (config == NULL || config->backend.allocate == NULL ||
      config->backend.release == NULL) {
    return NULL;
  }
  struct recycler* r = calloc(1, sizeof(*r));
  if (r == NULL) return NULL;
  r->config = *config;
  return r;
}

size_t recycler_held_bytes(const struct recycler* r) { return r->held_bytes; }

void recycler_destroy(struct recycler* r) {
  if (r == NULL) return;
  for (long c = 0; c < KEPT_CLASSES; ++c) {
    void* block;
    while ((block = kept_pop(r, c)) != NULL) {
      backend_release(r, block, r->sizes[c]);
    }
  }
  free(r);
}
