// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: forked_child.h
// -----------------------------------------------------------------------------
//
// The suite's one way to tell that a forked child waits forever. A child
// that inherited a lock held by a thread of its parent's (one ForkPrepare()
// did not take, or ForkChild() did not give back) waits for it for good:
// no thread of the child holds it, so none will give it back. The child
// knows at once, when it is about to wait (lock.h's observer, and the
// holder glibc's mutex records), and exits with kChildWaitedForever, where
// the parent would otherwise wait out a bound of seconds to call it hung.
//
// Example:
//
//   ForkPrepare();
//   const pid_t pid = fork();
//   if (pid == 0) {
//     allocator_design::internal::SetLockObserver(
//         allocator_design::suite::ExitWhenWaitingForever);
//     ForkChild();
//     // ... calls: a wait for a lock no thread of the child holds
//     // exits kChildWaitedForever ...
//   }

#ifndef ALLOCLAB_TESTS_ALLOCATOR_DESIGN_FORKED_CHILD_H_
#define ALLOCLAB_TESTS_ALLOCATOR_DESIGN_FORKED_CHILD_H_

#include <sys/types.h>

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "labs/allocator_design/internal/lock_testing.h"
#include "labs/allocator_design/lock.h"

namespace allocator_design::suite {

// kChildWaitedForever
//
// The exit status of a forked child that was about to wait for a lock held
// by no thread of its own.
inline constexpr int kChildWaitedForever = 103;

// HeldByNoThreadOfOurs()
//
// Whether `lock` is held now by a thread that is not one of this process's:
// in a forked child, one of the parent's. It runs inside the allocator (a
// lock observer): it allocates nothing and leaves errno as it found it.
bool HeldByNoThreadOfOurs(const Lock& lock);

// ExitWhenWaitingForever()
//
// A lock observer (internal::SetLockObserver()) for a forked child: when the
// child is about to wait for a lock HeldByNoThreadOfOurs(), it exits at once
// with kChildWaitedForever.
void ExitWhenWaitingForever(const Lock& lock, internal::LockEvent event);

// WaitOrKill()
//
// Waits for the forked child `pid` to exit, and kills it once `progress()`
// (what the child reports of its steps, read from memory it shares with
// the parent; a constant for a child that reports none) has stayed the
// same for `stall_seconds`: a bound on a child that hangs some other way
// than on a lock (which ExitWhenWaitingForever() ends at once), far more
// than any one call takes on a loaded machine. No verdict depends on how
// long the child took. Returns the wait status, or -1 when it was killed.
int WaitOrKill(pid_t pid, int stall_seconds,
               absl::FunctionRef<int64_t()> progress);

// The same for a child that reports no progress: killed `seconds` after the
// wait began.
int WaitOrKill(pid_t pid, int seconds);

}  // namespace allocator_design::suite

#endif  // ALLOCLAB_TESTS_ALLOCATOR_DESIGN_FORKED_CHILD_H_
