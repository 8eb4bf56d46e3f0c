// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: slots in thread-local storage
// (bad_slot_in_thread_local_storage.cc), but "a thread_local is the thread's
// own memory, so its slot needs no padding: no other thread's slot can be
// beside it".
// True of the slots (promise 4 holds: each thread's is in its own thread's
// storage), but the slot is not alone in its line: the registry's links are
// beside the count, in the same struct, and every thread that registers or
// exits next to this one in the list writes them. Its count's line moves
// between cores as if another thread counted in it (promise 1). The suite
// must reject it.
//
// The mistake is the alignment of the slot, kCacheLineBytes, defined here as
// the count's own size around the #include: the slot is the count alone, 8
// bytes, and the links follow it. The rest is
// bad_slot_in_thread_local_storage.cc's (and so is its hang when a thread's
// first count comes in the last round of key destructors).

#include "labs/counter_contention/task.h"

#define kCacheLineBytes sizeof(uint64_t)
#include "tests/counter_contention/bad_slot_in_thread_local_storage.cc"
#undef kCacheLineBytes
