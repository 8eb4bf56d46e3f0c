// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/musl_churn/runs.h"

#include <chrono>
#include <cstdio>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace musl_churn {

alloclab::ChildCommand ChurnCommand(const std::string& program,
                                    const ChurnRunSpec& spec,
                                    int64_t iterations) {
  alloclab::ChildCommand command;
  command.argv = {program, absl::StrCat("--iterations=", iterations),
                  absl::StrCat("--scale=", spec.scale),
                  absl::StrCat("--seed=", spec.seed)};
  if (spec.recycle_bound > 0) {
    command.argv.push_back(
        absl::StrCat("--recycle_bound=", spec.recycle_bound));
  }
  if (!spec.label.empty()) {
    command.argv.push_back("--progress");
    command.echo_stderr = true;
  }
  if (spec.fixed_threshold) {
    command.env = {{"GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=131072"}};
  }
  return command;
}

absl::StatusOr<ChurnRun> RunChurn(const std::string& program,
                                  const ChurnRunSpec& spec,
                                  int64_t iterations) {
  if (!spec.label.empty()) {
    std::fprintf(stderr, "musl_churn: %s, %lld iterations\n",
                 spec.label.c_str(), static_cast<long long>(iterations));
  }
  absl::StatusOr<alloclab::ChildRun> child =
      alloclab::RunChild(ChurnCommand(program, spec, iterations));
  if (!child.ok()) return child.status();
  absl::StatusOr<uint64_t> checksum = PrintedChecksum(child->stdout_text);
  if (!checksum.ok()) return checksum.status();
  ChurnRun run;
  run.child = *std::move(child);
  run.checksum = *checksum;
  run.checksum_ok = *checksum == ExpectedChecksum(iterations, spec);
  return run;
}

absl::Status RunUntraced(const std::string& program, const ChurnRunSpec& spec,
                         int64_t iterations, UntracedRuns& out) {
  absl::StatusOr<ChurnRun> run = RunChurn(program, spec, iterations);
  if (!run.ok()) return run.status();
  const alloclab::ChildRun& c = run->child;
  if (iterations == kFillRun) {
    out.fill_faults = c.minor_faults;
    return absl::OkStatus();
  }
  out.checksum = run->checksum;
  out.samples.AddRun(
      {{"wall_s", c.wall_s},
       {"user_s", c.user_s},
       {"sys_s", c.sys_s},
       {"peak_rss_kib", static_cast<double>(c.peak_rss_kib)},
       {"page_faults_per_call",
        static_cast<double>(c.minor_faults - out.fill_faults) /
            static_cast<double>(iterations - kFillRun)},
       {"checksum_ok", run->checksum_ok ? 1.0 : 0.0},
       {"launcher_rss_kib", static_cast<double>(c.launcher_rss_kib)}});
  return absl::OkStatus();
}

absl::StatusOr<SteadyCounts> CountSteadySyscalls(const std::string& program,
                                                 const ChurnRunSpec& spec,
                                                 int64_t k) {
  SteadyCounts steady;
  steady.k = k;
  alloclab::SyscallCounts counts[2];
  const int64_t runs[2] = {kFillRun, kFillRun + k};
  for (int i = 0; i < 2; ++i) {
    alloclab::ChildCommand command = ChurnCommand(program, spec, runs[i]);
    command.argv.push_back("--quiet");  // its line would land in our table
    std::vector<std::string> env;
    for (const auto& [name, value] : command.env) {
      env.push_back(absl::StrCat(name, "=", value));
    }
    if (!spec.label.empty()) {
      std::fprintf(stderr,
                   "musl_churn: %s, %lld iterations under ptrace, to count "
                   "system calls (slower than untraced)\n",
                   spec.label.c_str(), static_cast<long long>(runs[i]));
    }
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<alloclab::ProcessSyscalls> traced =
        alloclab::CountSyscallsOfCommand(command.argv, env);
    steady.traced_wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!traced.ok()) return traced.status();
    if (traced->exit_code != 0) {
      return absl::InternalError(absl::StrCat(
          program, " --iterations=", runs[i], " under ptrace ended with exit ",
          traced->exit_code, ", signal ", traced->term_signal));
    }
    counts[i] = traced->counts;
  }
  const alloclab::SyscallCounts& a = counts[0];
  const alloclab::SyscallCounts& b = counts[1];
  steady.counts = {b.mmap - a.mmap,     b.munmap - a.munmap,
                   b.brk - a.brk,       b.madvise - a.madvise,
                   b.mremap - a.mremap, b.total - a.total};
  return steady;
}

uint64_t ExpectedChecksum(int64_t iterations, const ChurnRunSpec& spec) {
  std::vector<unsigned char> scratch(CHURN_SIZE_CLASSES * spec.scale);
  const churn_allocator reuse = {[](void* block, size_t) { return block; },
                                 [](void*, void*, size_t) {}, scratch.data()};
  churn_params params = {};
  params.iterations = static_cast<uint64_t>(iterations);
  params.scale = spec.scale;
  params.seed = spec.seed;
  params.allocator = &reuse;
  return churn_run(&params);
}

absl::StatusOr<uint64_t> PrintedChecksum(absl::string_view output) {
  constexpr absl::string_view kKey = "checksum=0x";
  const size_t at = output.find(kKey);
  uint64_t checksum = 0;
  if (at == absl::string_view::npos ||
      !absl::SimpleHexAtoi(output.substr(at + kKey.size(), 16), &checksum)) {
    return absl::InvalidArgumentError(
        absl::StrCat("no checksum=0x... in the churn's output '", output, "'"));
  }
  return checksum;
}

}  // namespace musl_churn
