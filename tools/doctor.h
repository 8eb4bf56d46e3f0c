// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: doctor.h
// -----------------------------------------------------------------------------
//
// The machine check behind `bazel run //:doctor`: for each lab, whether this
// machine can show its effect, why not, and the fix where there is one.
//
// Two halves. `GatherFacts()` probes the machine: every fact comes from a
// real probe (the /sys and /proc files under a root a test can point at a
// fixture tree, perf_event_open, ptrace of a forked child, the zero-page
// and THP probes of common/machine/vm_facts.h, the allocator libraries found as
// common/machine/allocator_probe.h finds them, musl-gcc on PATH, a preloaded
// allocator in a child), into the `MachineFacts` of
// common/machine/machine_facts.h. `JudgeLabs()` turns facts into verdicts: each
// lab's own, from its package (labs/<lab>/doctor_rule.h), collected in course
// order from the root's labs.bzl. It is a pure function, so tests give it the
// facts of machines this one is not (SMT, a zero page, no ptrace, no musl, a
// preload that does not take).
//
// clang-format off
// Example:
//
//   alloclab::MachineFacts facts =
//       alloclab::GatherFacts(alloclab::ProbeRoots());
//   std::cout << alloclab::RenderFacts(facts)
//             << alloclab::RenderVerdicts(alloclab::JudgeLabs(facts));
// clang-format on

#ifndef ALLOCLAB_TOOLS_DOCTOR_H_
#define ALLOCLAB_TOOLS_DOCTOR_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/machine/allocator_probe.h"
#include "common/machine/machine_facts.h"

namespace alloclab {

// ProbeRoots
//
// Where the probes look. The defaults are this machine's; tests use
// fixture trees and a PATH of their own.
struct ProbeRoots {
  std::string sys_root = "/sys";
  std::string proc_root = "/proc";
  // Where / is, for the files a container runtime leaves there
  // (/.dockerenv, /run/.containerenv): "" is this machine's /.
  std::string fs_root;
  std::string path;  // as $PATH; empty: this process's PATH
  std::optional<LibrarySearch> library_search;  // nullopt: the default
  // The program the preload probe runs under LD_PRELOAD, which prints the
  // allocator serving its malloc (//common/machine:which_malloc); empty: that
  // program from this one's runfiles.
  std::string which_malloc;
  // Probes that act on this machine rather than read a file (ptrace of a
  // child, perf_event_open, the zero-page probe). Tests of the rendering
  // turn them off; each has its own test.
  bool live_probes = true;
};

// GatherFacts()
MachineFacts GatherFacts(const ProbeRoots& roots);

// The probes, each on its own (GatherFacts() calls them all).
absl::StatusOr<int> ReadIntFile(const std::string& path);
CpuFacts ProbeCpu(const ProbeRoots& roots);
PerfFacts ProbePerf(const ProbeRoots& roots);
PtraceFacts ProbePtrace(const ProbeRoots& roots);
PreloadFacts ProbePreload(const ProbeRoots& roots,
                          const std::vector<AllocatorFact>& allocators);
ContainerFacts ProbeContainer(const ProbeRoots& roots);

// ContainerAdvice()
//
// In a container: one sentence for each thing it restricts that a lab uses,
// what the labs do without it, and the `docker run` flag that gives it back
// where one is needed ("ptrace is refused: ...; add --cap-add=SYS_PTRACE").
// Empty outside one.
std::vector<std::string> ContainerAdvice(const MachineFacts& facts);

// PerfErrorMeaning()
//
// What errno `err` of perf_event_open means for a learner, given
// perf_event_paranoid: "this machine exposes no hardware counters (a VM
// without a virtual PMU)", "refused by perf_event_paranoid=3", ...
std::string PerfErrorMeaning(int err, std::optional<int> paranoid);

// LabRule
//
// One lab of the root's labs.bzl and its verdict, the `DoctorVerdict()` of
// its labs/<lab>/doctor_rule.h; `judge` is null for a lab without that file
// (//tools:doctor_test fails and names it).
struct LabRule {
  const char* lab;
  LabVerdict (*judge)(const MachineFacts& facts);
};

// LabRules()
//
// Every lab's rule, in course order. Its definition is lab_rules.cc, which
// tools/BUILD's `lab_rules_cc` writes from labs.bzl's LABS: the doctor holds
// no list of labs of its own.
const std::vector<LabRule>& LabRules();

// JudgeLabs()
//
// Each lab's verdict on `facts`, in course order (the root's labs.bzl). A
// lab without a rule gets "no", and the file it lacks.
std::vector<LabVerdict> JudgeLabs(const MachineFacts& facts);

// RenderFacts() / RenderVerdicts()
//
// The doctor's two blocks: one line per probe ("ptrace: allowed ..."), the
// container's line and its advice, and one line per lab with its fix
// indented below.
std::string RenderFacts(const MachineFacts& facts);

// RenderCpuFacts()
//
// RenderFacts()'s line of CpuFacts: "machine:      aarch64, 16 KiB pages,
// 128-byte cache lines (sysfs), clock source arch_sys_counter (no TSC)".
std::string RenderCpuFacts(const CpuFacts& cpu);
std::string RenderVerdicts(const std::vector<LabVerdict>& verdicts);

}  // namespace alloclab

#endif  // ALLOCLAB_TOOLS_DOCTOR_H_
