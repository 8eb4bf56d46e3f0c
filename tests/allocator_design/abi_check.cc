// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The C ABI check of lab allocator_design: a plain program that uses
// malloc and its family as any C program does, run with an
// implementation's libyours.so in LD_PRELOAD (abi_test.sh), so that every
// call below goes through the lab's shim (labs/allocator_design/shim.cc)
// into that implementation's task.cc. The suite (task_test.cc) checks
// task.h directly; this checks what a program sees: errno on failure,
// calloc's overflow check and zeroing, realloc keeping the bytes and
// growing a block by appends in few moves, posix_memalign's EINVAL,
// malloc_usable_size, allocation before main() and in a forked child of a
// threaded program.
//
// First of all it asks the process who serves malloc (allocator_probe.h):
// a misspelt LD_PRELOAD runs everything on glibc and proves nothing, so the
// library named by --expect_library must be the one.
//
// Usage: LD_PRELOAD=LIB abi_check --expect_library=LIB
// Prints "ok: <check>" or "FAIL: <check>: <why>" per check; exits 1 when
// any failed, 2 for bad usage.
//
// Example:
//
//   LD_PRELOAD=$PWD/libyours.so ./abi_check --expect_library=$PWD/libyours.so
//   // ok: malloc is served by .../libyours.so
//   // ok: calloc zeroes recycled memory ...

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "common/machine/allocator_probe.h"

