/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * Lab musl_churn, the starter: a recycler that keeps nothing. Every call
 * goes straight to the backend, so the workload runs exactly as without a
 * recycler. Make it keep large blocks (task.h). */

#include "labs/musl_churn/task.h"

#include <stdlib.h>

struct recycler {
  struct recycler_config config;
};

struct recycler* recycler_create(const struct recycler_config* config) {
  if (config == NULL || config->backend.allocate == NULL ||
      config->backend.release == NULL) {
    return NULL;
  }
  struct recycler* recycler = malloc(sizeof(*recycler));
  if (recycler == NULL) return NULL;
  recycler->config = *config;
  return recycler;
}

void* recycler_allocate(struct recycler* recycler, size_t size) {
  /* TODO(you): hand out a kept block that fits before asking the backend. */
  const struct recycler_backend* backend = &recycler->config.backend;
  return backend->allocate(backend->context, size);
}

void recycler_release(struct recycler* recycler, void* block, size_t size) {
  /* TODO(you): keep a large block for reuse, within the bound (task.h). */
  const struct recycler_backend* backend = &recycler->config.backend;
  backend->release(backend->context, block, size);
}

size_t recycler_held_bytes(const struct recycler* recycler) {
  /* TODO(you): the bytes kept, counted as task.h says. */
  (void)recycler;
  return 0;
}

void recycler_destroy(struct recycler* recycler) {
  /* TODO(you): give back everything kept first. */
  free(recycler);
}
