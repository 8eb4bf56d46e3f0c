// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/syscalls.h"

#include <elf.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/launch.h"
#include "common/harness/internal/subprocess.h"

namespace alloclab {

SyscallCounts operator+(const SyscallCounts& a, const SyscallCounts& b) {
  SyscallCounts sum;
  sum.mmap = a.mmap + b.mmap;
  sum.munmap = a.munmap + b.munmap;
  sum.brk = a.brk + b.brk;
  sum.madvise = a.madvise + b.madvise;
  sum.mremap = a.mremap + b.mremap;
  sum.total = a.total + b.total;
  sum.mmap_populate = a.mmap_populate + b.mmap_populate;
  sum.madvise_populate = a.madvise_populate + b.madvise_populate;
  return sum;
}

SyscallCounts operator-(const SyscallCounts& a, const SyscallCounts& b) {
  SyscallCounts diff;
  diff.mmap = a.mmap - b.mmap;
  diff.munmap = a.munmap - b.munmap;
  diff.brk = a.brk - b.brk;
  diff.madvise = a.madvise - b.madvise;
  diff.mremap = a.mremap - b.mremap;
  diff.total = a.total - b.total;
  diff.mmap_populate = a.mmap_populate - b.mmap_populate;
  diff.madvise_populate = a.madvise_populate - b.madvise_populate;
  return diff;
}

std::string FormatSyscallCounts(const SyscallCounts& counts) {
  return absl::StrFormat(
      "mmap %d\nmunmap %d\nbrk %d\nmadvise %d\nmremap %d\ntotal %d\n",
      counts.mmap, counts.munmap, counts.brk, counts.madvise, counts.mremap,
      counts.total);
}

namespace {

#if defined(__x86_64__)
constexpr uint32_t kNativeAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kNativeAuditArch = AUDIT_ARCH_AARCH64;
#else
#error "syscalls.cc knows the syscall registers of x86_64 and aarch64 only"
#endif

// The marker is a getpid() with two arguments that getpid ignores: the
// kernel leaves them in the argument registers, where the tracer reads them.
// A getpid() of `fn` itself carries whatever its registers held, which
// matches a 64-bit magic only by a very unlikely accident.
constexpr long kMarkerSyscall = SYS_getpid;
// "alloclab", read as little-endian bytes.
constexpr uint64_t kMarkerMagic = 0x62616c636f6c6c61;
constexpr uint64_t kMarkerStart = 1;
constexpr uint64_t kMarkerEnd = 2;

// Exit status of the traced child when ptrace refused it. What failed
// travels through the setup pipe as one int: minus errno for
// ptrace(PTRACE_TRACEME), errno for the exec (internal::ExecPrepared()).
constexpr int kChildSetupFailed = 126;

// Region
//
// Which system calls count: all from the root's first execve on, or only
// those between the root's start and end markers.
enum class Region { kFromExec, kBetweenMarkers };

// TracerReport
//
// The tracer process's answer, sent whole through a pipe (trivially
// copyable, no pointers).
struct TracerReport {
  int32_t code = static_cast<int32_t>(absl::StatusCode::kOk);
  char message[480] = {};
  SyscallCounts counts;
  int32_t exit_code = -1;
  int32_t term_signal = 0;
  int32_t saw_start = 0;
  int32_t saw_end = 0;
};

void Fail(TracerReport& report, absl::StatusCode code,
          absl::string_view message) {
  report.code = static_cast<int32_t>(code);
  size_t n = std::min(message.size(), sizeof(report.message) - 1);
  std::memcpy(report.message, message.data(), n);
  report.message[n] = '\0';
}

// TidState
//
// What the tracer knows of one traced thread.
struct TidState {
  // Between a syscall-entry stop and its exit stop. Used where the kernel
  // cannot say which of the two a stop is (no PTRACE_GET_SYSCALL_INFO).
  bool in_syscall = false;
  // A thread or process attached by PTRACE_O_TRACE{CLONE,FORK,VFORK}
  // starts with a SIGSTOP that the tracer, not the program, caused: it is
  // swallowed, not delivered.
  bool awaiting_initial_stop = true;
};

// SyscallStop
//
// One syscall stop, decoded.
struct SyscallStop {
  bool entry = false;
  bool native = true;  // false for a compat (e.g. 32-bit) system call
  uint64_t nr = 0;
  uint64_t arg0 = 0;
  uint64_t arg1 = 0;
  uint64_t arg2 = 0;  // madvise's advice
  uint64_t arg3 = 0;  // mmap's flags
};

// ReadRegisters()
//
// The fallback for kernels older than 5.3: the number and first four
// arguments from the register set, valid at a syscall-entry stop.
bool ReadRegisters(pid_t tid, SyscallStop& stop) {
  user_regs_struct regs;
  iovec iov = {&regs, sizeof(regs)};
  if (ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_PRSTATUS),
             &iov) != 0) {
    return false;
  }
#if defined(__x86_64__)
  stop.nr = regs.orig_rax;
  stop.arg0 = regs.rdi;
  stop.arg1 = regs.rsi;
  stop.arg2 = regs.rdx;
  stop.arg3 = regs.r10;
#elif defined(__aarch64__)
  stop.nr = regs.regs[8];
  stop.arg0 = regs.regs[0];
  stop.arg1 = regs.regs[1];
  stop.arg2 = regs.regs[2];
  stop.arg3 = regs.regs[3];
#endif
  return true;
}

