// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/musl_churn/doctor_rule.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/machine/machine_facts.h"
#include "common/machine/versions.h"

namespace musl_churn {

using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  LabVerdict v{"", Verdict::kYes, "", ""};
  if (facts.musl_gcc.ok()) {
    v.why = absl::StrCat("musl-gcc at ", *facts.musl_gcc,
                         "; the glibc and musl builds run side by side");
  } else {
    v.verdict = Verdict::kNo;
    v.why = std::string(facts.musl_gcc.status().message());
    v.fix = "sudo apt-get install musl-tools (or sudo tools/setup.sh)";
  }
  // What this musl's free() does with a freed slot's pages (versions.h).
  if (const std::optional<std::string> musl =
          alloclab::InstalledVersion(facts.versions, "musl")) {
    absl::StrAppend(
        &v.why, "; musl ", *musl, ": ",
        alloclab::MuslFreeUsesMadvFree(*musl)
            ? "free() returns the pages inside freed slots with "
              "madvise(MADV_FREE) (before 1.2.4): the scale-256 row makes "
              "madvise calls"
            : "free() makes no madvise call (1.2.4 dropped MADV_FREE): the "
              "scale-256 row shows none");
  }
  return v;
}

}  // namespace musl_churn
