// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The tracer of exit_checkpoints.h. Three parties share one page: the
// stepped thread (which says where it is and waits to be traced), the
// calling thread (the one that called StepThroughExit() or
// StepThroughCalls()), and the tracer, a child process that does nothing
// but ptrace(2), waitpid(2), read /proc and touch the page, so that it
// needs none of the locks the fork may have copied in a held state. The
// tracer asks the calling thread for its callback (a reading, or what runs
// at a stop) by raising `posted`; the caller answers by raising `answered`
// to it.
//
// StepThroughExit() steps the thread from its hold to its end.
// StepThroughCalls() lets it run free between trials; each trial, the
// thread stops itself with SIGURG right before its call (a signal the
// tracer sees and drops), and the tracer steps it k instructions from
// there, k one more each trial.

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
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
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

// What the tracer does with the thread once it holds it.
enum class Mode {
  kHoldOnly,    // let it go (CanTrace())
  kStepToEnd,   // step every instruction to its end (StepThroughExit())
  kStopInCall,  // stop it k instructions into its k-th call
                // (StepThroughCalls())
};

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
  // StepThroughCalls(): trials the caller prepared, calls the thread
  // finished, and the tracer's word that no trial follows.
  std::atomic<uint64_t> prepared;
  std::atomic<uint64_t> returned;
  std::atomic<bool> finished;
  std::atomic<uint64_t> calls;
  // The thread whose sleeping, or spinning, tells ReadHere() that the
  // callback waits for the stepped thread: the caller, or the one the
  // caller's prepare() names.
  std::atomic<pid_t> watched;
  Mode mode;       // set before the fork
  char what[128];  // which call, when `error` is set
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
// watched thread sleeps (on a lock the thread holds), or has burnt
// kSpinTicks on it.
void ReadHere(Shared& s, pid_t pid) {
  uint64_t want = s.answered.load(std::memory_order_acquire);
  if (want == s.posted.load(std::memory_order_relaxed)) {
    want = s.posted.fetch_add(1, std::memory_order_acq_rel) + 1;
  } else {
    want = s.posted.load(std::memory_order_relaxed);
  }
  const pid_t reader = s.watched.load(std::memory_order_acquire);
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

// Waits for the thread's next stop at the SIGURG it raises before a call,
// handing on any other signal; false when it exits instead.
bool WaitForMark(pid_t tid) {
  for (;;) {
    int status = 0;
    if (waitpid(tid, &status, __WALL) != tid) return false;
    if (WIFEXITED(status) || WIFSIGNALED(status)) return false;
    if (!WIFSTOPPED(status)) continue;
    if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
      ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
      return false;
    }
    if (WSTOPSIG(status) == SIGURG) return true;
    const int signal = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
    if (ptrace(PTRACE_CONT, tid, nullptr,
               reinterpret_cast<void*>(static_cast<intptr_t>(signal))) != 0) {
      return false;
    }
  }
}

// StepThroughCalls()'s trials: trial k stops the thread k instructions
// after its mark (or where its call returned, if sooner: the last trial),
// asks for the callback, and lets it run free to its next mark.
void StopInCalls(Shared& s, pid_t pid, pid_t tid) {
  if (ptrace(PTRACE_CONT, tid, nullptr, nullptr) != 0) return;
  for (uint64_t k = 0;; ++k) {
    if (!WaitForMark(tid)) return;
    s.calls.fetch_add(1, std::memory_order_relaxed);
    const uint64_t returned = s.returned.load(std::memory_order_acquire);
    bool ended = false;
    for (uint64_t i = 0; i < k && !ended; ++i) {
      int status = 0;
      // Signal 0: the first step also drops the mark's SIGURG.
      if (ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr) != 0 ||
          waitpid(tid, &status, __WALL) != tid || !WIFSTOPPED(status)) {
        return;
      }
      s.steps.fetch_add(1, std::memory_order_relaxed);
      ended = s.returned.load(std::memory_order_acquire) != returned;
    }
    if (ended) s.finished.store(true, std::memory_order_release);
    ReadHere(s, pid);
    if (ptrace(PTRACE_CONT, tid, nullptr, nullptr) != 0) return;
    if (ended) {
      WaitForMark(tid);  // until it exits
      return;
    }
  }
}