// DecodeSyscallStop()
//
// Entry or exit, and at an entry the call's number and arguments. The
// kernel says which it is (PTRACE_GET_SYSCALL_INFO, Linux 5.3); without it,
// entries and exits alternate per thread, as strace assumed for decades.
SyscallStop DecodeSyscallStop(pid_t tid, TidState& state) {
  SyscallStop stop;
#ifdef PTRACE_GET_SYSCALL_INFO
  __ptrace_syscall_info info;
  std::memset(&info, 0, sizeof(info));
  long size = ptrace(PTRACE_GET_SYSCALL_INFO, tid,
                     reinterpret_cast<void*>(sizeof(info)), &info);
  if (size > 0 && info.op == PTRACE_SYSCALL_INFO_ENTRY) {
    stop.entry = true;
    stop.native = info.arch == kNativeAuditArch;
    stop.nr = info.entry.nr;
    stop.arg0 = info.entry.args[0];
    stop.arg1 = info.entry.args[1];
    stop.arg2 = info.entry.args[2];
    stop.arg3 = info.entry.args[3];
    state.in_syscall = true;
    return stop;
  }
  if (size > 0 && info.op == PTRACE_SYSCALL_INFO_EXIT) {
    state.in_syscall = false;
    return stop;
  }
#endif
  stop.entry = !state.in_syscall;
  state.in_syscall = stop.entry;
  if (stop.entry && !ReadRegisters(tid, stop)) stop.native = false;
  return stop;
}

// The advice values of Linux 5.14, for C libraries that lack them.
constexpr uint64_t kMadvPopulateRead = 22;
constexpr uint64_t kMadvPopulateWrite = 23;

void CountOne(const SyscallStop& stop, SyscallCounts& counts) {
  ++counts.total;
  switch (stop.nr) {
    case SYS_mmap:
      ++counts.mmap;
      if ((stop.arg3 & MAP_POPULATE) != 0) ++counts.mmap_populate;
      break;
    case SYS_munmap:
      ++counts.munmap;
      break;
    case SYS_brk:
      ++counts.brk;
      break;
    case SYS_madvise:
      ++counts.madvise;
      if (stop.arg2 == kMadvPopulateRead || stop.arg2 == kMadvPopulateWrite) {
        ++counts.madvise_populate;
      }
      break;
    case SYS_mremap:
      ++counts.mremap;
      break;
    default:
      break;
  }
}

bool IsExecve(uint64_t nr) { return nr == SYS_execve || nr == SYS_execveat; }

// Resume()
//
// Lets `tid` run to its next stop, delivering `signal` (0 for none). ESRCH
// means the thread died meanwhile (a SIGKILL, or another thread's exit or
// exec): its exit is reported by waitpid later, nothing is lost.
bool Resume(pid_t tid, int signal, TracerReport& report) {
  if (ptrace(PTRACE_SYSCALL, tid, nullptr,
             reinterpret_cast<void*>(static_cast<intptr_t>(signal))) == 0 ||
      errno == ESRCH) {
    return true;
  }
  Fail(report, absl::StatusCode::kInternal,
       absl::StrCat("ptrace(PTRACE_SYSCALL, ", tid,
                    ") failed: ", internal::ErrnoText(errno)));
  return false;
}

