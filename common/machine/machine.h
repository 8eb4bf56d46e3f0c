// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: machine.h
// -----------------------------------------------------------------------------
//
// The machine a table was measured on, as facts (`MachineInfo`) and as the
// one line printed under every table. Numbers without it cannot be compared
// with anyone else's: the CPU and its effective clock, cores and SMT, the
// kernel and C library, where page-fault counts come from, and what one
// fault means here (zero page, THP/mTHP). Rendering tables and JSON is
// report.h's job; this file only describes.
//
// Example:
//
//   alloclab::MachineInfo machine = alloclab::DescribeMachine(
//       /*measure_clock=*/true, counter.source());
//   std::cout << alloclab::MachineLine(machine) << "\n";

#ifndef ALLOCLAB_COMMON_MACHINE_MACHINE_H_
#define ALLOCLAB_COMMON_MACHINE_MACHINE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/machine/versions.h"

namespace alloclab {

// MachineInfo
//
// The machine line's facts. `effective_ghz` is nullopt where the clock could
// not be measured, and `effective_ghz_note` says why; `physical_cores` is 0
// where /sys could not tell the cores apart (then `smt` means nothing, the
// JSON writes null for both, and `topology_note` says why); `faults_source`
// names the page-fault source in use.
struct MachineInfo {
  std::string cpu_model;
  // uname(2)'s machine: "x86_64", "aarch64" (cpu_facts.h). Empty: not
  // described.
  std::string architecture;
  int logical_cpus = 0;
  int physical_cores = 0;  // 0: unknown
  bool smt = false;
  std::string kernel;
  std::string libc;  // e.g. "glibc 2.36"
  std::optional<double> effective_ghz;
  std::string faults_source;
  // What a page-fault count means here (vm_facts.h): the base page size
  // (0: not described); "shared zero page",
  // "no zero page" or "zero page unknown (<why>)"; and the THP mode with
  // the enabled (m)THP sizes. Empty: not described.
  size_t page_bytes = 0;
  // The cache line two threads must not share (cpu_facts.h): the largest
  // coherency_line_size in /sys, else sysconf's; 0 with `cache_line_note`
  // saying why where neither tells, or not described.
  size_t cache_line_bytes = 0;
  std::string cache_line_note;
  std::string zero_page;
  std::string thp;
  std::string effective_ghz_note;  // why `effective_ghz` is missing
  std::string topology_note;       // why `physical_cores` is unknown
  // How busy the machine was: the 1, 5 and 15-minute load averages when
  // the run began (empty: unavailable). A reference run wants them under 1.
  std::vector<double> load_average;
  // The versions of what the labs measure (versions.h); empty: not probed.
  std::vector<SoftwareVersion> versions;
};

// DescribeMachine()
//
// Reads /proc/cpuinfo, /sys topology, uname(2), gnu_get_libc_version(),
// the load average, the software versions (versions.h) and the THP settings;
// probes the zero page (64 pages, a fraction of a millisecond); measures the
// effective clock when `measure_clock`. `faults_source` names the page-fault
// source the caller counts with (the harness passes its counter's); empty, a
// thread counter is created to find out which source this machine gives.
MachineInfo DescribeMachine(bool measure_clock = true,
                            absl::string_view faults_source = {});

// MachineLine()
//
// One line: "machine: <cpu> (x86_64), 2 logical CPUs on 2 cores (no SMT),
// Linux 6.1, glibc 2.36, effective clock 3.10 GHz, faults from
// getrusage(RUSAGE_THREAD), 4 KiB pages, 64-byte cache lines, no zero page, THP
// madvise (2048 KiB inherit=madvise), no mTHP size enabled, load average 0.12;
// musl 1.2.3, GCC 12.2.0, jemalloc 5.3.0, gperftools 2.10, mimalloc 2.0.9,
// Benchmark 1.7.1, Bazel 4.2.3" (glibc's version is already in it). What is
// unknown says so, with the reason: "effective clock n/a (not measured)".
std::string MachineLine(const MachineInfo& machine);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_MACHINE_H_
