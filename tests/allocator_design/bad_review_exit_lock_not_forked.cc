// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad (review34): thread exits are serialised by a lock of their own
// ("one exit at a time gives its spans back"), which ForkPrepare() does not
// take: a child forked while another thread exits inherits it held, and
// hangs when one of its own threads exits
// (ValidatorFork.ChildForkedWhileAThreadHoldsEachLock parks a thread in
// its ThreadExit() and has the child's own thread exit). The reference
// does the rest.

#include "labs/allocator_design/task.h"

#define ThreadExit ReferenceThreadExit
#include "solutions/allocator_design/task.cc"
#undef ThreadExit

namespace allocator_design {
namespace {

constinit Lock exit_lock;  // one exit at a time

}  // namespace

void ThreadExit() {
  exit_lock.Acquire();
  ReferenceThreadExit();
  exit_lock.Release();
}

}  // namespace allocator_design