// StartTracing()
//
// Waits for `root`'s first stop (the SIGSTOP of its ptrace handshake), sets
// the tracer's options on it and lets it run. False, with `report` saying
// why, when the child never stopped or ptrace refused; the child is then
// gone or killed.
bool StartTracing(pid_t root, TracerReport& report) {
  int status = 0;
  pid_t got;
  do {
    got = waitpid(root, &status, __WALL);
  } while (got < 0 && errno == EINTR);
  if (got < 0) {
    Fail(report, absl::StatusCode::kInternal,
         absl::StrCat("waitpid for the traced child failed: ",
                      internal::ErrnoText(errno)));
    return false;
  }
  if (!WIFSTOPPED(status)) {
    // The child could not start tracing; the caller reads why from the
    // setup pipe. Keep its status in case it says nothing.
    if (WIFEXITED(status)) report.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) report.term_signal = WTERMSIG(status);
    Fail(report, absl::StatusCode::kInternal,
         absl::StrCat("the traced child ", internal::DescribeWaitStatus(status),
                      " before its first stop"));
    return false;
  }

  constexpr long kOptions = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE |
                            PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                            PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
  if (ptrace(PTRACE_SETOPTIONS, root, nullptr,
             reinterpret_cast<void*>(kOptions)) != 0) {
    Fail(report, absl::StatusCode::kFailedPrecondition,
         absl::StrCat("ptrace(PTRACE_SETOPTIONS) refused: ",
                      internal::ErrnoText(errno)));
    kill(root, SIGKILL);
    return false;
  }
  if (!Resume(root, 0, report)) {
    kill(root, SIGKILL);
    return false;
  }
  return true;
}

// IsMarker()
//
// Whether `stop`, an entry stop of `root`, is one of the program's region
// markers.
bool IsMarker(const SyscallStop& stop) {
  return stop.native && stop.nr == static_cast<uint64_t>(kMarkerSyscall) &&
         stop.arg0 == kMarkerMagic &&
         (stop.arg1 == kMarkerStart || stop.arg1 == kMarkerEnd);
}

// OnSyscallStop()
//
// A syscall stop of `tid`: opens or closes the counted region at a marker
// (kBetweenMarkers) or at root's execve (kFromExec), and counts the call's
// entry while the region is open. The markers themselves are not counted.
void OnSyscallStop(pid_t tid, pid_t root, Region region, TidState& state,
                   bool& counting, TracerReport& report) {
  SyscallStop stop = DecodeSyscallStop(tid, state);
  if (!stop.entry) return;
  if (region == Region::kBetweenMarkers && tid == root && IsMarker(stop)) {
    counting = stop.arg1 == kMarkerStart;
    (counting ? report.saw_start : report.saw_end) = 1;
    return;
  }
  if (region == Region::kFromExec && !counting && tid == root && stop.native &&
      IsExecve(stop.nr)) {
    counting = true;
  }
  if (!counting) return;
  if (stop.native) {
    CountOne(stop, report.counts);
  } else {
    ++report.counts.total;  // a compat call: other numbers
  }
}

// OnEvent()
//
// A PTRACE_EVENT stop of `tid`: keeps `tids` to the threads and processes
// that exist.
void OnEvent(pid_t tid, int event, absl::flat_hash_map<pid_t, TidState>& tids) {
  unsigned long message = 0;
  switch (event) {
    case PTRACE_EVENT_CLONE:
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
      // Register the newcomer now; if its SIGSTOP came first it is
      // already known and its flag already cleared.
      if (ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &message) == 0) {
        tids.try_emplace(static_cast<pid_t>(message));
      }
      break;
    case PTRACE_EVENT_EXEC:
      // A non-leader thread that calls execve takes over the leader's
      // id; the old id is gone without an exit report.
      if (ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &message) == 0 &&
          static_cast<pid_t>(message) != tid) {
        tids.erase(static_cast<pid_t>(message));
      }
      // The next syscall stop of this thread is execve's exit.
      tids[tid].in_syscall = true;
      tids[tid].awaiting_initial_stop = false;
      break;
    default:
      break;
  }
}

// SignalToDeliver()
//
// A signal stop of `tid` for `signal`: the signal the program gets when it
// runs on (0 for none).
int SignalToDeliver(pid_t tid, int signal, TidState& state) {
  if (signal == SIGSTOP && state.awaiting_initial_stop) {
    state.awaiting_initial_stop = false;
    return 0;
  }
  siginfo_t info;
  if (ptrace(PTRACE_GETSIGINFO, tid, nullptr, &info) != 0 && errno == EINVAL) {
    // A group-stop (SIGSTOP, SIGTSTP... to the whole process): without
    // PTRACE_SEIZE the tracer can only let the thread run on, as
    // `strace -f` does.
    return 0;
  }
  return signal;  // a signal-delivery stop: the program gets it
}

