// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: thread caches live in a fixed table, "1024 threads is more
// than any program runs at once", and each new thread takes the next slot.
// But a slot is never given back when its thread exits, so the table fills
// with the dead: a server that starts a thread per connection runs out
// after its thousandth, though only a few ever live at once. task.h:
// thousands of threads may allocate and exit. The reference does the rest;
// a thread past the table's end gets nullptr, as a table lookup that
// finds no slot would. The suite must reject it.

#include <atomic>
#include <cstddef>

#include "labs/allocator_design/task.h"

// The reference, with its Allocate() renamed out of the way.
#define Allocate ReferenceAllocate
#include "solutions/allocator_design/task.cc"
#undef Allocate

namespace allocator_design {
namespace {

constexpr int kSlots = 1024;
constinit std::atomic<int> slots_taken{0};
__attribute__((
    tls_model("initial-exec"))) constinit thread_local bool has_slot = false;

}  // namespace

void* Allocate(size_t size, size_t alignment, bool zero) {
  if (!has_slot) {
    // The mistake: slots are taken, never returned at ThreadExit().
    if (slots_taken.fetch_add(1) >= kSlots) return nullptr;
    has_slot = true;
  }
  return ReferenceAllocate(size, alignment, zero);
}

}  // namespace allocator_design