// The tracer: holds the thread as its function returns, then steps it as
// `s.mode` says. Never returns.
[[noreturn]] void Trace(Shared& s, pid_t pid) {
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
    s.finished.store(true, std::memory_order_release);
    s.go.store(true, std::memory_order_release);
    s.done.store(true, std::memory_order_release);
    _exit(0);
  }
  if (s.mode == Mode::kHoldOnly) {
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    s.go.store(true, std::memory_order_release);
    s.done.store(true, std::memory_order_release);
    _exit(0);
  }
  s.go.store(true, std::memory_order_release);
  if (s.mode == Mode::kStopInCall) {
    StopInCalls(s, pid, tid);
    s.finished.store(true, std::memory_order_release);
    s.done.store(true, std::memory_order_release);
    _exit(0);
  }
  ReadHere(s, pid);
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
    ReadHere(s, pid);
  }
  s.done.store(true, std::memory_order_release);
  _exit(0);
}

// StepThroughExit(), StepThroughCalls() or CanTrace(), as `mode` says.
// `body` runs on the new thread (StepThroughCalls(): before each call, the
// call), `read` on the caller at each step or stop; `prepare` on the caller
// before each call (StepThroughCalls() only).
absl::StatusOr<Stepped> Run(absl::FunctionRef<void()> body,
                            absl::FunctionRef<void()> read,
                            absl::FunctionRef<pid_t()> prepare, Mode mode) {
  void* page = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    return absl::InternalError(absl::StrCat("mmap: ", std::strerror(errno)));
  }
  Shared& s = *new (page) Shared{};
  s.mode = mode;
  const pid_t pid = getpid();
  const pid_t reader = static_cast<pid_t>(syscall(SYS_gettid));
  s.watched.store(reader, std::memory_order_relaxed);
  const pid_t tracer = fork();
  if (tracer < 0) {
    munmap(page, sizeof(Shared));
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (tracer == 0) Trace(s, pid);
  // Where Yama is on, the tracer needs this process's leave.
  prctl(PR_SET_PTRACER, tracer, 0, 0, 0);

  std::thread thread([&s, body, mode, pid] {
    if (mode != Mode::kStopInCall) body();
    const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
    s.thread_tid.store(tid, std::memory_order_release);
    while (!s.go.load(std::memory_order_acquire)) sched_yield();
    if (mode != Mode::kStopInCall) return;
    sigset_t urg;
    sigemptyset(&urg);
    sigaddset(&urg, SIGURG);
    pthread_sigmask(SIG_UNBLOCK, &urg, nullptr);
    for (uint64_t trial = 0;; ++trial) {
      while (s.prepared.load(std::memory_order_acquire) <= trial &&
             !s.finished.load(std::memory_order_acquire)) {
        sched_yield();
      }
      if (s.finished.load(std::memory_order_acquire)) return;
      // The mark: a traced thread stops here (SIGURG is ignored by default
      // but still stops a traced thread); untraced, nothing happens.
      syscall(SYS_tgkill, pid, tid, SIGURG);
      body();
      s.returned.store(trial + 1, std::memory_order_release);
    }
  });
  uint64_t served = 0;
  uint64_t readings = 0;
  uint64_t prepared = 0;
  for (;;) {
    const uint64_t posted = s.posted.load(std::memory_order_acquire);
    if (posted > served) {
      read();
      ++readings;
      served = posted;
      s.answered.store(posted, std::memory_order_release);
      continue;
    }
    // The next trial, once the last one's call returned and its callback
    // ran (one per trial), unless the tracer says it was the last.
    if (mode == Mode::kStopInCall && served == prepared &&
        s.returned.load(std::memory_order_acquire) == prepared &&
        !s.finished.load(std::memory_order_acquire) &&
        !s.done.load(std::memory_order_acquire)) {
      const pid_t watched = prepare();
      s.watched.store(watched == 0 ? reader : watched,
                      std::memory_order_release);
      s.prepared.store(++prepared, std::memory_order_release);
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
  Stepped stepped{.steps = s.steps.load(),
                  .readings = readings,
                  .waited = s.waited.load(),
                  .calls = s.calls.load()};
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
  return Run(
      body, read, [] { return pid_t{0}; }, Mode::kStepToEnd);
}

absl::StatusOr<Stepped> StepThroughCalls(absl::FunctionRef<pid_t()> prepare,
                                         absl::FunctionRef<void()> call,
                                         absl::FunctionRef<void()> at_stop) {
  return Run(call, at_stop, prepare, Mode::kStopInCall);
}

absl::Status CanTrace() {
  return Run([] {}, [] {}, [] { return pid_t{0}; }, Mode::kHoldOnly).status();
}

}  // namespace exit_checkpoints
}  // namespace counter_contention