// Trace()
//
// The tracer's loop, run in the tracer process, whose only child is `root`:
// so waitpid(-1) sees exactly the traced threads and processes. Returns
// when none is left.
void Trace(pid_t root, Region region, TracerReport& report) {
  if (!StartTracing(root, report)) return;
  absl::flat_hash_map<pid_t, TidState> tids;
  tids[root].awaiting_initial_stop = false;  // its SIGSTOP was the first stop
  bool counting = false;
  while (true) {
    int status = 0;
    pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == EINTR) continue;
      if (errno == ECHILD) break;  // every traced thread is gone
      Fail(report, absl::StatusCode::kInternal,
           absl::StrCat("waitpid failed: ", internal::ErrnoText(errno)));
      return;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (tid == root) {
        report.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        report.term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      }
      tids.erase(tid);
      continue;
    }
    if (!WIFSTOPPED(status)) continue;

    // A new thread's first stop can arrive before its creator's
    // PTRACE_EVENT_CLONE: meeting it here registers it just the same.
    TidState& state = tids[tid];
    const int signal = WSTOPSIG(status);
    const int event = status >> 16;
    int deliver = 0;
    if (signal == (SIGTRAP | 0x80)) {
      OnSyscallStop(tid, root, region, state, counting, report);
    } else if (signal == SIGTRAP && event != 0) {
      OnEvent(tid, event, tids);  // may rehash: `state` is not used after
    } else {
      deliver = SignalToDeliver(tid, signal, state);
    }
    if (!Resume(tid, deliver, report)) return;
  }
}

// RunTracer()
//
// Forks the traced child, which runs `child_body` after the ptrace
// handshake, and traces it. Runs in the tracer process.
template <typename ChildBody>
TracerReport RunTracer(Region region, const internal::PreparedExec* exec,
                       int report_fd, ChildBody child_body) {
  TracerReport report;
  int setup_pipe[2];
  if (pipe2(setup_pipe, O_CLOEXEC) != 0) {
    Fail(report, absl::StatusCode::kInternal,
         absl::StrCat("pipe2 failed: ", internal::ErrnoText(errno)));
    return report;
  }
  absl::StatusOr<pid_t> forked = internal::ForkChild([&]() -> int {
    close(setup_pipe[0]);
    close(report_fd);
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) {
      const int error = -errno;
      [[maybe_unused]] ssize_t n = write(setup_pipe[1], &error, sizeof(error));
      _exit(kChildSetupFailed);
    }
    // Stop until the tracer has set its options; then the child is traced
    // from its next system call on.
    raise(SIGSTOP);
    child_body(setup_pipe[1]);
    return kChildSetupFailed;  // child_body does not return
  });
  close(setup_pipe[1]);
  if (!forked.ok()) {
    close(setup_pipe[0]);
    Fail(report, absl::StatusCode::kInternal, forked.status().message());
    return report;
  }
  const pid_t child = *forked;
  Trace(child, region, report);

  // The setup pipe is empty unless the child failed to start tracing or to
  // exec; its write end closed at exec or exit, so this read cannot block
  // once every traced process is gone.
  int error = 0;
  ssize_t n;
  do {
    n = read(setup_pipe[0], &error, sizeof(error));
  } while (n < 0 && errno == EINTR);
  close(setup_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof(error))) {
    if (error < 0) {
      Fail(report, absl::StatusCode::kFailedPrecondition,
           absl::StrCat(
               "ptrace(PTRACE_TRACEME) refused: ", internal::ErrnoText(-error),
               "; is this running under strace or gdb, or in a "
               "container or seccomp policy that forbids ptrace?"));
    } else if (exec != nullptr) {
      const absl::Status failed = internal::ExecError(*exec, error);
      Fail(report, failed.code(), failed.message());
    }
  }
  return report;
}

