// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: cpu_facts.h
// -----------------------------------------------------------------------------
//
// The facts of the CPU that change what a lab's numbers mean, probed on the
// machine at hand instead of assumed from x86-64:
//
//   - the architecture ("x86_64", "aarch64"), from uname(2);
//   - the cache line: how far apart two threads' counters must be
//     (counter_contention). 64 bytes on x86-64 and Graviton, 128 on Apple
//     Silicon; read from sysfs's coherency_line_size where the kernel lists
//     the caches, else from sysconf (many VMs have no cache/ directory);
//   - the kernel's page size as the kernel reports it for a mapping
//     (KernelPageSize in /proc/<pid>/smaps): 4 KiB on x86-64, 16 KiB on
//     Asahi Linux's Apple Silicon kernels (and some arm64 VMs'), 64 KiB on
//     some arm64 distributions;
//   - the clock source ("tsc" on x86-64, "arch_sys_counter" on arm64, which
//     has no TSC; "kvm-clock" in many x86 VMs).
//
// Everything that reads /sys or /proc takes its root, so tests run on the
// fixture trees of machines this one is not (common/machine/testdata/topology/,
// e.g. asahi_m2 and graviton3_vm).
//
// Example:
//
//   absl::StatusOr<alloclab::CacheLine> line = alloclab::ReadCacheLine();
//   if (line.ok() && line->bytes > 64) { ... pad to line->bytes ... }
//   std::string text = alloclab::DescribeCacheLine(line);  // "64-byte lines"

#ifndef ALLOCLAB_COMMON_MACHINE_CPU_FACTS_H_
#define ALLOCLAB_COMMON_MACHINE_CPU_FACTS_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// Architecture()
//
// The machine field of uname(2): "x86_64", "aarch64". Under qemu-user it
// is the emulated CPU's, as the program sees it.
std::string Architecture();

// CacheLine
//
// `bytes`: the largest coherency_line_size among the data and unified
// caches of the online CPUs (a line two threads must not share), or
// sysconf(_SC_LEVEL1_DCACHE_LINESIZE) where sysfs lists no caches.
// `source`: "sysfs" or "sysconf".
struct CacheLine {
  size_t bytes = 0;
  std::string source;
};

// ReadCacheLine()
//
// Reads `<sys_root>/devices/system/cpu/cpu<N>/cache/index*/` of every
// online CPU. Where no CPU has a cache/ directory and `sys_root` is the
// real "/sys", asks sysconf; on a fixture root it does not (a fixture
// without caches must not read this machine's line). NotFound, saying
// where it looked, when neither answers; InvalidArgument, naming the file,
// on a value that is not a power of two from 16 to 1024.
absl::StatusOr<CacheLine> ReadCacheLine(absl::string_view sys_root = "/sys");

// DescribeCacheLine()
//
// For the machine line: "64-byte cache lines", "128-byte cache lines", or
// "cache line n/a (<reason>)".
std::string DescribeCacheLine(const absl::StatusOr<CacheLine>& line);

// ReadKernelPageBytes()
//
// The KernelPageSize of the first mapping in `<proc_root>/self/smaps`: the
// page size the kernel maps with, read where the kernel says it (the same
// answer as sysconf(_SC_PAGESIZE) on a real /proc). NotFound or
// InvalidArgument, naming the file.
absl::StatusOr<size_t> ReadKernelPageBytes(
    absl::string_view proc_root = "/proc");

// ReadClocksource()
//
// `<sys_root>/devices/system/clocksource/clocksource0/current_clocksource`:
// "tsc", "kvm-clock", "arch_sys_counter", ...
absl::StatusOr<std::string> ReadClocksource(
    absl::string_view sys_root = "/sys");

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_CPU_FACTS_H_
