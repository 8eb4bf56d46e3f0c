// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/counter_contention/doctor_rule.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/machine/machine_facts.h"

namespace counter_contention {

using alloclab::FormatCpus;
using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  LabVerdict v{"", Verdict::kYes, "", ""};
  if (!facts.topology.ok()) {
    v.verdict = Verdict::kPartly;
    v.why =
        absl::StrCat("topology unknown (", facts.topology.status().message(),
                     "): cannot tell whether two threads run at once");
  } else if (facts.topology->physical_cores() >= 2) {
    v.why = absl::StrFormat(
        "%d cores: the rows up to %d threads run on distinct cores and "
        "contend for the counter's cache line (how much that costs depends "
        "on how far apart the cores are; on a VM it varies from run to "
        "run)%s",
        facts.topology->physical_cores(), facts.topology->physical_cores(),
        facts.topology->smt() ? "; rows with more threads add SMT siblings"
                              : "");
  } else if (facts.topology->logical_cpus() >= 2) {
    v.verdict = Verdict::kPartly;
    v.why =
        "one core with SMT (the usual 2-vCPU cloud VM): the threads are "
        "siblings that share L1 and L2, so the shared counter's cache "
        "line never leaves the core; expect little inflation";
    v.fix = "a machine with 2+ cores (a cloud VM of 4+ vCPUs)";
  } else {
    v.verdict = Verdict::kNo;
    v.why = "one CPU: threads only take turns (the oversubscribed rows)";
    v.fix = "a machine with 2+ cores";
  }
  // A container's quota below two CPUs: the two threads share its time,
  // whatever cores they sit on.
  const std::optional<double>& quota = facts.container.cpu_quota;
  if (quota.has_value() && *quota < 2 && v.verdict == Verdict::kYes) {
    v.verdict = Verdict::kPartly;
    absl::StrAppend(&v.why, "; but a CPU quota of ", FormatCpus(*quota),
                    " CPUs lets two threads run at once only part of the "
                    "time");
    v.fix = "drop docker run's --cpus; choose CPUs with --cpuset-cpus";
  }
  return v;
}

}  // namespace counter_contention