// RunInTracerProcess()
//
// Forks the tracer process and reads its report. A separate process keeps
// the tracer's waitpid(-1) away from the caller's other children, and its
// exit kills every tracee left (PTRACE_O_EXITKILL) whatever happens.
template <typename ChildBody>
absl::StatusOr<TracerReport> RunInTracerProcess(
    Region region, const internal::PreparedExec* exec, ChildBody child_body) {
  absl::StatusOr<internal::ChildOutput> tracer =
      internal::ForkAndRead([&](int report_fd) {
        const TracerReport report =
            RunTracer(region, exec, report_fd, child_body);
        return internal::WriteAll(report_fd, &report, sizeof(report)).ok() ? 0
                                                                           : 1;
      });
  if (!tracer.ok()) return tracer.status();
  if (tracer->data.size() != sizeof(TracerReport)) {
    return absl::InternalError(
        absl::StrCat("the tracer process ",
                     internal::DescribeWaitStatus(tracer->wait_status),
                     " without a report"));
  }
  TracerReport report;
  memcpy(&report, tracer->data.data(), sizeof(report));
  if (report.code != static_cast<int32_t>(absl::StatusCode::kOk)) {
    return absl::Status(static_cast<absl::StatusCode>(report.code),
                        report.message);
  }
  return report;
}

void Marker(uint64_t which) { syscall(kMarkerSyscall, kMarkerMagic, which); }

}  // namespace

absl::StatusOr<SyscallCounts> CountSyscallsInChild(
    absl::FunctionRef<void()> fn) {
  absl::StatusOr<TracerReport> report =
      RunInTracerProcess(Region::kBetweenMarkers, nullptr, [&fn](int setup_fd) {
        close(setup_fd);
        Marker(kMarkerStart);
        fn();
        Marker(kMarkerEnd);
        std::fflush(nullptr);  // what fn printed, after the count
        _exit(0);
      });
  if (!report.ok()) return report.status();
  if (!report->saw_start || !report->saw_end) {
    const std::string how =
        internal::DescribeExit(report->exit_code, report->term_signal);
    return absl::InternalError(absl::StrCat(
        "the function did not return in the traced child: the child ", how,
        report->saw_start ? " while the function ran" : " before it started"));
  }
  return report->counts;
}

absl::StatusOr<ProcessSyscalls> CountSyscallsOfCommand(
    const std::vector<std::string>& argv,
    const std::vector<std::string>& extra_env, std::string* stdout_text) {
  if (argv.empty()) {
    return absl::InvalidArgumentError(
        "CountSyscallsOfCommand: argv is empty, there is no program to run");
  }
  // Everything exec needs is built before fork: the child only execs.
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> env =
      internal::SplitEnvEntries(extra_env);
  if (!env.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("CountSyscallsOfCommand: ", env.status().message()));
  }
  absl::StatusOr<internal::PreparedExec> exec =
      internal::PrepareExec(argv, *env);
  if (!exec.ok()) return exec.status();

  // The program's stdout, when the caller wants it: an anonymous file that
  // the tracer process and the program inherit, read back here afterwards
  // (a pipe would need a reader while the tracer waits).
  int out_fd = -1;
  if (stdout_text != nullptr) {
    out_fd = memfd_create("alloclab-traced-stdout", MFD_CLOEXEC);
    if (out_fd < 0) {
      return absl::InternalError(
          absl::StrCat("memfd_create for the traced program's stdout failed: ",
                       internal::ErrnoText(errno)));
    }
  }
  absl::StatusOr<TracerReport> report =
      RunInTracerProcess(Region::kFromExec, &*exec, [&](int setup_fd) {
        // dup2 clears close-on-exec on the copy: the program keeps it.
        if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0) _exit(127);
        internal::ExecPrepared(*exec, setup_fd);
      });
  if (out_fd >= 0) {
    stdout_text->clear();
    char buffer[4096];
    ssize_t n = 0;
    if (lseek(out_fd, 0, SEEK_SET) == 0) {
      while ((n = read(out_fd, buffer, sizeof(buffer))) > 0 ||
             (n < 0 && errno == EINTR)) {
        if (n > 0) stdout_text->append(buffer, static_cast<size_t>(n));
      }
    }
    close(out_fd);
  }
  if (!report.ok()) return report.status();
  ProcessSyscalls result;
  result.counts = report->counts;
  result.exit_code = report->exit_code;
  result.term_signal = report->term_signal;
  return result;
}

std::string RefusedNote(absl::string_view what, const absl::Status& refused) {
  return absl::StrCat(what, ": n/a (", refused.message(), ")");
}

}  // namespace alloclab
