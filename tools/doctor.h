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
// and THP probes of common/vm_facts.h, the allocator libraries found as
// common/allocator_probe.h finds them, musl-gcc on PATH, a preloaded
// allocator in a child). `JudgeLabs()` turns facts into verdicts and is a
// pure function, so tests give it the facts of machines this one is not
// (SMT, a zero page, no ptrace, no musl, a preload that does not take).
//
// Example:
//
//   alloclab::MachineFacts facts =
//   alloclab::GatherFacts(alloclab::ProbeRoots()); std::cout <<
//   alloclab::RenderFacts(facts)
//             << alloclab::RenderVerdicts(alloclab::JudgeLabs(facts));

#ifndef ALLOCLAB_TOOLS_DOCTOR_H_
#define ALLOCLAB_TOOLS_DOCTOR_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/allocator_probe.h"
#include "common/cpu_facts.h"
#include "common/topology.h"
#include "common/versions.h"

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
  // allocator serving its malloc (//common:which_malloc); empty: that
  // program from this one's runfiles.
  std::string which_malloc;
  // Probes that act on this machine rather than read a file (ptrace of a
  // child, perf_event_open, the zero-page probe). Tests of the rendering
  // turn them off; each has its own test.
  bool live_probes = true;
};

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
// (common/syscalls.h) does, and Yama's ptrace_scope where it exists.
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
// jemalloc_adoption's workloads: //common:which_malloc run with LD_PRELOAD
// of the first allocator library found here, and the allocator it reports.
// `served` is OK when that allocator served malloc; otherwise it says who
// did, or why the probe could not run (no library to preload).
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
// (common/cpu_facts.h): the base page (KernelPageSize in
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
  // The zero page and THP, as sentences of common/vm_facts.h, and the two
  // facts the verdicts need.
  std::string zero_page;                 // DescribeZeroPage()
  std::optional<bool> zero_page_shared;  // nullopt: unknown
  std::string thp;                       // DescribeThp()
  std::vector<std::string> mthp_sizes;   // enabled sizes below the PMD size
  std::string libc;                      // "glibc 2.36", "musl", ...
  absl::StatusOr<std::string> musl_gcc = absl::UnknownError("not probed");
  std::vector<AllocatorFact> allocators;
  PreloadFacts preload;
  ContainerFacts container;
  // The versions of what the labs measure (common/versions.h); empty when
  // live probes are off.
  std::vector<SoftwareVersion> versions;
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

// JudgeLabs()
//
// Each lab's verdict on `facts`, in course order (the root's labs.bzl).
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
