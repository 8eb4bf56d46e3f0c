// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/smt_siblings/doctor_rule.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/machine/machine_facts.h"
#include "common/machine/topology.h"

namespace smt_siblings {

using alloclab::LabVerdict;
using alloclab::MachineFacts;
using alloclab::Topology;
using alloclab::Verdict;

LabVerdict DoctorVerdict(const MachineFacts& facts) {
  LabVerdict v{"", Verdict::kYes, "", ""};
  if (!facts.topology.ok()) {
    v.verdict = Verdict::kPartly;
    v.why = absl::StrCat("topology unknown (",
                         facts.topology.status().message(), ")");
    return v;
  }
  const Topology& t = *facts.topology;
  const bool distinct = t.physical_cores() >= 2, siblings = t.smt();
  std::vector<std::string> rows = {"one_thread"};
  if (distinct) rows.push_back("distinct_cores");
  if (siblings) rows.push_back("smt_siblings");
  rows.push_back("same_cpu");
  v.why =
      absl::StrFormat("%d logical CPUs on %d cores (%s): rows %s",
                      t.logical_cpus(), t.physical_cores(),
                      siblings ? "SMT" : "no SMT", absl::StrJoin(rows, ", "));
  if (!distinct || !siblings) {
    v.verdict = Verdict::kPartly;
    absl::StrAppend(&v.why, "; no ",
                    !distinct ? "distinct_cores row (one core)"
                              : "smt_siblings row (no core has two threads)");
    v.fix = !distinct
                ? "a machine with 2+ cores (a cloud VM of 4+ vCPUs)"
                : "a CPU with SMT switched on; on a cloud VM, an instance "
                  "whose vCPUs are sibling threads (/sys lists them as "
                  "thread siblings)";
  }
  if (!t.efficiency_cpus.empty()) {
    absl::StrAppend(&v.why, "; E-cores ",
                    alloclab::FormatCpuList(t.efficiency_cpus),
                    ": a row placed on an E-core is slower for that reason "
                    "alone (keep rows on P-cores with --cpus)");
  }
  return v;
}

}  // namespace smt_siblings
