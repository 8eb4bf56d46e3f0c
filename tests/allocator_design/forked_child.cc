// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "tests/allocator_design/forked_child.h"

#include <sys/syscall.h>
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

}  // namespace allocator_design::suite
