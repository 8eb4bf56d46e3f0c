// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// workload: one of the lab's workloads (workloads.h), the program the
// experiment runs under each allocator, as mimalloc-bench runs its
// benchmarks: the same binary, the allocator swapped with LD_PRELOAD, timed
// and measured from outside. Run it by hand to try an allocator:
//
//   LD_PRELOAD=/lib/x86_64-linux-gnu/libjemalloc.so.2 (one line)
//     bazel-bin/common/adoption/workload --workload=msgsend
//
// It prints who served malloc (the provider line of allocator_probe.h, which
// the experiment checks against the allocator it asked for), its own peak
// resident set (VmHWM), the threads and iterations it ran, and a checksum
// of its work.

#include <sched.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "common/adoption/workloads.h"
#include "common/instruments/memory.h"
#include "common/machine/allocator_probe.h"

ABSL_FLAG(std::string, workload, "",
          "treemap, scalability_8, scalability_1024, msgsend, churn or "
          "large_blocks");
ABSL_FLAG(int, threads, 0, "threads (0: the CPUs this process may run on)");
ABSL_FLAG(uint64_t, iterations, 0,
          "work per run (0: the workload's full default)");
ABSL_FLAG(uint64_t, seed, 1, "seed of the workload's random draws");

namespace {

// The CPUs this process may run on (its affinity mask), not the machine's.
int AvailableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  const int count = CPU_COUNT(&set);
  return count > 0 ? count : 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "One workload of lab jemalloc_adoption; preload an allocator to swap "
      "it.");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "workload: unexpected argument '%s'\n", rest[1]);
    return 1;
  }
  const std::string name = absl::GetFlag(FLAGS_workload);
  alloclab::adoption::WorkloadParams params;
  params.threads = absl::GetFlag(FLAGS_threads);
  if (params.threads == 0) params.threads = AvailableCpus();
  params.iterations = absl::GetFlag(FLAGS_iterations);
  if (params.iterations == 0) {
    params.iterations = alloclab::adoption::DefaultIterations(name, false);
  }
  params.seed = absl::GetFlag(FLAGS_seed);

  absl::StatusOr<uint64_t> checksum =
      alloclab::adoption::RunWorkload(name, params);
  if (!checksum.ok()) {
    std::fprintf(stderr, "workload: %s\n",
                 std::string(checksum.status().message()).c_str());
    return 1;
  }
  // Asked after the work: the allocator has certainly served it by now.
  absl::StatusOr<alloclab::MallocProvider> provider = alloclab::ProbeMalloc();
  if (!provider.ok()) {
    std::fprintf(stderr, "workload: %s\n",
                 std::string(provider.status().message()).c_str());
    return 1;
  }
  // The peak of this process's own memory since exec: unlike wait4's
  // ru_maxrss, it cannot include the launcher's pages (child_run.h).
  absl::StatusOr<alloclab::ProcStatusMemory> memory =
      alloclab::ReadProcStatusMemory();
  if (!memory.ok()) {
    std::fprintf(stderr, "workload: %s\n",
                 std::string(memory.status().message()).c_str());
    return 1;
  }
  std::printf("%s\n", alloclab::ProviderLine(*provider).c_str());
  std::printf("vm_hwm_kib: %lld\n", static_cast<long long>(memory->vm_hwm_kib));
  std::printf("threads: %d\niterations: %llu\nchecksum: %llu\n", params.threads,
              static_cast<unsigned long long>(params.iterations),
              static_cast<unsigned long long>(*checksum));
  return 0;
}
