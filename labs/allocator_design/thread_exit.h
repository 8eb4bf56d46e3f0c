// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: thread_exit.h
// -----------------------------------------------------------------------------
//
// A hook at thread exit, for an allocator's per-thread state. A C++
// thread_local with a destructor would need the C++ runtime's thread-exit
// list, which allocates: inside malloc that recursion has no end. So the
// lab uses what glibc offers without allocating, a pthread key whose
// destructor runs when the thread exits (pthread_key_create(3)), and calls
// task.h's ThreadExit() from it. A thread that allocates again after its
// ThreadExit() (another key's destructor may) arms the hook again, and the
// hook runs again, up to PTHREAD_DESTRUCTOR_ITERATIONS times.
//
// Example:
//
//   // When this thread's cache is first set up, in Allocate() or in
//   // Free(): a thread that only frees fills a cache too.
//   allocator_design::ArmThreadExit();

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_THREAD_EXIT_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_THREAD_EXIT_H_

namespace allocator_design {

// ArmThreadExit()
//
// ThreadExit() will run when the calling thread exits. Cheap to call again;
// call it once per thread, when its state is set up.
void ArmThreadExit();

}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_THREAD_EXIT_H_
