/* Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
 *
 * The churn program of lab musl_churn: the workload of
 * common/workloads/churn.h as a command, built twice (against glibc and,
 * statically, against musl) so that the experiment can run the same work
 * under both in processes of their own.
 *
 *   churn --iterations=N --scale=BYTES --seed=N [--recycle_bound=BYTES]
 *         [--progress] [--quiet]
 *
 * It prints one line, e.g.
 *
 *   churn: libc=musl iterations=200000 scale=1024 seed=1 recycle_bound=0
 * checksum=0x...
 *
 * --recycle_bound puts your recycler (task.h) between the churn and malloc,
 * keeping blocks of CHURN_MUSL_MMAP_THRESHOLD bytes and more up to that many
 * bytes. --progress prints the share done to stderr every few seconds.
 * --quiet prints nothing on success (the experiment's traced runs, whose
 * output would land in the middle of its table).
 *
 * Plain C: flags are parsed here, by hand, since musl-gcc has no Abseil. An
 * unknown flag or a bad value exits 2 with a message. */

/* clock_gettime() is POSIX, outside the -std=c11 of the course's C flags. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/workloads/churn.h"
#include "labs/musl_churn/task.h"

/* Which libc this binary was built against: musl defines no macro of its
 * own, glibc defines __GLIBC__. */
#ifdef __GLIBC__
#define CHURN_LIBC "glibc"
#else
#define CHURN_LIBC "musl"
#endif

/* Seconds between two progress lines. */
#define CHURN_PROGRESS_SECONDS 3.0

/* The largest --iterations: far beyond the thread's 100 million, and small
 * enough that no count overflows. */
#define CHURN_MAX_ITERATIONS 1000000000000ULL

static const char kUsage[] =
    "usage: churn --iterations=N --scale=BYTES --seed=N "
    "[--recycle_bound=BYTES] [--progress] [--quiet]\n"
    "  --iterations     allocations to make, 1..10^12 (default 200000)\n"
    "  --scale          bytes per size step: sizes are 1..256 times it, "
    "1..65536 (default 1024)\n"
    "  --seed           seed of the workload's xorshift64 (default 1)\n"
    "  --recycle_bound  keep freed blocks of 131052 bytes and more in the "
    "recycler of task.h, up to this many bytes (default 0: no recycler)\n"
    "  --progress       print the share done to stderr every few seconds\n"
    "  --quiet          print nothing on success\n";

static double churn_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct churn_progress {
  double start_s;
  double last_s;
};

static void churn_print_progress(void* context, uint64_t done, uint64_t total) {
  struct churn_progress* progress = context;
  const double now = churn_now_s();
  if (now - progress->last_s < CHURN_PROGRESS_SECONDS) return;
  progress->last_s = now;
  fprintf(stderr,
          "churn (%s): %5.1f%% (%" PRIu64 " of %" PRIu64
          " iterations, %.0f s)\n",
          CHURN_LIBC, 100.0 * (double)done / (double)total, done, total,
          now - progress->start_s);
}

/* Parses a whole decimal number in [min, max]; 0 on success, else -1. */
static int churn_parse_u64(const char* text, uint64_t min, uint64_t max,
                           uint64_t* out) {
  if (text[0] < '0' || text[0] > '9') return -1; /* no sign, no space */
  errno = 0;
  char* end = NULL;
  const unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < min || value > max) return -1;
  *out = value;
  return 0;
}

static int churn_usage_error(const char* message, const char* arg) {
  fprintf(stderr, "churn: %s '%s'\n%s", message, arg, kUsage);
  return 2;
}

/* The churn's allocator when a recycler is in between. */
static void* churn_recycler_allocate(void* context, size_t size) {
  return recycler_allocate(context, size);
}

static void churn_recycler_release(void* context, void* block, size_t size) {
  recycler_release(context, block, size);
}

/* What the command line asked for. */
struct churn_args {
  uint64_t iterations;
  uint64_t scale;
  uint64_t seed;
  uint64_t recycle_bound;
  int progress;
  int quiet;
};

/* Reads one --name=value flag into `args`. Returns 0, or 2 after saying
 * what is wrong with it. */
