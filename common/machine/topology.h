// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: topology.h
// -----------------------------------------------------------------------------
//
// Which logical CPUs share a core, read from /sys, and pinning. Benchmarks
// with threads need both: two threads on SMT siblings compete for one core,
// two on different cores do not. Everything takes a `sys_root`, so tests run
// against fixture trees of machines this one is not (a 4-core/8-thread
// desktop, a 2-socket server).
//
// Example:
//
//   absl::StatusOr<alloclab::Topology> topo = alloclab::ReadTopology();
//   absl::StatusOr<std::vector<int>> cpus = alloclab::ParseCpuList("0,2,4-6");
//   absl::StatusOr<std::vector<int>> allowed = alloclab::AllowedCpus();
//   absl::Status pinned = alloclab::PinCurrentThread(2);

#ifndef ALLOCLAB_COMMON_MACHINE_TOPOLOGY_H_
#define ALLOCLAB_COMMON_MACHINE_TOPOLOGY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// ParseCpuList()
//
// Parses the kernel's cpu-list format ("0-3,8,10-11", as in
// /sys/devices/system/cpu/online and taskset -c) into sorted, unique CPU ids.
// Returns InvalidArgument, naming the bad part, for anything else ("", "3-1",
// "a", "1,,2", negative numbers).
absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view text);

// FormatCpuList()
//
// The inverse: {0,1,2,3,8} -> "0-3,8".
std::string FormatCpuList(const std::vector<int>& cpus);

// Cpu
struct Cpu {
  int id = 0;
  int core_id = 0;            // topology/core_id
  int package_id = 0;         // topology/physical_package_id
  std::vector<int> siblings;  // topology/thread_siblings_list, itself included
  // topology/cluster_id: the arm64 cluster (a group of cores sharing an L2,
  // e.g. Apple's performance and efficiency clusters); -1 where the kernel
  // has no such file or says -1.
  int cluster_id = -1;
};

// Topology
struct Topology {
  std::vector<Cpu> cpus;  // online CPUs, by id

  int logical_cpus() const { return static_cast<int>(cpus.size()); }
  int physical_cores() const;  // distinct (package_id, core_id) pairs
  int packages() const;
  bool smt() const { return logical_cpus() > physical_cores(); }

  // The ids of the online CPUs, in order: every CPU, as an affinity mask
  // that allows them all would list them.
  std::vector<int> Ids() const;

  // One CPU per core, lowest id first: where to put threads that must not
  // share a core.
  std::vector<int> OnePerCore() const;

  // The CPUs of `wanted` in the order that spreads threads widest: one CPU
  // of each core first (cores in the order of their lowest CPU), then each
  // core's second thread, and so on. The first k threads of a team placed
  // in this order share a core only when k exceeds the cores. CPUs not in
  // this topology are left out.
  std::vector<int> SpreadAcrossCores(const std::vector<int>& wanted) const;

  // How many distinct cores the CPUs `ids` are on (CPUs not in this
  // topology do not count).
  int CoresOf(const std::vector<int>& ids) const;

  // Efficiency cores, on a hybrid CPU: Intel's E-cores, which the kernel
  // lists in /sys/devices/cpu_atom/cpus (the performance cores in
  // /sys/devices/cpu_core/cpus); on arm64 (Apple Silicon's efficiency
  // cluster, big.LITTLE), the CPUs whose cpu<N>/cpu_capacity is below the
  // largest. Empty elsewhere. A thread on an E-core runs slower for that
  // reason alone.
  std::vector<int> efficiency_cpus;
};

// ReadTopology()
//
// Reads `<sys_root>/devices/system/cpu/online`, each online CPU's
// topology/ files (cluster_id where it exists), and
// `<sys_root>/devices/cpu_atom/cpus` or, without it, each CPU's
// cpu_capacity where they exist.
// NotFound or InvalidArgument, with the path, on a tree that lacks or garbles
// them.
absl::StatusOr<Topology> ReadTopology(absl::string_view sys_root = "/sys");

// ValidateCpus()
//
// OK when every CPU in `cpus` is online in `topology`; otherwise
// InvalidArgument naming the first one that is not, and the online list.
absl::Status ValidateCpus(const Topology& topology,
                          const std::vector<int>& cpus);

// AllowedCpus()
//
// The CPUs the calling thread may run on: its affinity mask, narrowed by
// taskset, a cgroup cpuset or an earlier pin (sched_getaffinity). The error
// names errno.
absl::StatusOr<std::vector<int>> AllowedCpus();

// PinCurrentThread()
//
// sched_setaffinity to the one CPU `cpu`. The error names the CPU and errno.
absl::Status PinCurrentThread(int cpu);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_TOPOLOGY_H_
