// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: internal/launch.h
// -----------------------------------------------------------------------------
//
// The one way common/ and tools/ start another program: the argv and the
// child's environment built before the fork, the program found on PATH in
// the parent, an exec that fails reported to the parent in one message, and
// the files a program finds beside itself or in its runfiles. Every
// instrument that execs (child_run, fresh_process, syscalls) and the doctor
// build on it, so that a fix (an environment entry replaced twice, an exec
// error that names the wrong program, a runfiles tree laid out differently
// under `bazel test`) is made once.
//
// The code between fork and exec of a multi-threaded parent may only make
// async-signal-safe calls: no malloc. So everything is built first
// (`PrepareExec()`), and the child only calls `ExecPrepared()`, which writes
// errno to a pipe if the exec fails. `Spawn()` does fork, exec and the
// error pipe for a caller that needs no tracing between them.
//
// Internal to common/ and tools/: labs start programs through child_run
// (`RunChild`, `ProgramBesideSelf`, `FindRunfile`).
//
// Example:
//
//   absl::StatusOr<alloclab::internal::PreparedExec> exec =
//       alloclab::internal::PrepareExec({"true"}, {{"LC_ALL", "C"}});
//   if (!exec.ok()) return exec.status();
//   absl::StatusOr<pid_t> pid = alloclab::internal::Spawn(*exec, [] {});
//   // NotFound "cannot run nope (nope): No such file or directory" when
//   // argv[0] were "nope"; else wait for *pid (WaitForPid in subprocess.h).

#ifndef ALLOCLAB_COMMON_HARNESS_INTERNAL_LAUNCH_H_
#define ALLOCLAB_COMMON_HARNESS_INTERNAL_LAUNCH_H_

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace alloclab {
namespace internal {

// The Bazel workspace name, the first directory of a runfiles tree.
inline constexpr absl::string_view kWorkspaceName = "allocator_labs";

// FindOnPath()
//
// The first executable `name` in the colon-separated `path`; an empty entry
// means the current directory, as in a shell. NotFound names the PATH.
absl::StatusOr<std::string> FindOnPath(absl::string_view name,
                                       absl::string_view path);

// ResolveProgram()
//
// The file to exec for argv[0]: `name` itself when it has a slash, else its
// `FindOnPath()` in $PATH (/usr/bin:/bin when unset), else `name` unchanged
// (the exec then fails with ENOENT, and the error says so).
std::string ResolveProgram(absl::string_view name);

// PreparedExec
//
// An exec built before the fork: the resolved program, argv and the full
// environment as the C arrays execve wants. Move-only in spirit: the
// pointer arrays point into the strings, so do not copy it after building.
struct PreparedExec {
  std::string argv0;    // as the caller named it, for messages
  std::string program;  // what execve runs
  std::vector<std::string> arg_strings;
  std::vector<std::string> env_strings;
  std::vector<char*> argv;  // into arg_strings, null-terminated
  std::vector<char*> envp;  // into env_strings, null-terminated

  PreparedExec() = default;
  PreparedExec(const PreparedExec&) = delete;
  PreparedExec& operator=(const PreparedExec&) = delete;
  PreparedExec(PreparedExec&&) = default;
  PreparedExec& operator=(PreparedExec&&) = default;

  // The value of environment entry `name` in `env_strings`, writable in a
  // forked child (e.g. to fill in a descriptor number); nullptr if absent.
  // Allocates nothing.
  char* MutableEnvValue(absl::string_view name);
};

// PrepareExec()
//
// This process's environment, minus every entry whose name starts with one
// of `drop_prefixes`, with `env` entries (name, value) replacing or adding
// to it; `argv[0]` resolved by `ResolveProgram()`. InvalidArgument for an
// empty argv or an environment name that is empty or holds '='.
absl::StatusOr<PreparedExec> PrepareExec(
    const std::vector<std::string>& argv,
    const std::vector<std::pair<std::string, std::string>>& env,
    const std::vector<std::string>& drop_prefixes = {});

// SplitEnvEntries()
//
// "NAME=value" entries as (name, value) pairs; InvalidArgument names the
// first entry without a name or an '='.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
SplitEnvEntries(const std::vector<std::string>& entries);

// ExecPrepared()
//
// In a forked child: execs `exec`; if that fails, writes errno (an int) to
// `error_fd` and `_exit(127)`s. Async-signal-safe. Give it the write end of
// a close-on-exec pipe: the parent's `ReadExecError()` then sees end of file
// on a good exec.
[[noreturn]] void ExecPrepared(const PreparedExec& exec, int error_fd);

// ExecError()
//
// The one message for a failed exec of `exec` with errno `error`: NotFound
// "cannot run <argv0> (<program>): <strerror>".
absl::Status ExecError(const PreparedExec& exec, int error);

// ReadExecError()
//
// In the parent, after closing its copy of the write end: OK once the
// pipe's writers have all exec'd or exited without a word, `ExecError()`
// when `ExecPrepared()` reported a failed exec. Blocks until then.
absl::Status ReadExecError(int read_fd, const PreparedExec& exec);

// Spawn()
//
// Flushes stdio, forks; the child runs `before_exec` (async-signal-safe
// calls only: dup2, fcntl, writes into `MutableEnvValue()`) and
// `ExecPrepared()`. Returns the child's pid once it has exec'd; when the
// exec failed, reaps the child and returns `ReadExecError()`'s NotFound.
absl::StatusOr<pid_t> Spawn(const PreparedExec& exec,
                            absl::FunctionRef<void()> before_exec);

// ForkChild()
//
// Flushes stdio (or the child would print the parent's buffered output
// again) and forks; the child runs `child` and `_exit`s with its result.
// The child of a multi-threaded parent may only make async-signal-safe
// calls: no malloc, build everything before. The one fork of common/.
absl::StatusOr<pid_t> ForkChild(absl::FunctionRef<int()> child);

// ChildOutput
struct ChildOutput {
  std::string data;     // what the child wrote to its pipe
  int wait_status = 0;  // see DescribeWaitStatus() in subprocess.h
};

// ForkAndRead()
//
// Creates a close-on-exec pipe and `ForkChild()`s: the child runs `child`
// with the pipe's write end; the parent reads the pipe to its end (every
// writer, the child and anything it forked, has closed it) and waits.
absl::StatusOr<ChildOutput> ForkAndRead(absl::FunctionRef<int(int fd)> child);

// FileBesideSelf()
//
// The path of `name` in this executable's own directory (/proc/self/exe):
// where Bazel puts a target of the same package. NotFound (naming the path
// and the BUILD rule to fix) unless it exists and, with `executable`, may
// be executed.
absl::StatusOr<std::string> FileBesideSelf(absl::string_view name,
                                           bool executable);

// FindRunfile()
//
// The path of the workspace-relative `path` (e.g.
// "common/adoption/workload") in this program's runfiles: under
// $RUNFILES_DIR, $TEST_SRCDIR (`bazel test`), <exe>.runfiles (`bazel run`,
// or the binary started by hand), then relative to the working directory
// (`bazel run`'s). NotFound lists every place tried.
absl::StatusOr<std::string> FindRunfile(absl::string_view path);

}  // namespace internal
}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_HARNESS_INTERNAL_LAUNCH_H_
