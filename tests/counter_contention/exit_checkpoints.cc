// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The tracer of exit_checkpoints.h. Three parties share one page: the
// exiting thread (which says where it is and waits to be traced), the
// reader (the thread that called StepThroughExit()), and the tracer, a
// child process that does nothing but ptrace(2), waitpid(2), read /proc and
// touch the page, so that it needs none of the locks the fork may have
// copied in a held state. The tracer asks for a reading by raising
// `posted`; the reader answers by raising `answered` to it.

#include "tests/counter_contention/exit_checkpoints.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace counter_contention {
namespace exit_checkpoints {
namespace {

// CPU time, in clock ticks (1/100 s on Linux), that a reader may burn on
// one reading while the thread stands still before the tracer decides the
// reader waits for the thread (a spin lock, a retry loop) and steps on.
// CPU time, not the clock: a reader that does not run burns none.
constexpr uint64_t kSpinTicks = 5;

// The page the three parties share. Lock-free atomics work across
// processes that map the same memory.
struct Shared {
  std::atomic<pid_t> thread_tid;   // set by the exiting thread
  std::atomic<bool> go;            // set by the tracer once it holds it
  std::atomic<uint64_t> posted;    // readings asked for
  std::atomic<uint64_t> answered;  // readings done
  std::atomic<bool> done;          // the thread is gone
  std::atomic<uint64_t> steps;
  std::atomic<uint64_t> waited;
  std::atomic<int> error;  // errno of a ptrace(2) that failed
  bool step;               // false: let the thread go once held (CanTrace)
  char what[128];          // which call, when `error` is set
};
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<pid_t>::is_always_lock_free);

// The reader's state and CPU time, from /proc/<pid>/task/<tid>/stat;
// false when it cannot be read.
bool ReaderState(pid_t pid, pid_t tid, char& state, uint64_t& ticks) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  // "pid (comm) state ..." and comm may hold spaces and parentheses: the
  // fields start after the last ')'. utime and stime are fields 14 and 15.
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr || p[1] == '\0') return false;
  state = p[2];
  unsigned long long utime = 0, stime = 0;
  if (std::sscanf(p + 2,
                  "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                  &utime, &stime) != 2) {
    return false;
  }
  ticks = utime + stime;
  return true;
}

// Asks for a reading, unless the last one is still running, and waits
// until it is done or cannot finish while the thread stands still: the
// reader sleeps (on a lock the thread holds), or has burnt kSpinTicks on it.
void ReadHere(Shared& s, pid_t pid, pid_t reader) {
  uint64_t want = s.answered.load(std::memory_order_acquire);
  if (want == s.posted.load(std::memory_order_relaxed)) {
    want = s.posted.fetch_add(1, std::memory_order_acq_rel) + 1;
  } else {
    want = s.posted.load(std::memory_order_relaxed);
  }
  char state = 'R';
  uint64_t start = 0;
  bool have_start = ReaderState(pid, reader, state, start);
  for (uint64_t spins = 1;; ++spins) {
    if (s.answered.load(std::memory_order_acquire) >= want) return;
    if (spins % 64 != 0) {
      sched_yield();
      continue;
    }
    uint64_t ticks = 0;
    if (!ReaderState(pid, reader, state, ticks)) continue;
    if (!have_start) {
      start = ticks;
      have_start = true;
    }
    if (state == 'S' || ticks - start >= kSpinTicks) {
      // Asked again, it might finish now: it has not yet.
      if (s.answered.load(std::memory_order_acquire) >= want) return;
      s.waited.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
}

void Fail(Shared& s, const char* what) {
  std::snprintf(s.what, sizeof(s.what), "%s", what);
  s.error.store(errno == 0 ? EINVAL : errno, std::memory_order_release);
}

// The tracer: holds the thread as its function returns, then steps it to
// its end, asking for a reading after each step. Never returns.
[[noreturn]] void Trace(Shared& s, pid_t pid, pid_t reader) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != pid) _exit(0);  // the test is gone already
  pid_t tid = 0;
  while ((tid = s.thread_tid.load(std::memory_order_acquire)) == 0) {
    sched_yield();
  }
  int status = 0;
  if (ptrace(PTRACE_SEIZE, tid, nullptr,
             reinterpret_cast<void*>(PTRACE_O_TRACEEXIT)) != 0) {
    Fail(s, "ptrace(PTRACE_SEIZE) of the exiting thread");
  } else if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0 ||
             waitpid(tid, &status, __WALL) != tid || !WIFSTOPPED(status)) {
    Fail(s, "ptrace(PTRACE_INTERRUPT) of the exiting thread");
  }
  if (s.error.load(std::memory_order_acquire) != 0) {
    s.go.store(true, std::memory_order_release);
    s.done.store(true, std::memory_order_release);
    _exit(0);
  }
  if (!s.step) {
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    s.go.store(true, std::memory_order_release);
    s.done.store(true, std::memory_order_release);
    _exit(0);
  }
  s.go.store(true, std::memory_order_release);
  ReadHere(s, pid, reader);
  int signal = 0;  // one the thread got while traced, to hand on
  for (;;) {
    if (ptrace(PTRACE_SINGLESTEP, tid, nullptr,
               reinterpret_cast<void*>(static_cast<intptr_t>(signal))) != 0) {
      break;  // gone
    }
    signal = 0;
    if (waitpid(tid, &status, __WALL) != tid) break;
    if (WIFEXITED(status) || WIFSIGNALED(status)) break;
    if (!WIFSTOPPED(status)) continue;
    if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
      // In the kernel's exit: no more user code to step.
      ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
      break;
    }
    if (WSTOPSIG(status) != SIGTRAP) signal = WSTOPSIG(status);
    s.steps.fetch_add(1, std::memory_order_relaxed);
    ReadHere(s, pid, reader);
  }
  s.done.store(true, std::memory_order_release);
  _exit(0);
}

