// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: no decay. Freed spans are kept for the next request, forever,
// as glibc keeps its heap without malloc_trim(): memory a program used
// once at its peak stays its own while it idles. Here the reference's
// decay reads a clock that never moves (its NowNs() renamed to one that
// returns 0), so nothing ever looks idle for kDecayNs. The suite must
// reject it.

#include <cstdint>

#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace {
uint64_t ClockThatNeverMoves() { return 0; }
}  // namespace
}  // namespace allocator_design

// The reference, with the page source's clock replaced for it alone.
#define NowNs ClockThatNeverMoves
#include "solutions/allocator_design/task.cc"
#undef NowNs
