// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the reference, but "set the main thread's slot up before main,
// so that none of main's allocations pays for it": a static initializer
// calls CountAllocation() to set the slot up, and that call is counted like
// any other. Every total is then one more than the program's calls to
// CountAllocation() (task.h: "every CountAllocation() so far"), an offset
// that every difference of two totals cancels. The suite must reject it.
//
// The mistake is the initializer after the reference's #include; the rest is
// the reference's.

#include "labs/counter_contention/task.h"
#include "solutions/counter_contention/task.cc"

namespace counter_contention {
namespace {

// The main thread's slot, set up by counting before main runs.
[[maybe_unused]] const bool main_slot_set_up = (CountAllocation(), true);

}  // namespace
}  // namespace counter_contention
