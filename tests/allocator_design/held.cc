// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The suite's oracle of the bytes held (held.h).

#include "tests/allocator_design/held.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design::suite {

int64_t MappedLeft() {
  const PageSourceCounts pages = ReadPageSourceCounts();
  return static_cast<int64_t>(pages.bytes_mapped) -
         static_cast<int64_t>(pages.bytes_unmapped) -
         static_cast<int64_t>(pages.bytes_released);
}

HeldNow ReadHeldNow() {
  HeldNow h;
  h.counted = ReadCounters().bytes_held;
  h.mapped_left = MappedLeft();
  h.resident = internal::ResidentMappedBytes();
  h.witnessed =
      std::max(h.resident.value_or(0),
               static_cast<uint64_t>(std::max<int64_t>(h.mapped_left, 0)));
  h.judged = std::max(h.counted, h.witnessed);
  return h;
}

std::string HeldCounts(alloclab::FreshCallResult& r) {
  return absl::StrCat(r.values["held"],
                      " bytes held (the largest of ReadCounters()'s ",
                      r.values["held_counted"],
                      ", the resident bytes of the page source's "
                      "live mappings ",
                      r.values["held_resident"],
                      " and the page source's "
                      "mapped, less unmapped and released ",
                      r.values["held_mapped_left"],
                      ": a released range taken into use again is held again)");
}

void ExpectResidentKnown(alloclab::FreshCallResult& r) {
  for (const char* count :
       {"held", "held_counted", "held_resident", "held_mapped_left"}) {
    ::testing::Test::RecordProperty(count,
                                    static_cast<int64_t>(r.values[count]));
  }
  EXPECT_EQ(r.values["resident_unknown"], 0)
      << "internal::ResidentMappedBytes() was unavailable at "
      << r.values["resident_unknown"] << " readings: more live mappings "
      << "than the page source's table holds";
}

}  // namespace allocator_design::suite
