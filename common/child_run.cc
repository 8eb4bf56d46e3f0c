// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/child_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/memory.h"
#include "common/subprocess.h"

extern char** environ;

namespace alloclab {
namespace {

constexpr size_t kStderrTailBytes = 2000;

// The file to exec: `name` itself when it has a slash, else the first
// executable of that name in $PATH (looked up here: in the child, between
// fork and exec, only async-signal-safe calls are allowed).
std::string ResolveProgram(const std::string& name) {
  if (absl::StrContains(name, '/')) return name;
  const char* path = getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    std::string candidate =
        absl::StrCat(dir.empty() ? "." : dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;  // exec fails with ENOENT, and the error says so
}

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
  for (const auto& [name, value] : command.env) {
    if (name.empty() || absl::StrContains(name, '=')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RunChild: environment name '", name, "' is empty or has '='"));
    }
  }
  if (command.rss_sample_interval.has_value() &&
      *command.rss_sample_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "RunChild: the RSS sample interval must be positive");
  }

  // Everything the child needs, built before the fork.
  const std::string program = ResolveProgram(command.argv[0]);
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    absl::string_view entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : command.env) {
      replaced |= absl::StartsWith(entry, absl::StrCat(name, "="));
    }
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [name, value] : command.env) {
    env_strings.push_back(absl::StrCat(name, "=", value));
  }
  std::vector<char*> argv;
  for (const std::string& arg : command.argv) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  int exec_pipe[2] = {-1, -1};  // closes on a good exec; carries errno if not
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(exec_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    ClosePair(out_pipe);
    ClosePair(err_pipe);
    ClosePair(exec_pipe);
    return absl::ErrnoToStatus(error, "RunChild: pipe2");
  }

  ChildRun run;
  if (absl::StatusOr<ProcStatusMemory> self = ReadProcStatusMemory();
      self.ok()) {
    run.launcher_rss_kib = self->vm_rss_kib;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    int error = errno;
    ClosePair(out_pipe);
    ClosePair(err_pipe);
    ClosePair(exec_pipe);
    return absl::ErrnoToStatus(error, "RunChild: fork");
  }
  if (pid == 0) {
    // The child: async-signal-safe calls only.
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    signal(SIGPIPE, SIG_DFL);
    execve(program.c_str(), argv.data(), envp.data());
    int error = errno;
    ssize_t ignored = write(exec_pipe[1], &error, sizeof(error));
    (void)ignored;
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);

  std::optional<RssSampler> sampler;
  if (command.rss_sample_interval.has_value()) {
    sampler.emplace(*command.rss_sample_interval,
                    absl::StrCat("/proc/", pid, "/status"));
    // A child that has already exited leaves no sample; that is no error.
    sampler->Start().IgnoreError();
  }

  DrainPipes(out_pipe[0], err_pipe[0], run.stdout_text, run.stderr_text,
             command.echo_stderr);
  int exec_errno = 0;
  ssize_t got;
  do {
    got = read(exec_pipe[0], &exec_errno, sizeof(exec_errno));
  } while (got < 0 && errno == EINTR);
  close(exec_pipe[0]);

  absl::StatusOr<ChildUsage> usage = WaitForChild(pid);
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             start)
                   .count();
  if (sampler.has_value()) {
    // The last reads fail once the child has exited: its samples stand.
    sampler->Stop();
    for (const RssSampler::Sample& s : sampler->samples()) {
      run.rss_samples.push_back({s.t_ms, s.rss_kib});
    }
  }
  if (!usage.ok()) return usage.status();
  if (got == static_cast<ssize_t>(sizeof(exec_errno))) {
    return absl::NotFoundError(absl::StrCat("cannot run ", command.argv[0],
                                            " (", program, "): ",
                                            internal::ErrnoText(exec_errno)));
  }
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
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) {
    return absl::ErrnoToStatus(errno, "ProgramBesideSelf: readlink /proc/self/exe");
  }
  const std::string self(exe, static_cast<size_t>(n));
  const std::string path =
      absl::StrCat(self.substr(0, self.rfind('/') + 1), name);
  if (access(path.c_str(), X_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(
        "no program ", path, " (", internal::ErrnoText(errno),
        "): it must be a data dependency of ", self, "'s BUILD target"));
  }
  return path;
}

}  // namespace alloclab