namespace {

int failures = 0;

void Report(bool ok, const std::string& check, const std::string& why = "") {
  if (ok) {
    printf("ok: %s\n", check.c_str());
  } else {
    ++failures;
    printf("FAIL: %s: %s\n", check.c_str(), why.c_str());
  }
}

// Keeps the compiler from proving a call away (malloc(SIZE_MAX) is known to
// fail; a freed pointer is known to be dead).
void* volatile g_escape;
size_t Opaque(size_t n) {
  volatile size_t v = n;
  return v;
}

uint8_t PatternByte(size_t i) { return static_cast<uint8_t>(i * 13 + 7); }

// Before main(): a global constructor that allocates, as C++ programs'
// globals (std::string, iostreams) do.
struct BeforeMain {
  char* block = nullptr;
  BeforeMain() {
    block = static_cast<char*>(malloc(100));
    if (block != nullptr) strcpy(block, "allocated before main");
  }
};
BeforeMain before_main;

bool IsAligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

bool Zeroed(const void* p, size_t n) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

void CheckProvider(const std::string& expected) {
  absl::StatusOr<alloclab::MallocProvider> p = alloclab::ProbeMalloc();
  if (!p.ok()) {
    Report(false, "malloc's provider", std::string(p.status().message()));
    return;
  }
  char want[PATH_MAX], got[PATH_MAX];
  const bool resolved = realpath(expected.c_str(), want) != nullptr &&
                        realpath(p->path.c_str(), got) != nullptr;
  Report(resolved && strcmp(want, got) == 0, "malloc is served by " + expected,
         "the probe says " + p->path + " (" + p->allocator +
             ") serves it: nothing below would check the library asked "
             "for");
}

void CheckBeforeMain() {
  Report(before_main.block != nullptr &&
             strcmp(before_main.block, "allocated before main") == 0,
         "a global constructor allocates before main()",
         "malloc(100) before main() failed or lost its bytes");
  free(before_main.block);
}

void CheckMalloc() {
  errno = 0;
  void* p = malloc(Opaque(SIZE_MAX));
  g_escape = p;
  Report(p == nullptr && errno == ENOMEM, "malloc(SIZE_MAX) is NULL, ENOMEM",
         "got " + std::to_string(reinterpret_cast<uintptr_t>(p)) + ", errno " +
             std::to_string(errno));
  errno = 0;
  p = malloc(Opaque(SIZE_MAX - 8));
  g_escape = p;
  Report(p == nullptr && errno == ENOMEM,
         "malloc(SIZE_MAX - 8) is NULL, ENOMEM",
         "errno " + std::to_string(errno));
  void* a = malloc(0);
  void* b = malloc(0);
  Report(a != nullptr && b != nullptr && a != b,
         "malloc(0) gives unique blocks", "not two distinct blocks");
  free(a);
  free(b);
  free(nullptr);
  Report(true, "free(NULL) is ignored");
  bool usable_ok = malloc_usable_size(nullptr) == 0;
  for (size_t n : {1, 16, 100, 1000, 5000, 100000, 3 << 20}) {
    void* q = malloc(n);
    usable_ok = usable_ok && q != nullptr && malloc_usable_size(q) >= n;
    if (q != nullptr) memset(q, 1, malloc_usable_size(q));
    free(q);
  }
  Report(usable_ok, "malloc_usable_size() >= the size asked, 0 for NULL",
         "a block reported fewer bytes than asked");
}

void CheckCalloc() {
  bool zeroed = true;
  for (size_t n : {8, 24, 100, 1000, 4096, 50000, 300000, 2 << 20, 9 << 20}) {
    for (int round = 0; round < 4; ++round) {
      void* dirty[8];
      for (void*& d : dirty) {
        d = malloc(n);
        if (d != nullptr) memset(d, 0xEE, n);
      }
      for (void* d : dirty) free(d);
      void* z[8];
      for (void*& c : z) {
        c = calloc(1, n);
        zeroed = zeroed && c != nullptr && Zeroed(c, n);
        if (c != nullptr) memset(c, 0xEE, n);
      }
      for (void* c : z) free(c);
    }
  }
  Report(zeroed, "calloc zeroes recycled memory",
         "a calloc() block held bytes of a block freed before it");
  errno = 0;
  void* p = calloc(Opaque(SIZE_MAX / 2), 3);
  g_escape = p;
  Report(p == nullptr && errno == ENOMEM,
         "calloc(SIZE_MAX / 2, 3) (overflow) is NULL, ENOMEM",
         "got " + std::to_string(reinterpret_cast<uintptr_t>(p)) + ", errno " +
             std::to_string(errno));
  errno = 0;
  p = calloc(Opaque(size_t{1} << 33), Opaque(size_t{1} << 31));
  g_escape = p;
  Report(p == nullptr && errno == ENOMEM,
         "calloc(2^33, 2^31) (overflow to 0) is NULL, ENOMEM",
         "errno " + std::to_string(errno));
  void* zero = calloc(0, 10);
  Report(zero != nullptr, "calloc(0, 10) gives a block", "NULL");
  free(zero);
}

void CheckRealloc() {
  // Grow through small classes into large blocks, then shrink back: the
  // bytes that fit must be kept at every step.
  const size_t steps[] = {1,      7,    16,    17,     100,     1000,
                          4096,   4097, 70000, 300000, 2 << 20, 9 << 20,
                          300000, 5000, 100,   16,     3};
  char* p = static_cast<char*>(realloc(nullptr, 1));
  bool kept = p != nullptr;
  size_t size = 1;
  if (p != nullptr) p[0] = static_cast<char>(PatternByte(0));
  std::string broke;
  for (size_t next : steps) {
    if (p == nullptr) break;
    char* q = static_cast<char*>(realloc(p, next));
    if (q == nullptr) {
      kept = false;
      broke = "realloc to " + std::to_string(next) + " failed";
      break;
    }
    const size_t keep = size < next ? size : next;
    for (size_t i = 0; i < keep; ++i) {
      if (static_cast<uint8_t>(q[i]) != PatternByte(i)) {
        kept = false;
        broke = "realloc " + std::to_string(size) + " -> " +
                std::to_string(next) + " lost byte " + std::to_string(i);
        break;
      }
    }
    for (size_t i = 0; i < next; ++i) q[i] = static_cast<char>(PatternByte(i));
    p = q;
    size = next;
    if (!kept) break;
  }
  Report(kept, "realloc keeps the bytes (grow, shrink, across classes)", broke);
  errno = 0;
  // A realloc() that fails leaves the block as it was (C17 7.22.3.5), which
  // GCC's use-after-free warning does not know.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free"
  char* q = static_cast<char*>(realloc(p, Opaque(SIZE_MAX - 4096)));
  const bool kept_on_failure =
      p != nullptr && static_cast<uint8_t>(p[0]) == PatternByte(0);
  const int realloc_errno = errno;
  free(q != nullptr ? q : p);
#pragma GCC diagnostic pop
  Report(q == nullptr && realloc_errno == ENOMEM && kept_on_failure,
         "realloc to an impossible size is NULL, ENOMEM, block kept",
         "errno " + std::to_string(realloc_errno));
}

// A block grown by appends, as a program grows a string or a buffer read
// from a pipe (CPython reallocs a str at each +=): 4 KiB at a time from
// 4 KiB to 8 MiB, 2,047 reallocs. Each move copies the whole block, so a
// move at every append would copy 8 GiB in all. The shim gives a block it
// moves at least a quarter more than its old usable size, so each move
// multiplies the usable size by at least 5/4. The first block holds at
// least 4 KiB, and the last one moved held less than 8 MiB, so there are at
// most 1 + floor(log(2048) / log(5/4)) = 35 moves, whatever the allocator
// under the shim. Counted exactly: a move returns a new address (both
// blocks are live during the copy). The growth stops at the first move
// past the bound.
void CheckReallocGrowth() {
  constexpr size_t kStep = 4096;
  constexpr size_t kFinal = 8 << 20;
  const int max_moves =
      1 + static_cast<int>(std::floor(
              std::log(static_cast<double>(kFinal / kStep)) / std::log(1.25)));
  char* p = static_cast<char*>(malloc(kStep));
  int moves = 0;
  bool kept = p != nullptr;
  std::string broke = p == nullptr ? "malloc(4096) failed" : "";
  size_t size = kStep;
  if (p != nullptr) memset(p, 0, kStep);
  while (kept && size < kFinal && moves <= max_moves) {
    char* q = static_cast<char*>(realloc(p, size + kStep));
    if (q == nullptr) {
      kept = false;
      broke = "realloc to " + std::to_string(size + kStep) + " failed";
      break;
    }
    if (q != p) ++moves;
    p = q;
    // Each append's bytes are its number; every earlier one must survive.
    memset(p + size, static_cast<int>(size / kStep % 251), kStep);
    size += kStep;
  }
  for (size_t at = 0; kept && at < size; at += kStep) {
    const char want = static_cast<char>(at / kStep % 251);
    if (p[at] != want || p[at + kStep - 1] != want) {
      kept = false;
      broke = "the append at byte " + std::to_string(at) + " was lost";
    }
  }
  free(p);
  Report(kept, "realloc keeps the bytes of a block grown by appends", broke);
  Report(kept && moves <= max_moves,
         "realloc grows a block by 4 KiB appends to 8 MiB in at most " +
             std::to_string(max_moves) + " moves (" + std::to_string(moves) +
             ")",
         moves > max_moves ? "it moved the block " + std::to_string(moves) +
                                 " times by " + std::to_string(size) +
                                 " bytes: realloc gives a moved block no "
                                 "room to grow"
                           : "the growth did not finish");
}

void CheckAligned() {
  bool ok = true;
  std::string broke;
  for (size_t alignment = sizeof(void*); alignment <= (1 << 20);
       alignment *= 2) {
    for (size_t n : {1, 100, 5000, 200000}) {
      void* p = nullptr;
      const int rc = posix_memalign(&p, alignment, n);
      if (rc != 0 || p == nullptr || !IsAligned(p, alignment)) {
        ok = false;
        broke = "posix_memalign(" + std::to_string(alignment) + ", " +
                std::to_string(n) + ") returned " + std::to_string(rc);
      }
      if (p != nullptr) memset(p, 2, n);
      free(p);
    }
  }
  Report(ok, "posix_memalign aligns every power of two up to 1 MiB", broke);
  void* p = nullptr;
  const int odd = posix_memalign(&p, 24, 100);
  const int small = posix_memalign(&p, 4, 100);
  const int zero = posix_memalign(&p, 0, 100);
  Report(odd == EINVAL && small == EINVAL && zero == EINVAL,
         "posix_memalign refuses a bad alignment with EINVAL",
         "24: " + std::to_string(odd) + ", 4: " + std::to_string(small) +
             ", 0: " + std::to_string(zero));
  p = nullptr;
  const int huge = posix_memalign(&p, 64, Opaque(SIZE_MAX - 32));
  Report(huge == ENOMEM && p == nullptr,
         "posix_memalign of an impossible size is ENOMEM",
         "returned " + std::to_string(huge));

  void* a = aligned_alloc(64, 128);
  void* m = memalign(4096, 100);
  void* v = valloc(100);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  Report(a != nullptr && IsAligned(a, 64), "aligned_alloc(64, 128) aligns",
         "not 64-byte aligned");
  Report(m != nullptr && IsAligned(m, 4096), "memalign(4096, 100) aligns",
         "not 4096-byte aligned");
  Report(v != nullptr && IsAligned(v, page), "valloc(100) is page-aligned",
         "not page-aligned");
  free(a);
  free(m);
  free(v);
  errno = 0;
  void* big = aligned_alloc(4096, Opaque(SIZE_MAX - 4096));
  g_escape = big;
  Report(big == nullptr && errno == ENOMEM,
         "aligned_alloc of an impossible size is NULL, ENOMEM",
         "errno " + std::to_string(errno));
}

// Four threads allocate and free while this one forks, ten times: each
// child (one thread, the forking one) allocates, checks and frees.
void CheckForkInThreadedProgram() {
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int t = 0; t < 4; ++t) {
    busy.emplace_back([&stop, t] {
      size_t n = 16 + t;
      while (!stop.load(std::memory_order_relaxed)) {
        void* blocks[32];
        for (void*& b : blocks) {
          b = malloc(n);
          n = n * 7 % 70000 + 1;
        }
        for (void* b : blocks) free(b);
      }
    });
  }
  int bad = 0;
  for (int i = 0; i < 10; ++i) {
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      int code = 0;
      for (int k = 0; k < 500; ++k) {
        const size_t n = static_cast<size_t>(k) * 97 % 100000 + 1;
        char* p = static_cast<char*>(malloc(n));
        if (p == nullptr) _exit(3);
        memset(p, k, n);
        if (p[n - 1] != static_cast<char>(k)) code = 4;
        free(p);
      }
      _exit(code);
    }
    int status = 0;
    bool done = false;
    // A bound on a child blocked on a lock it inherited held: far more than
    // its work takes; no verdict depends on how long it took.
    for (int tick = 0; tick < 3000 && !done; ++tick) {
      done = waitpid(pid, &status, WNOHANG) == pid;
      if (!done) usleep(10000);
    }
    if (!done) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
    if (!done || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++bad;
  }
  stop.store(true);
  for (std::thread& t : busy) t.join();
  Report(bad == 0,
         "a forked child of a threaded program allocates (pthread_atfork)",
         std::to_string(bad) + " of 10 children hung, crashed or failed");
}

