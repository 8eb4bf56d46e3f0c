// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/mmap_threshold/doctor_rule.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/machine/machine_facts.h"
#include "common/machine/versions.h"

namespace mmap_threshold {

using alloclab::IsGlibc;
using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::PtraceFix;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  LabVerdict v{"", Verdict::kYes, "", ""};
  if (!IsGlibc(facts)) {
    v.verdict = Verdict::kNo;
    v.why = absl::StrCat(
        "the lab studies glibc's malloc; this program runs on ", facts.libc);
    v.fix = "use a glibc system (Debian, Ubuntu)";
  } else if (!facts.ptrace.traced_child.ok()) {
    v.verdict = Verdict::kPartly;
    v.why = absl::StrCat(facts.libc, ", but the mmap/munmap counts are n/a: ",
                         facts.ptrace.traced_child.message());
    v.fix = PtraceFix(facts);
  } else {
    v.why = absl::StrCat(facts.libc, "; ptrace counts each mmap and munmap");
  }
  // What this glibc (facts.libc, above) does with a fixed threshold above
  // 32 MiB, the probe's last step (versions.h).
  const std::optional<std::string> glibc =
      alloclab::InstalledVersion(facts.versions, "glibc");
  if (IsGlibc(facts) && glibc.has_value()) {
    absl::StrAppend(&v.why, "; a fixed mmap threshold above 32 MiB is ",
                    alloclab::GlibcAcceptsFixedThresholdAbove32MiB(*glibc)
                        ? "accepted (2.35+), as the lab shows"
                        : "refused (before 2.35): the probe stops at 32 MiB");
  }
  return v;
}

}  // namespace mmap_threshold
