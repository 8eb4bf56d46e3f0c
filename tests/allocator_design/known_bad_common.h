// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: known_bad_common.h
// -----------------------------------------------------------------------------
//
// What the known-bads whose mistake is in a class's refill share, so that
// each bad_*.cc keeps only its own mistake: when a call is about to make
// the reference refill a size class, something done with that class's lock
// held, just before it. The refill itself is a helper the reference keeps in
// its anonymous namespace, whose caller a rename would rename with it
// (docs/adding_a_lab.md, section 5); so the known-bad renames Allocate(),
// does its mistake here and lets the reference's Allocate() refill.
//
// A textual header: it reads the reference's own state (its thread cache
// `tc`, its `central` lists), so it is included after the reference, in the
// same translation unit.
//
// Example:
//
//   #define Allocate ReferenceAllocate
//   #include "solutions/allocator_design/task.cc"
//   #undef Allocate
//   #include "tests/allocator_design/known_bad_common.h"
//
//   void* Allocate(size_t size, size_t alignment, bool zero) {
//     known_bad::BeforeRefill(size, alignment, [](int c, Central& cl) {
//       /* the mistake, cl's lock held */
//     });
//     return ReferenceAllocate(size, alignment, zero);
//   }

#ifndef ALLOCLAB_TESTS_ALLOCATOR_DESIGN_KNOWN_BAD_COMMON_H_
#define ALLOCLAB_TESTS_ALLOCATOR_DESIGN_KNOWN_BAD_COMMON_H_

#include <cstddef>

namespace allocator_design {
namespace known_bad {

// BeforeRefill()
//
// When a request of `size` bytes aligned to `alignment` is a small one of
// the default alignment and its class's cache on this thread is empty (no
// freed block, no run left), the reference's Allocate() will refill that
// class: calls `f(c, central[c])` first, with that list's lock held.
// Otherwise does nothing.
template <typename F>
void BeforeRefill(size_t size, size_t alignment, F f) {
  if (size > kSmallMax || alignment > kMinAlignment) return;
  const int c = ClassOf(size);
  const ClassCache& cc = tc.classes[c];
  if (cc.list != nullptr || cc.run_left != 0) return;
  Central& cl = central[c];
  cl.lock.Acquire();
  f(c, cl);
  cl.lock.Release();
}

}  // namespace known_bad
}  // namespace allocator_design

#endif  // ALLOCLAB_TESTS_ALLOCATOR_DESIGN_KNOWN_BAD_COMMON_H_
