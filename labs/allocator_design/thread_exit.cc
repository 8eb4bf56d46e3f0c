// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The thread-exit hook (thread_exit.h): one pthread key, created once,
// whose destructor calls task.h's ThreadExit(). pthread_key_create and
// pthread_setspecific allocate nothing for the first keys of a process
// (glibc keeps 32 per thread in the thread's own descriptor).

#include "labs/allocator_design/thread_exit.h"

#include <pthread.h>

#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {

constinit pthread_once_t once = PTHREAD_ONCE_INIT;
constinit pthread_key_t key;
constinit bool have_key = false;

void RunThreadExit(void*) { ThreadExit(); }

void CreateKey() { have_key = pthread_key_create(&key, RunThreadExit) == 0; }

}  // namespace

void ArmThreadExit() {
  pthread_once(&once, CreateKey);
  // Any non-null value: the destructor runs only for a non-null one.
  if (have_key) pthread_setspecific(key, &key);
}

}  // namespace allocator_design
