// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/internal/launch.h"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/subprocess.h"

extern char** environ;

namespace alloclab {
namespace internal {

absl::StatusOr<std::string> FindOnPath(absl::string_view name,
                                       absl::string_view path) {
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    std::string file = absl::StrCat(dir.empty() ? "." : dir, "/", name);
    if (access(file.c_str(), X_OK) == 0) return file;
  }
  return absl::NotFoundError(
      absl::StrCat(name, " is not on PATH (", path, ")"));
}

std::string ResolveProgram(absl::string_view name) {
  if (absl::StrContains(name, '/')) return std::string(name);
  const char* path = std::getenv("PATH");
  absl::StatusOr<std::string> found =
      FindOnPath(name, path != nullptr ? path : "/usr/bin:/bin");
  return found.ok() ? *std::move(found) : std::string(name);
}

char* PreparedExec::MutableEnvValue(absl::string_view name) {
  for (std::string& entry : env_strings) {
    if (entry.size() > name.size() && entry[name.size()] == '=' &&
        absl::StartsWith(entry, name)) {
      return entry.data() + name.size() + 1;
    }
  }
  return nullptr;
}

absl::StatusOr<PreparedExec> PrepareExec(
    const std::vector<std::string>& argv,
    const std::vector<std::pair<std::string, std::string>>& env,
    const std::vector<std::string>& drop_prefixes) {
  if (argv.empty() || argv[0].empty()) {
    return absl::InvalidArgumentError("no program to run: argv is empty");
  }
  for (const auto& [name, value] : env) {
    if (name.empty() || absl::StrContains(name, '=')) {
      return absl::InvalidArgumentError(
          absl::StrCat("environment name '", name, "' is empty or has '='"));
    }
  }
  PreparedExec exec;
  exec.argv0 = argv[0];
  exec.program = ResolveProgram(argv[0]);
  exec.arg_strings = argv;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const absl::string_view entry(*e);
    const absl::string_view name = entry.substr(0, entry.find('='));
    bool dropped = false;
    for (const auto& [replaced, value] : env) dropped |= name == replaced;
    for (const std::string& prefix : drop_prefixes) {
      dropped |= absl::StartsWith(name, prefix);
    }
    if (!dropped) exec.env_strings.emplace_back(entry);
  }
  for (const auto& [name, value] : env) {
    exec.env_strings.push_back(absl::StrCat(name, "=", value));
  }
  for (std::string& arg : exec.arg_strings) exec.argv.push_back(arg.data());
  exec.argv.push_back(nullptr);
  for (std::string& entry : exec.env_strings) exec.envp.push_back(entry.data());
  exec.envp.push_back(nullptr);
  return exec;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
SplitEnvEntries(const std::vector<std::string>& entries) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string& entry : entries) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("environment entry \"", entry, "\" is not NAME=value"));
    }
    pairs.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return pairs;
}

void ExecPrepared(const PreparedExec& exec, int error_fd) {
  execve(exec.program.c_str(), exec.argv.data(), exec.envp.data());
  const int error = errno;
  (void)!write(error_fd, &error, sizeof(error));
  _exit(127);
}

absl::Status ExecError(const PreparedExec& exec, int error) {
  return absl::NotFoundError(absl::StrCat(
      "cannot run ", exec.argv0, " (", exec.program, "): ", ErrnoText(error)));
}

absl::Status ReadExecError(int read_fd, const PreparedExec& exec) {
  int error = 0;
  ssize_t got;
  do {
    got = read(read_fd, &error, sizeof(error));
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof(error))) return absl::OkStatus();
  return ExecError(exec, error);
}

absl::StatusOr<pid_t> ForkChild(absl::FunctionRef<int()> child) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return absl::ErrnoToStatus(errno, "fork");
  if (pid == 0) _exit(child());
  return pid;
}

absl::StatusOr<ChildOutput> ForkAndRead(absl::FunctionRef<int(int fd)> child) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe2");
  const int read_fd = fds[0];
  const int write_fd = fds[1];
  absl::StatusOr<pid_t> pid = ForkChild([&] {
    close(read_fd);
    return child(write_fd);
  });
  close(write_fd);
  if (!pid.ok()) {
    close(read_fd);
    return pid.status();
  }
  absl::StatusOr<std::string> data = ReadAll(read_fd);
  close(read_fd);
  absl::StatusOr<int> wait_status = WaitForPid(*pid);
  if (!wait_status.ok()) return wait_status.status();
  if (!data.ok()) return data.status();
  return ChildOutput{*std::move(data), *wait_status};
}

absl::StatusOr<pid_t> Spawn(const PreparedExec& exec,
                            absl::FunctionRef<void()> before_exec) {
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    return absl::ErrnoToStatus(errno, "Spawn: pipe2");
  }
  absl::StatusOr<pid_t> pid = ForkChild([&]() -> int {
    close(error_pipe[0]);
    before_exec();
    ExecPrepared(exec, error_pipe[1]);
  });
  close(error_pipe[1]);
  if (!pid.ok()) {
    close(error_pipe[0]);
    return pid.status();
  }
  absl::Status exec_error = ReadExecError(error_pipe[0], exec);
  close(error_pipe[0]);
  if (!exec_error.ok()) {
    WaitForPid(*pid).IgnoreError();  // it has _exit(127)ed: reap it
    return exec_error;
  }
  return *pid;
}

absl::StatusOr<std::string> FileBesideSelf(absl::string_view name,
                                           bool executable) {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return absl::ErrnoToStatus(errno, "readlink /proc/self/exe");
  const std::string self(exe, static_cast<size_t>(n));
  const std::string path =
      absl::StrCat(self.substr(0, self.rfind('/') + 1), name);
  if (access(path.c_str(), executable ? X_OK : F_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(
        "no ", executable ? "program " : "file ", path, " (", ErrnoText(errno),
        "): it must be a data dependency of ", self, "'s BUILD target"));
  }
  return path;
}

absl::StatusOr<std::string> FindRunfile(absl::string_view path) {
  const char* workspace_env = std::getenv("TEST_WORKSPACE");
  const std::string workspace =
      workspace_env != nullptr ? workspace_env : std::string(kWorkspaceName);
  const std::string in_tree = absl::StrCat(workspace, "/", path);
  std::vector<std::string> tried;
  for (const char* env : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(env)) {
      tried.push_back(absl::StrCat(dir, "/", in_tree));
    }
  }
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    tried.push_back(absl::StrCat(absl::string_view(exe, static_cast<size_t>(n)),
                                 ".runfiles/", in_tree));
  }
  tried.emplace_back(path);  // bazel run's working directory
  for (const std::string& candidate : tried) {
    if (access(candidate.c_str(), F_OK) == 0) return candidate;
  }
  return absl::NotFoundError(absl::StrCat(
      path, " is not in this program's runfiles (tried ",
      absl::StrJoin(tried, ", "), "); run it with bazel run or bazel test"));
}

}  // namespace internal
}  // namespace alloclab
