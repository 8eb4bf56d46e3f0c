// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: held.h
// -----------------------------------------------------------------------------
//
// The suite's oracle of the bytes an allocator holds, for the promises that
// bound them (task.h's 2, 3 and 4): three counts, none believed alone, the
// allocator's own (ReadCounters()), the page source's (mapped, less
// unmapped and released) and the kernel's (the resident bytes of the page
// source's live mappings). task_test.cc and the suite's other files
// (churn_edges_test.cc) judge by the same counts.
//
// Example:
//
//   HeldWorst worst;
//   for (...) {  // each a step with no other thread in the allocator
//     worst.Add(ReadHeldNow());
//   }
//   worst.Record(call);  // in an ALLOCLAB_FRESH_CALL
//   ...
//   ExpectResidentKnown(*r);
//   EXPECT_LE(r->values["held"], kThreadChurnHeldBytes) << HeldCounts(*r);

#ifndef ALLOCLAB_TESTS_ALLOCATOR_DESIGN_HELD_H_
#define ALLOCLAB_TESTS_ALLOCATOR_DESIGN_HELD_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "common/harness/fresh_process.h"

namespace allocator_design::suite {

// MappedLeft()
//
// What the page source has mapped and not unmapped or released, by its own
// counts: no allocator holds less (a released range taken into use again
// is held again, unseen here: the resident bytes see it), so it bounds
// bytes_held from below. Signed: a range released, reused and released
// again counts twice.
int64_t MappedLeft();

// HeldNow
//
// The bytes held now by three counts, none believed alone: the allocator's
// own (`counted`, ReadCounters()), the page source's (`mapped_left`:
// mapped, less unmapped and released, which no design holds less than;
// signed, as a range released, reused and released again counts twice) and
// the kernel's (`resident`: the bytes of the page source's live mappings
// resident now, internal::ResidentMappedBytes(), which a released range
// taken into use again is part of; std::nullopt when unknown). `witnessed`
// is the larger of the two the allocator cannot make smaller by what it
// says (the page source's and the kernel's); `judged` the largest of all
// three, what a promise that bounds the bytes held is held to.
struct HeldNow {
  uint64_t counted = 0;
  int64_t mapped_left = 0;
  std::optional<uint64_t> resident;
  uint64_t witnessed = 0;
  uint64_t judged = 0;
};

// ReadHeldNow()
//
// HeldNow now: call it where no other thread is in the allocator (the
// resident bytes are read mapping by mapping), and outside a count of
// system calls (mincore is one).
HeldNow ReadHeldNow();

// HeldWorst
//
// The most of each count of HeldNow over several readings, for a fresh
// process to record ("held": the judged, "held_counted", "held_resident",
// "held_mapped_left", "resident_unknown": readings without the resident
// bytes).
struct HeldWorst {
  uint64_t judged = 0;
  uint64_t counted = 0;
  uint64_t resident = 0;
  int64_t mapped_left = 0;
  int resident_unknown = 0;

  void Add(const HeldNow& h) {
    judged = std::max(judged, h.judged);
    counted = std::max(counted, h.counted);
    resident = std::max(resident, h.resident.value_or(0));
    mapped_left = std::max(mapped_left, h.mapped_left);
    resident_unknown += h.resident.has_value() ? 0 : 1;
  }

  void Record(alloclab::FreshCall& call) const {
    call.Record("held", static_cast<double>(judged));
    call.Record("held_counted", static_cast<double>(counted));
    call.Record("held_resident", static_cast<double>(resident));
    call.Record("held_mapped_left", static_cast<double>(mapped_left));
    call.Record("resident_unknown", resident_unknown);
  }
};

// HeldCounts()
//
// The recorded counts of HeldWorst, for a failure's message: "held by the
// largest of ..." and each.
std::string HeldCounts(alloclab::FreshCallResult& r);

// ExpectResidentKnown()
//
// The page source knew every live mapping at every reading of `r`. Records
// each count of HeldWorst as a property of the test (its XML report), for
// a reader who compares them.
void ExpectResidentKnown(alloclab::FreshCallResult& r);

}  // namespace allocator_design::suite

#endif  // ALLOCLAB_TESTS_ALLOCATOR_DESIGN_HELD_H_
