// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// A program whose memory system calls are known in advance, for the tests of
// common/instruments/syscalls.h and for comparing its counts with strace's.
//
//   syscall_fixture --count=N
//
// makes, N times over: 5 mmap (3 on the main thread, 1 on a second thread,
// 1 in a forked child), 3 munmap, 2 madvise, 1 mremap and 4 brk(0). The
// thread and the child exist whatever N is, so a run with --count=0 is the
// baseline: everything the dynamic loader, glibc, the thread and the fork
// cost, and nothing else. It prints nothing (stdio would allocate).

#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

long g_count = 0;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "syscall_fixture: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

void* MapPages(size_t pages) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* p = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) Die("mmap");
  return p;
}

// One mapping per unit, left mapped: the process ends soon.
void* ThreadBody(void*) {
  for (long i = 0; i < g_count; ++i) MapPages(1);
  return nullptr;
}

void MainThreadUnit() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* a = MapPages(1);
  char* b = static_cast<char*>(MapPages(2));
  void* c = MapPages(1);
  b[0] = 1;
  b[page] = 1;
  if (madvise(b, page, MADV_DONTNEED) != 0) Die("madvise");
  if (madvise(b + page, page, MADV_DONTNEED) != 0) Die("madvise");
  void* c2 = mremap(c, page, 2 * page, MREMAP_MAYMOVE);
  if (c2 == MAP_FAILED) Die("mremap");
  if (munmap(a, page) != 0) Die("munmap");
  if (munmap(b, 2 * page) != 0) Die("munmap");
  if (munmap(c2, 2 * page) != 0) Die("munmap");
  // brk(0) asks for the current break and changes nothing; sbrk(0) would
  // answer from glibc's cache without a system call.
  for (int i = 0; i < 4; ++i) syscall(SYS_brk, 0);
}

}  // namespace

// LeakSanitizer cannot work under ptrace and fails the exit of a traced
// program: a --config=asan build of this fixture turns it off.
extern "C" int __lsan_is_turned_off() { return 1; }

int main(int argc, char** argv) {
  char* end = nullptr;
  if (argc != 2 || std::strncmp(argv[1], "--count=", 8) != 0 ||
      (g_count = std::strtol(argv[1] + 8, &end, 10), *end != '\0') ||
      end == argv[1] + 8 || g_count < 0 || g_count > 100000) {
    std::fprintf(stderr,
                 "usage: syscall_fixture --count=N (0 <= N <= 100000)\n");
    return 2;
  }

  pthread_t thread;
  if (pthread_create(&thread, nullptr, ThreadBody, nullptr) != 0) {
    Die("pthread_create");
  }
  if (pthread_join(thread, nullptr) != 0) Die("pthread_join");

  pid_t child = fork();
  if (child < 0) Die("fork");
  if (child == 0) {
    for (long i = 0; i < g_count; ++i) MapPages(1);
    _exit(0);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) Die("waitpid");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "syscall_fixture: the child failed\n");
    return 1;
  }

  for (long i = 0; i < g_count; ++i) MainThreadUnit();
  return 0;
}