void CheckThreads() {
  std::atomic<int> bad{0};
  for (int wave = 0; wave < 50; ++wave) {
    std::vector<std::thread> threads;
    std::vector<char*> handed(8, nullptr);
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&bad, &handed, t] {
        std::vector<char*> mine;  // new/delete go through the shim as well
        for (int k = 0; k < 100; ++k) {
          const size_t n = static_cast<size_t>(k * 131 + t) % 20000 + 1;
          char* p = static_cast<char*>(malloc(n));
          if (p == nullptr) {
            bad.fetch_add(1);
            continue;
          }
          memset(p, t, n);
          mine.push_back(p);
        }
        for (char* p : mine) {
          if (p[0] != static_cast<char>(t)) bad.fetch_add(1);
        }
        handed[t] = mine.back();  // freed by the main thread
        mine.pop_back();
        for (char* p : mine) free(p);
      });
    }
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < 8; ++t) {
      if (handed[t] == nullptr || handed[t][0] != static_cast<char>(t)) {
        bad.fetch_add(1);
      }
      free(handed[t]);
    }
  }
  Report(bad.load() == 0,
         "400 threads allocate and exit; their blocks are freed by another",
         std::to_string(bad.load()) + " blocks failed or changed");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string flag = "--expect_library=";
  if (argc != 2 || std::string(argv[1]).rfind(flag, 0) != 0) {
    fprintf(stderr, "usage: LD_PRELOAD=LIB %s --expect_library=LIB\n", argv[0]);
    return 2;
  }
  CheckProvider(std::string(argv[1]).substr(flag.size()));
  CheckBeforeMain();
  // Before any check frees a large block: an allocator may keep a freed
  // mapping and hand it whole to a smaller request (the reference serves
  // any request a cached mapping holds), and a 9 MiB one from
  // CheckRealloc() would let the block grow in place to 8 MiB, whatever
  // the shim's realloc does.
  CheckReallocGrowth();
  CheckMalloc();
  CheckCalloc();
  CheckRealloc();
  CheckAligned();
  CheckForkInThreadedProgram();
  CheckThreads();
  printf("%s: %d checks failed\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}
