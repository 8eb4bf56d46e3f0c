// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The recorder of traces.h's recorded traces: a library for LD_PRELOAD that
// logs every malloc, calloc, realloc, reallocarray, free, posix_memalign,
// aligned_alloc, memalign, valloc and pvalloc of the program it is loaded
// into, then serves each from glibc's own malloc (its __libc_* entry
// points, which call no other malloc: no recursion, no dlsym). The log is
// one line per call, with the block's address as glibc returned it:
//
//   m <address> <size>           malloc, calloc, valloc (any allocation)
//   a <address> <size> <align>   posix_memalign, aligned_alloc, memalign,
//                                pvalloc
//   r <old> <new> <size>         realloc and reallocarray (<new> 0: failed,
//                                or freed <old> for size 0)
//   f <address>                  free
//
// written with write(2) to the file named by ALLOCLAB_TRACE_LOG, opened at
// the first call, in the process that opens it only (a forked child logs
// nothing). record_trace.py turns the log into a trace file: addresses
// become block numbers, so nothing of the recording machine's addresses
// remains. Single-threaded programs only: the log is one stream, and a
// mutex keeps its lines whole, not its order meaningful across threads.
//
// Example (record_trace.py does this):
//
//   ALLOCLAB_TRACE_LOG=log LD_PRELOAD=./libtrace_recorder.so python3 -c ...

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* block, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* block);
}

namespace {

pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
int log_fd = -2;  // -2: not opened yet; -1: not logging
pid_t log_pid = 0;
char buffer[1 << 16];
size_t used = 0;

void Flush() {
  size_t done = 0;
  while (done < used) {
    const ssize_t n = write(log_fd, buffer + done, used - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  used = 0;
}

void PutChar(char c) { buffer[used++] = c; }

void PutNumber(uintptr_t n, int base) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[n % static_cast<uintptr_t>(base)];
    n /= static_cast<uintptr_t>(base);
  } while (n != 0);
  while (count > 0) PutChar(digits[--count]);
}

// Logs one line: `kind`, then `count` numbers (the addresses in hex, the
// sizes and alignments in decimal: `hex` says which).
void Log(char kind, int count, const uintptr_t* numbers, const bool* hex) {
  pthread_mutex_lock(&log_lock);
  if (log_fd == -2) {
    const char* path = getenv("ALLOCLAB_TRACE_LOG");
    log_fd = path == nullptr
                 ? -1
                 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    log_pid = getpid();
  }
  if (log_fd >= 0 && getpid() == log_pid) {
    if (used + 80 > sizeof(buffer)) Flush();
    PutChar(kind);
    for (int i = 0; i < count; ++i) {
      PutChar(' ');
      PutNumber(numbers[i], hex[i] ? 16 : 10);
    }
    PutChar('\n');
  }
  pthread_mutex_unlock(&log_lock);
}

void LogAllocate(void* block, size_t size) {
  if (block == nullptr) return;
  const uintptr_t numbers[] = {reinterpret_cast<uintptr_t>(block), size};
  const bool hex[] = {true, false};
  Log('m', 2, numbers, hex);
}

void LogAligned(void* block, size_t size, size_t alignment) {
  if (block == nullptr) return;
  const uintptr_t numbers[] = {reinterpret_cast<uintptr_t>(block), size,
                               alignment};
  const bool hex[] = {true, false, false};
  Log('a', 3, numbers, hex);
}

// Writes what is buffered when the program exits (exit(3) runs it; a
// program killed by a signal loses the end of its log).
__attribute__((destructor)) void FlushAtExit() {
  pthread_mutex_lock(&log_lock);
  if (log_fd >= 0 && getpid() == log_pid) Flush();
  pthread_mutex_unlock(&log_lock);
}

}  // namespace

extern "C" {

void* malloc(size_t size) {
  void* block = __libc_malloc(size);
  LogAllocate(block, size);
  return block;
}

void* calloc(size_t count, size_t size) {
  void* block = __libc_calloc(count, size);
  LogAllocate(block, count * size);  // non-null: the product did not overflow
  return block;
}

void* realloc(void* old, size_t size) {
  void* block = __libc_realloc(old, size);
  if (old == nullptr) {
    LogAllocate(block, size);
  } else if (block != nullptr || size == 0) {
    const uintptr_t numbers[] = {reinterpret_cast<uintptr_t>(old),
                                 reinterpret_cast<uintptr_t>(block), size};
    const bool hex[] = {true, true, false};
    Log('r', 3, numbers, hex);
  }
  return block;
}

void* reallocarray(void* old, size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) return nullptr;
  return realloc(old, bytes);
}

void free(void* block) {
  if (block == nullptr) return;
  const uintptr_t numbers[] = {reinterpret_cast<uintptr_t>(block)};
  const bool hex[] = {true};
  Log('f', 1, numbers, hex);
  __libc_free(block);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  void* block = __libc_memalign(alignment, size);
  if (block == nullptr) return ENOMEM;
  LogAligned(block, size, alignment);
  *out = block;
  return 0;
}

void* aligned_alloc(size_t alignment, size_t size) {
  void* block = __libc_memalign(alignment, size);
  LogAligned(block, size, alignment);
  return block;
}

void* memalign(size_t alignment, size_t size) {
  void* block = __libc_memalign(alignment, size);
  LogAligned(block, size, alignment);
  return block;
}

void* valloc(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* block = __libc_memalign(page, size);
  LogAligned(block, size, page);
  return block;
}

void* pvalloc(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t rounded = size == 0 ? page : (size + page - 1) & ~(page - 1);
  void* block = __libc_memalign(page, rounded);
  LogAligned(block, rounded, page);
  return block;
}

}  // extern "C"
