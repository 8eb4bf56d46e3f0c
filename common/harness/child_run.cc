// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/child_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/launch.h"
#include "common/harness/internal/subprocess.h"
#include "common/instruments/memory.h"

namespace alloclab {
namespace {

constexpr size_t kStderrTailBytes = 2000;

// Reads both pipes to their end, whichever the child fills first (reading
// one to its end before the other could deadlock on a full pipe).
void DrainPipes(int out_fd, int err_fd, std::string& out, std::string& err,
                bool echo_err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  char buffer[16384];
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
        continue;
      }
      sinks[i]->append(buffer, static_cast<size_t>(n));
      if (i == 1 && echo_err) {
        // Best effort: a progress line lost to a full terminal is no error.
        ssize_t ignored = write(STDERR_FILENO, buffer, static_cast<size_t>(n));
        (void)ignored;
      }
    }
  }
}

std::string Tail(const std::string& text) {
  if (text.size() <= kStderrTailBytes) return text;
  return absl::StrCat("...", text.substr(text.size() - kStderrTailBytes));
}

void ClosePair(int fds[2]) {
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) close(fds[i]);
  }
}

}  // namespace

absl::StatusOr<ChildRun> RunChild(const ChildCommand& command) {
  if (command.argv.empty() || command.argv[0].empty()) {
    return absl::InvalidArgumentError("RunChild: no program to run");
  }
  if (command.rss_sample_interval.has_value() &&
      *command.rss_sample_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "RunChild: the RSS sample interval must be positive");
  }

  // Everything the child needs, built before the fork.
  absl::StatusOr<internal::PreparedExec> exec =
      internal::PrepareExec(command.argv, command.env);
  if (!exec.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("RunChild: ", exec.status().message()));
  }

  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    ClosePair(out_pipe);
    ClosePair(err_pipe);
    return absl::ErrnoToStatus(error, "RunChild: pipe2");
  }

  ChildRun run;
  if (absl::StatusOr<ProcStatusMemory> self = ReadProcStatusMemory();
      self.ok()) {
    run.launcher_rss_kib = self->vm_rss_kib;
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<pid_t> spawned = internal::Spawn(*exec, [&] {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    signal(SIGPIPE, SIG_DFL);
  });
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (!spawned.ok()) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return spawned.status();
  }
  const pid_t pid = *spawned;

  std::optional<RssSampler> sampler;
  if (command.rss_sample_interval.has_value()) {
    sampler.emplace(*command.rss_sample_interval,
                    absl::StrCat("/proc/", pid, "/status"));
    // A child that has already exited leaves no sample; that is no error.
    sampler->Start().IgnoreError();
  }

  DrainPipes(out_pipe[0], err_pipe[0], run.stdout_text, run.stderr_text,
             command.echo_stderr);
  absl::StatusOr<ChildUsage> usage = WaitForChild(pid);
  run.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (sampler.has_value()) {
    // The last reads fail once the child has exited: its samples stand.
    sampler->Stop();
    for (const RssSampler::Sample& s : sampler->samples()) {
      run.rss_samples.push_back({s.t_ms, s.rss_kib});
    }
  }
  if (!usage.ok()) return usage.status();
  run.user_s = usage->user_s;
  run.sys_s = usage->sys_s;
  run.peak_rss_kib = usage->peak_rss_kib;
  run.minor_faults = usage->minor_faults;
  run.major_faults = usage->major_faults;
  if (usage->term_signal != 0 || usage->exit_code != 0) {
    return absl::InternalError(absl::StrCat(
        command.argv[0], " ",
        internal::DescribeExit(usage->exit_code, usage->term_signal),
        run.stderr_text.empty() ? "" : ": ", Tail(run.stderr_text)));
  }
  return run;
}

absl::StatusOr<std::string> ProgramBesideSelf(absl::string_view name) {
  return internal::FileBesideSelf(name, /*executable=*/true);
}

absl::StatusOr<std::string> FindRunfile(absl::string_view path) {
  return internal::FindRunfile(path);
}

}  // namespace alloclab
