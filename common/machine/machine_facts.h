// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: machine_facts.h
// -----------------------------------------------------------------------------
//
// What `bazel run //:doctor` knows of this machine, and the shape of one
// lab's verdict on it. The doctor (tools/doctor.h) probes the machine into
// `MachineFacts`; each lab says what those facts mean for it in its own
// package (labs/<lab>/doctor_rule.h, a `DoctorVerdict()` of its own
// namespace), and the doctor collects the labs' verdicts in course order
// from the one list (the root's labs.bzl). The facts live here, below labs/
// and tools/, so that a lab's rule needs nothing of the doctor's probes.
//
// A verdict is a pure function of the facts: tests give it the facts of
// machines this one is not (SMT, a zero page, no ptrace, no musl, a preload
// that does not take). The helpers at the end are the sentences several
// labs' verdicts share.
//
// clang-format off
// Example (a lab's doctor_rule.cc):
//
//   namespace my_lab {
//
//   alloclab::LabVerdict DoctorVerdict(const alloclab::MachineFacts& facts) {
//     alloclab::LabVerdict v{"", alloclab::Verdict::kYes,
//                            "ptrace counts each mmap", ""};
//     if (!facts.ptrace.traced_child.ok()) {
//       v.verdict = alloclab::Verdict::kPartly;
//       v.why = "the mmap counts are n/a";
//       v.fix = alloclab::PtraceFix(facts);
//     }
//     return v;
//   }
//
//   }  // namespace my_lab
// clang-format on

#ifndef ALLOCLAB_COMMON_MACHINE_MACHINE_FACTS_H_
#define ALLOCLAB_COMMON_MACHINE_MACHINE_FACTS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/machine/cpu_facts.h"
#include "common/machine/topology.h"
#include "common/machine/versions.h"

namespace alloclab {

// PerfFacts
//
// What perf_event_open allows an unprivileged process here.
struct PerfFacts {
  std::optional<int> paranoid;  // /proc/sys/kernel/perf_event_paranoid
  absl::Status software;        // a per-thread page-fault counter
  absl::Status hardware;        // a per-thread CPU-cycles counter
};

// PtraceFacts
//
// Whether this process may trace a child it forked, as the syscall counter
// (common/instruments/syscalls.h) does, and Yama's ptrace_scope where it
// exists.
struct PtraceFacts {
  absl::Status traced_child;
  std::optional<int> yama_scope;
};

// AllocatorFact
struct AllocatorFact {
  std::string name;                     // "jemalloc"
  absl::StatusOr<std::string> library;  // its path, or why not (package)
};

// PreloadFacts
//
// Whether a library named in LD_PRELOAD really serves malloc in a program
// the course built, as lab allocator_design's `libyours.so` must in lab
// jemalloc_adoption's workloads: //common/machine:which_malloc run with
// LD_PRELOAD of the first allocator library found here, and the allocator it
// reports. `served` is OK when that allocator served malloc; otherwise it says
// who did, or why the probe could not run (no library to preload).
struct PreloadFacts {
  std::string allocator;  // the allocator preloaded; empty when none was
  std::string library;    // its file
  absl::Status served = absl::UnknownError("not probed");
};

// ContainerFacts
//
// Whether this process runs in a container, what says so, and the
// container's limits that the labs feel: a seccomp filter (Docker's default
// profile refuses perf_event_open), the CPUs its cpuset allows, and a CPU
// quota (`docker run --cpus=1.5`: time on any CPU, not a core of its own).
struct ContainerFacts {
  std::string runtime;         // "docker", "podman", ...; empty: not in one
  std::string evidence;        // "/.dockerenv", "/proc/1/cgroup names kubepods"
  std::optional<int> seccomp;  // 0 none, 1 strict, 2 a filter
  std::string cpuset;          // "0-1" from the cgroup; "" unknown
  std::optional<double> cpu_quota;  // in CPUs; nullopt: no quota (or unknown)
};

// CpuFacts
//
// The architecture and the sizes a lab's numbers are counted in
// (common/machine/cpu_facts.h): the base page (KernelPageSize in
// `<proc_root>/self/smaps`), the cache line (coherency_line_size under
// `<sys_root>`), and the clock source (arm64 has no TSC).
struct CpuFacts {
  std::string architecture;  // uname(2): this binary's machine
  absl::StatusOr<size_t> page_bytes = absl::UnknownError("not probed");
  absl::StatusOr<CacheLine> cache_line = absl::UnknownError("not probed");
  absl::StatusOr<std::string> clocksource = absl::UnknownError("not probed");
};

// MachineFacts
//
// Everything the verdicts are made of. A probe that could not run holds its
// error, never a guess.
struct MachineFacts {
  absl::StatusOr<Topology> topology = absl::UnknownError("not probed");
  CpuFacts cpu;
  PerfFacts perf;
  PtraceFacts ptrace;
  // The zero page and THP, as sentences of common/machine/vm_facts.h, and the
  // two facts the verdicts need.
  std::string zero_page;                 // DescribeZeroPage()
  std::optional<bool> zero_page_shared;  // nullopt: unknown
  std::string thp;                       // DescribeThp()
  std::vector<std::string> mthp_sizes;   // enabled sizes below the PMD size
  std::string libc;                      // "glibc 2.36", "musl", ...
  absl::StatusOr<std::string> musl_gcc = absl::UnknownError("not probed");
  std::vector<AllocatorFact> allocators;
  PreloadFacts preload;
  ContainerFacts container;
  // The versions of what the labs measure (common/machine/versions.h); empty
  // when live probes are off.
  std::vector<SoftwareVersion> versions;
};

// Verdict
enum class Verdict { kYes, kPartly, kNo };

// LabVerdict
//
// One lab's line: whether this machine shows its effect, the facts that
// decide it, and what would change it ("" when nothing is missing or no
// package helps).
struct LabVerdict {
  std::string lab;
  Verdict verdict = Verdict::kYes;
  std::string why;
  std::string fix;
};

// IsGlibc()
//
// Whether the program runs on glibc (MachineFacts::libc "glibc 2.36").
bool IsGlibc(const MachineFacts& facts);

// PtraceFix()
//
// What to do where ptrace is refused: Yama's setting, a container's flag,
// or the sandbox.
std::string PtraceFix(const MachineFacts& facts);

// AllocatorsVerdict()
//
// The verdict on the allocators to compare with glibc's (`allocators`):
// yes when the program runs on glibc and every library is found, partly
// when some are or when the libc is not glibc, no when none is; `fix` names
// what each missing one needs. Labs jemalloc_adoption and allocator_design
// both run that comparison, so both doctor rules say it.
LabVerdict AllocatorsVerdict(const MachineFacts& facts);

// FormatCpus()
//
// A count of CPUs as a learner writes it: "1.5" for 1.5, "2" for 2.0.
std::string FormatCpus(double cpus);

// JoinClauses()
//
// A verdict's clauses as one sentence: "a; b; c".
std::string JoinClauses(const std::vector<std::string>& clauses);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_MACHINE_FACTS_H_