// StepThroughExit(), or with `step` false only the hold (CanTrace()).
absl::StatusOr<Stepped> Run(absl::FunctionRef<void()> body,
                            absl::FunctionRef<void()> read, bool step) {
  void* page = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    return absl::InternalError(absl::StrCat("mmap: ", std::strerror(errno)));
  }
  Shared& s = *new (page) Shared{};
  s.step = step;
  const pid_t pid = getpid();
  const pid_t reader = static_cast<pid_t>(syscall(SYS_gettid));
  const pid_t tracer = fork();
  if (tracer < 0) {
    munmap(page, sizeof(Shared));
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (tracer == 0) Trace(s, pid, reader);
  // Where Yama is on, the tracer needs this process's leave.
  prctl(PR_SET_PTRACER, tracer, 0, 0, 0);

  std::thread thread([&s, body] {
    body();
    s.thread_tid.store(static_cast<pid_t>(syscall(SYS_gettid)),
                       std::memory_order_release);
    while (!s.go.load(std::memory_order_acquire)) sched_yield();
  });
  uint64_t served = 0;
  uint64_t readings = 0;
  for (;;) {
    const uint64_t posted = s.posted.load(std::memory_order_acquire);
    if (posted > served) {
      read();
      ++readings;
      served = posted;
      s.answered.store(posted, std::memory_order_release);
      continue;
    }
    if (s.done.load(std::memory_order_acquire) &&
        s.posted.load(std::memory_order_acquire) == served) {
      break;
    }
    sched_yield();
  }
  thread.join();
  int status = 0;
  waitpid(tracer, &status, 0);
  Stepped stepped{
      .steps = s.steps.load(), .readings = readings, .waited = s.waited.load()};
  const int error = s.error.load();
  const std::string what = s.what;
  munmap(page, sizeof(Shared));
  if (error != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " failed (", std::strerror(error),
        "): this machine does not let a process trace a thread of its own "
        "child's (a container's seccomp profile, or Yama's ptrace_scope 3)"));
  }
  return stepped;
}

}  // namespace

absl::StatusOr<Stepped> StepThroughExit(absl::FunctionRef<void()> body,
                                        absl::FunctionRef<void()> read) {
  return Run(body, read, true);
}

absl::Status CanTrace() {
  return Run([] {}, [] {}, false).status();
}

}  // namespace exit_checkpoints
}  // namespace counter_contention
