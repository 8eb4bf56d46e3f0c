// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// touch_memory MIB [EXIT_CODE]: writes every byte of MIB mebibytes of a
// private anonymous mapping, prints "touched MIB MiB", and exits with
// EXIT_CODE (default 0), after writing "exiting" to stderr when it is not 0.
// A child with a known resident peak for child_run_test.

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: touch_memory MIB [EXIT_CODE]\n");
    return 2;
  }
  const size_t bytes = std::strtoul(argv[1], nullptr, 10) << 20;
  const int exit_code = argc > 2 ? std::atoi(argv[2]) : 0;
  if (bytes > 0) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::perror("mmap");
      return 2;
    }
    std::memset(p, 1, bytes);
  }
  std::printf("touched %s MiB\n", argv[1]);
  if (exit_code != 0) std::fprintf(stderr, "exiting with %d\n", exit_code);
  return exit_code;
}
