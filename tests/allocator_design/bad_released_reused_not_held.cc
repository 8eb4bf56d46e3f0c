// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a span taken back into use after it was released is not
// counted held again, "released memory was given back; it stays given
// back". Its bytes_held is then what the page source mapped, less what it
// unmapped and released, the page source's own counts, which look like the
// strictest count there is. But task.h's bytes_held counts "a released
// range taken into use again is held again": a reused span is written,
// resident, counted by the kernel against the program, and every byte of
// it is what promises 2 to 5 weigh. Under-reported, it hides a design
// whose released spans fill up again. The reference does the rest (here
// the mistake is made once, in ReadCounters(): the reference's own count
// with every reuse of a released span left out is exactly that). The
// suite must reject it.

#include <cstdint>

#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

// The reference, with its ReadCounters() renamed out of the way.
#define ReadCounters ReferenceReadCounters
#include "solutions/allocator_design/task.cc"
#undef ReadCounters

namespace allocator_design {

Counters ReadCounters() {
  Counters c = ReferenceReadCounters();
  // The mistake: mapped, less unmapped and released, and nothing for a
  // released span reused (never below zero: a span released twice).
  const PageSourceCounts pages = ReadPageSourceCounts();
  const uint64_t given_back = pages.bytes_unmapped + pages.bytes_released;
  c.bytes_held =
      pages.bytes_mapped > given_back ? pages.bytes_mapped - given_back : 0;
  return c;
}

}  // namespace allocator_design
