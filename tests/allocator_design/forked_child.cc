// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "tests/allocator_design/forked_child.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace allocator_design::suite {

bool HeldByNoThreadOfOurs(const Lock& lock) {
  const int holder = internal::HolderTid(lock);
  if (holder == 0) return false;
  // tgkill(2) with signal 0 asks the kernel whether the thread is in this
  // thread group, and sends nothing. A holder that is ours stays alive
  // while it holds the lock, so the answer cannot be about another thread
  // that reused its id.
  const int saved = errno;
  const bool ours = syscall(SYS_tgkill, getpid(), holder, 0) == 0;
  errno = saved;
  return !ours;
}

void ExitWhenWaitingForever(const Lock& lock, internal::LockEvent event) {
  if (event == internal::LockEvent::kAcquiring && HeldByNoThreadOfOurs(lock)) {
    _exit(kChildWaitedForever);
  }
}

int WaitOrKill(pid_t pid, int stall_seconds,
               absl::FunctionRef<int64_t()> progress) {
  int status = 0;
  int64_t last = progress();
  for (int still = 0; still < stall_seconds * 100; ++still) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    usleep(10'000);
    const int64_t now = progress();
    if (now != last) {
      last = now;
      still = 0;
    }
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

int WaitOrKill(pid_t pid, int seconds) {
  return WaitOrKill(pid, seconds, [] { return int64_t{0}; });
}

}  // namespace allocator_design::suite