static int churn_parse_value_flag(const char* arg, struct churn_args* args) {
  const char* eq = strchr(arg, '=');
  if (strncmp(arg, "--", 2) != 0 || eq == NULL) {
    return churn_usage_error("unknown argument (flags are --name=value)", arg);
  }
  const size_t name_len = (size_t)(eq - arg);
  uint64_t* target = NULL;
  uint64_t min = 0, max = 0;
  if (name_len == 12 && strncmp(arg, "--iterations", name_len) == 0) {
    target = &args->iterations, min = 1, max = CHURN_MAX_ITERATIONS;
  } else if (name_len == 7 && strncmp(arg, "--scale", name_len) == 0) {
    target = &args->scale, min = 1, max = CHURN_MAX_SCALE;
  } else if (name_len == 6 && strncmp(arg, "--seed", name_len) == 0) {
    target = &args->seed, min = 0, max = UINT64_MAX;
  } else if (name_len == 15 && strncmp(arg, "--recycle_bound", name_len) == 0) {
    target = &args->recycle_bound, min = 0, max = SIZE_MAX;
  } else {
    return churn_usage_error("unknown flag", arg);
  }
  if (churn_parse_u64(eq + 1, min, max, target) != 0) {
    fprintf(stderr,
            "churn: bad value in '%s': want a whole number from %" PRIu64
            " to %" PRIu64 "\n",
            arg, min, max);
    return 2;
  }
  return 0;
}

/* Reads the command line into `args`. Returns -1 to go on, or the exit
 * status to end with (0 after --help, 2 after a usage error). */
static int churn_parse_args(int argc, char** argv, struct churn_args* args) {
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(kUsage, stdout);
      return 0;
    }
    if (strcmp(arg, "--progress") == 0) {
      args->progress = 1;
    } else if (strcmp(arg, "--quiet") == 0) {
      args->quiet = 1;
    } else if (churn_parse_value_flag(arg, args) != 0) {
      return 2;
    }
  }
  return -1;
}

/* A recycler of blocks of musl's mmap threshold and up, at most `bound`
 * bytes kept, in front of malloc and free; `allocator` is set to call it.
 * NULL when recycler_create() refuses. */
static struct recycler* churn_make_recycler(uint64_t bound,
                                            struct churn_allocator* allocator) {
  struct recycler_config config;
  memset(&config, 0, sizeof(config));
  config.min_size = CHURN_MUSL_MMAP_THRESHOLD;
  config.bound_bytes = (size_t)bound;
  /* The recycler's backend: malloc and free, as the churn calls them. */
  config.backend.allocate = churn_libc_allocator()->allocate;
  config.backend.release = churn_libc_allocator()->release;
  struct recycler* recycler = recycler_create(&config);
  if (recycler == NULL) return NULL;
  allocator->allocate = churn_recycler_allocate;
  allocator->release = churn_recycler_release;
  allocator->context = recycler;
  return recycler;
}

int main(int argc, char** argv) {
  struct churn_args args = {200000, 1024, 1, 0, 0, 0};
  const int done = churn_parse_args(argc, argv, &args);
  if (done >= 0) return done;

  struct churn_params params;
  memset(&params, 0, sizeof(params));
  params.iterations = args.iterations;
  params.scale = args.scale;
  params.seed = args.seed;
  struct churn_progress progress_state = {churn_now_s(), churn_now_s()};
  if (args.progress) {
    params.progress = churn_print_progress;
    params.progress_context = &progress_state;
  }

  struct recycler* recycler = NULL;
  struct churn_allocator recycled;
  if (args.recycle_bound > 0) {
    recycler = churn_make_recycler(args.recycle_bound, &recycled);
    if (recycler == NULL) {
      fprintf(stderr, "churn: recycler_create() returned NULL\n");
      return 1;
    }
    params.allocator = &recycled;
  }

  const char* problem = churn_check_params(&params);
  if (problem != NULL) {
    fprintf(stderr, "churn: %s\n", problem);
    return 2;
  }
  const uint64_t checksum = churn_run(&params);
  if (recycler != NULL) recycler_destroy(recycler);
  if (checksum == CHURN_FAILED) {
    fprintf(stderr, "churn: an allocation failed (out of memory?)\n");
    return 1;
  }
  if (args.quiet) return 0;
  printf("churn: libc=%s iterations=%" PRIu64 " scale=%" PRIu64 " seed=%" PRIu64
         " recycle_bound=%" PRIu64 " checksum=0x%016" PRIx64 "\n",
         CHURN_LIBC, args.iterations, args.scale, args.seed, args.recycle_bound,
         checksum);
  return 0;
}
