// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The interposed pthread_mutex_lock() and pthread_mutex_unlock() of
// exit_checkpoints.h. Defined in the executable, they come before every
// shared library's (a test's libraries may be shared objects), and forward
// to the next definition in the lookup order: glibc's, or a sanitizer's
// interceptor, which then sees every lock as before. That one is looked up
// with dlsym(RTLD_NEXT), at the first lock, before main while one thread
// runs; dlsym() may itself lock, or free memory through a hook that locks
// (AddressSanitizer's, which the course's allocation counter uses), and a
// lock or unlock made while the lookup runs is no lock at all: nothing else
// runs yet.

#include "tests/counter_contention/exit_checkpoints.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace counter_contention {
namespace exit_checkpoints {
namespace {

// Trivially destructible: still readable while the thread's exit runs the
// destructors of the other thread_locals.
thread_local bool t_marked = false;

// Checkpoints the marked thread has reached, and those an observer served.
constinit std::atomic<uint64_t> g_posted{0};
constinit std::atomic<uint64_t> g_served{0};

using MutexFn = int (*)(pthread_mutex_t*);

constinit std::atomic<MutexFn> g_next_lock{nullptr};
constinit std::atomic<MutexFn> g_next_unlock{nullptr};
constinit std::atomic<bool> g_resolving{false};

int NoLock(pthread_mutex_t*) { return 0; }

// The next definitions, looked up once.
void Resolve() {
  g_resolving.store(true, std::memory_order_relaxed);
  auto lock = reinterpret_cast<MutexFn>(dlsym(RTLD_NEXT, "pthread_mutex_lock"));
  auto unlock =
      reinterpret_cast<MutexFn>(dlsym(RTLD_NEXT, "pthread_mutex_unlock"));
  if (lock == nullptr || unlock == nullptr) std::abort();
  g_next_unlock.store(unlock, std::memory_order_release);
  g_next_lock.store(lock, std::memory_order_release);
  g_resolving.store(false, std::memory_order_relaxed);
}

MutexFn Next(std::atomic<MutexFn>& next) {
  MutexFn fn = next.load(std::memory_order_acquire);
  if (fn != nullptr) return fn;
  if (g_resolving.load(std::memory_order_relaxed)) return &NoLock;
  Resolve();
  return next.load(std::memory_order_acquire);
}

// Looks them up before main, while one thread runs.
[[gnu::constructor]] void ResolveEarly() { Next(g_next_lock); }

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

// Posts a checkpoint and waits until it is served. The 10 s limit only
// breaks a deadlock (an observer blocked on a lock this thread holds, in a
// counter that nests its locks); it decides no verdict.
void Stop() {
  const uint64_t mine = g_posted.fetch_add(1, std::memory_order_seq_cst) + 1;
  const double give_up = Now() + 10.0;
  while (g_served.load(std::memory_order_acquire) < mine) {
    if (Now() > give_up) {
      g_served.store(mine, std::memory_order_release);
      return;
    }
    sched_yield();
  }
}

}  // namespace

void MarkExiting() { t_marked = true; }

std::optional<uint64_t> ServeCheckpoint(absl::FunctionRef<uint64_t()> read) {
  const uint64_t posted = g_posted.load(std::memory_order_acquire);
  if (posted <= g_served.load(std::memory_order_acquire)) return std::nullopt;
  const uint64_t value = read();
  g_served.store(posted, std::memory_order_release);
  return value;
}

}  // namespace exit_checkpoints
}  // namespace counter_contention

using counter_contention::exit_checkpoints::g_next_lock;
using counter_contention::exit_checkpoints::g_next_unlock;
using counter_contention::exit_checkpoints::Next;
using counter_contention::exit_checkpoints::Stop;
using counter_contention::exit_checkpoints::t_marked;

extern "C" int pthread_mutex_lock(pthread_mutex_t* mutex) {
  if (t_marked) Stop();
  return Next(g_next_lock)(mutex);
}

extern "C" int pthread_mutex_unlock(pthread_mutex_t* mutex) {
  const int result = Next(g_next_unlock)(mutex);
  if (t_marked) Stop();
  return result;
}
