/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * The correct parts of the known-bad recyclers (known_bad_common.h). */

#include "tests/musl_churn/known_bad_common.h"

#include <stdlib.h>
#include <string.h>

/* A kept block: its first bytes, while it is kept. */
struct kept_header {
  void* next;
  size_t bytes;
};

void kept_push(struct recycler* r, long c, void* block, size_t bytes) {
  const struct kept_header header = {r->heads[c], bytes};
  memcpy(block, &header, sizeof(header));
  r->heads[c] = block;
  r->held_bytes += bytes;
}

void* kept_pop(struct recycler* r, long c) {
  void* block = r->heads[c];
  if (block == NULL) return NULL;
  struct kept_header header;
  memcpy(&header, block, sizeof(header));
  r->heads[c] = header.next;
  r->held_bytes -= header.bytes;
  return block;
}

/* The backend size of a kept block. */
static size_t kept_bytes(const void* block) {
  struct kept_header header;
  memcpy(&header, block, sizeof(header));
  return header.bytes;
}

void* backend_allocate(struct recycler* r, size_t size) {
  return r->config.backend.allocate(r->config.backend.context, size);
}

void backend_release(struct recycler* r, void* block, size_t size) {
  r->config.backend.release(r->config.backend.context, block, size);
}

long kept_size_class(size_t size) {
  if (size < KEPT_MIN_BYTES) return -1;
  /* Rounded up without `size + KEPT_CLASS_BYTES - 1`, which wraps around
   * at the top of size_t (bad_class_wraps.c's mistake). */
  const size_t c = size / KEPT_CLASS_BYTES + (size % KEPT_CLASS_BYTES != 0);
  return c < KEPT_CLASSES ? (long)c : -1;
}

long kept_class(const struct recycler* r, size_t size) {
  return size < r->config.min_size ? -1 : kept_size_class(size);
}

void* kept_allocate(struct recycler* r, long c, size_t size) {
  if (c < 0) return backend_allocate(r, size);
  void* block = kept_pop(r, c);
  return block != NULL ? block
                       : backend_allocate(r, (size_t)c * KEPT_CLASS_BYTES);
}

void kept_release(struct recycler* r, long c, void* block, size_t size) {
  const size_t bytes = (size_t)c * KEPT_CLASS_BYTES;
  if (c < 0 || r->held_bytes + bytes > r->config.bound_bytes) {
    backend_release(r, block, c < 0 ? size : bytes);
    return;
  }
  kept_push(r, c, block, bytes);
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
    while (r->heads[c] != NULL) {
      const size_t bytes = kept_bytes(r->heads[c]);
      backend_release(r, kept_pop(r, c), bytes);
    }
  }
  free(r);
}
