// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/jemalloc_adoption/doctor_rule.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/machine/machine_facts.h"
#include "common/machine/versions.h"

namespace jemalloc_adoption {

// The comparison's one need, every allocator's library to preload, is lab
// allocator_design's too: common/machine/machine_facts.h says it for both. This
// lab's own: how near this mimalloc is to the reference run's.
alloclab::LabVerdict DoctorVerdict(const alloclab::MachineFacts& facts) {
  alloclab::LabVerdict v = alloclab::AllocatorsVerdict(facts);
  if (const std::optional<std::string> mimalloc =
          alloclab::InstalledVersion(facts.versions, "mimalloc")) {
    absl::StrAppend(
        &v.why, "; mimalloc ", *mimalloc, ": ",
        alloclab::CompareVersions(*mimalloc, "3").value_or(-1) >= 0
            ? "version 3, a redesign of 2.x; the reference run used 2.0.9, "
              "so its mimalloc row may differ more than the others"
            : "version 2, as in the reference run");
  }
  return v;
}

}  // namespace jemalloc_adoption
