// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/fresh_process.h"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/launch.h"
#include "common/harness/internal/subprocess.h"
#include "common/instruments/clock.h"
#include "common/instruments/faults.h"

namespace alloclab {
namespace {

// The parent tells the new process what to run through its environment: it
// survives execve, needs no parsing of argv (which main() owns), and
// MaybeRunFreshCall() can read it before anything else happens.
constexpr char kCallEnv[] = "ALLOCLAB_FRESH_CALL";
constexpr char kArgEnv[] = "ALLOCLAB_FRESH_ARG";
constexpr char kFdEnv[] = "ALLOCLAB_FRESH_FD";
constexpr absl::string_view kEnvPrefix = "ALLOCLAB_FRESH_";
// Room for the descriptor number in kFdEnv's value (an int and its '\0').
constexpr size_t kFdRoom = 12;

// The report is line-based text: "value <key> <number>", at most one
// "fail <message>", and "done" last. A child that dies before "done" has not
// reported, whatever it wrote before.
constexpr absl::string_view kValueTag = "value";
constexpr absl::string_view kFailTag = "fail";
constexpr absl::string_view kDoneLine = "done";

using Registry = std::map<std::string, FreshCallFn, std::less<>>;

// Built on first use: registrations run during static initialization, in an
// order across files that nothing fixes. Never destroyed, so a call that
// runs during exit still finds it.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

std::string RegisteredNames() {
  std::vector<absl::string_view> names;
  for (const auto& [name, fn] : GetRegistry()) names.push_back(name);
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

// The first word of /proc/self/cmdline: the name this program was started
// under, so that the copy shows up under the same name in ps and in its own
// messages. /proc/self/exe is what gets executed either way.
std::string OwnArgv0() {
  std::string argv0;
  if (FILE* f = fopen("/proc/self/cmdline", "re")) {
    int c;
    while ((c = fgetc(f)) != EOF && c != '\0')
      argv0.push_back(static_cast<char>(c));
    fclose(f);
  }
  return argv0.empty() ? "/proc/self/exe" : argv0;
}

// A message travels on one line of the report.
std::string OneLine(absl::string_view message) {
  std::string line(message);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

bool IsValidKey(absl::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return false;
  }
  return true;
}

// Runs in the new process: everything the parent asked for, then exit. The
// report is written in one piece at the end; a crash before it is reported
// by the parent from the wait status.
[[noreturn]] void RunRequestedCall(const std::string& name,
                                   const std::string& arg, int fd) {
  FreshCall call(arg);
  Registry& registry = GetRegistry();
  auto it = registry.find(name);
  if (it == registry.end()) {
    call.Fail(
        absl::StrCat("no fresh call named '", name,
                     "' in this program; registered: ", RegisteredNames()));
  } else {
    it->second(call);
  }

  std::string report;
  for (const auto& [key, value] : call.values()) {
    absl::StrAppendFormat(&report, "%s %s %.17g\n", kValueTag, key, value);
  }
  if (!call.failure().empty()) {
    absl::StrAppend(&report, kFailTag, " ", OneLine(call.failure()), "\n");
  }
  absl::StrAppend(&report, kDoneLine, "\n");
  absl::Status written = internal::WriteAll(fd, report.data(), report.size());
  close(fd);
  // Whatever the call printed goes out; nothing else of main() or of the
  // test framework runs.
  fflush(nullptr);
  if (!written.ok()) {
    fprintf(stderr, "fresh call '%s': cannot report to the parent: %s\n",
            name.c_str(), std::string(written.message()).c_str());
    _exit(2);
  }
  _exit(0);
}

// Parses the child's report into `result`, or says what was wrong with it.
absl::Status ParseReport(absl::string_view name, absl::string_view report,
                         FreshCallResult& result) {
  bool done = false;
  std::string failure;
  for (absl::string_view line :
       absl::StrSplit(report, '\n', absl::SkipEmpty())) {
    if (done) {
      return absl::InternalError(
          absl::StrCat("fresh call '", name,
                       "' wrote after its report ended: '", line, "'"));
    }
    if (line == kDoneLine) {
      done = true;
      continue;
    }
    std::pair<absl::string_view, absl::string_view> tag_rest =
        absl::StrSplit(line, absl::MaxSplits(' ', 1));
    if (tag_rest.first == kFailTag) {
      failure = std::string(tag_rest.second);
      continue;
    }
    std::pair<absl::string_view, absl::string_view> key_value =
        absl::StrSplit(tag_rest.second, absl::MaxSplits(' ', 1));
    double value = 0;
    if (tag_rest.first != kValueTag || key_value.first.empty() ||
        !absl::SimpleAtod(key_value.second, &value)) {
      return absl::InternalError(absl::StrCat(
          "fresh call '", name, "' sent a garbled report line: '", line, "'"));
    }
    result.values[std::string(key_value.first)] = value;
  }
  if (!failure.empty()) {
    return absl::InternalError(
        absl::StrCat("fresh call '", name, "' failed: ", failure));
  }
  if (!done) {
    return absl::InternalError(absl::StrCat(
        "fresh call '", name,
        "' exited without reporting; does this program's main() call "
        "alloclab::MaybeRunFreshCall() first?"));
  }
  return absl::OkStatus();
}

}  // namespace

void FreshCall::Measure(absl::string_view label, absl::FunctionRef<void()> fn) {
  // Created before the timed region, so that opening the source is not
  // counted. getrusage(RUSAGE_THREAD) works everywhere, sandbox included,
  // and its counts are exact for this thread.
  absl::StatusOr<FaultCounter> counter =
      FaultCounter::Create(FaultScope::kThread, FaultSource::kGetrusage);
  if (!counter.ok()) {
    Fail(absl::StrCat("Measure(", label, "): ", counter.status().message()));
    return;
  }
  // The first clock read of a process maps the vDSO's data page: two
  // faults on this machine that are the instrument's, not `fn`'s. Read it
  // once before counting.
  (void)NowNs();
  absl::StatusOr<FaultCounts> before = counter->Read();
  const int64_t start = NowNs();
  fn();
  const int64_t end = NowNs();
  absl::StatusOr<FaultCounts> after = counter->Read();
  if (!before.ok() || !after.ok()) {
    const absl::Status& bad = before.ok() ? after.status() : before.status();
    Fail(absl::StrCat("Measure(", label, "): ", bad.message()));
    return;
  }
  const FaultCounts faults = *after - *before;
  Record(absl::StrCat(label, "_ns"), static_cast<double>(end - start));
  Record(absl::StrCat(label, "_minor_faults"),
         static_cast<double>(faults.minor));
  Record(absl::StrCat(label, "_major_faults"),
         static_cast<double>(faults.major));
}

void FreshCall::Record(absl::string_view key, double value) {
  // A key travels as one word of a report line.
  if (!IsValidKey(key)) {
    Fail(absl::StrCat("Record(): key '", key,
                      "' is empty or contains whitespace"));
    return;
  }
  values_[std::string(key)] = value;
}

void FreshCall::Fail(absl::string_view message) {
  // Later failures are often consequences of the first: keep them all, in
  // order.
  if (!failure_.empty()) absl::StrAppend(&failure_, "; ");
  absl::StrAppend(&failure_, message);
}

bool RegisterFreshCall(absl::string_view name, FreshCallFn fn) {
  if (!IsValidKey(name)) {
    fprintf(stderr, "RegisterFreshCall: name '%.*s' is empty or has spaces\n",
            static_cast<int>(name.size()), name.data());
    abort();
  }
  auto [it, inserted] = GetRegistry().emplace(std::string(name), fn);
  if (!inserted) {
    fprintf(stderr,
            "RegisterFreshCall: '%.*s' is registered twice; each fresh call "
            "needs its own name\n",
            static_cast<int>(name.size()), name.data());
    abort();
  }
  return true;
}

void MaybeRunFreshCall() {
  const char* name = getenv(kCallEnv);
  if (name == nullptr) return;
  const std::string call_name = name;
  const char* arg = getenv(kArgEnv);
  const std::string call_arg = arg != nullptr ? arg : "";
  const char* fd_text = getenv(kFdEnv);
  const std::string fd_string = fd_text != nullptr ? fd_text : "";
  // What this call starts must not take itself for a fresh call too.
  unsetenv(kCallEnv);
  unsetenv(kArgEnv);
  unsetenv(kFdEnv);

  int fd = -1;
  if (!absl::SimpleAtoi(fd_string, &fd) || fd < 0 || fcntl(fd, F_GETFD) < 0) {
    fprintf(stderr,
            "fresh call '%s': %s is '%s', not an open descriptor; was this "
            "process started by alloclab::RunFreshCall()?\n",
            call_name.c_str(), kFdEnv, fd_string.c_str());
    _exit(2);
  }
  // Programs the call itself executes must not hold the report pipe open.
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  RunRequestedCall(call_name, call_arg, fd);
}

absl::StatusOr<FreshCallResult> RunFreshCall(absl::string_view name,
                                             absl::string_view arg) {
  if (GetRegistry().find(name) == GetRegistry().end()) {
    return absl::NotFoundError(absl::StrCat(
        "no fresh call named '", name, "'; registered: ", RegisteredNames()));
  }
  // A copy whose main() never calls MaybeRunFreshCall() runs main() in full,
  // and would start copies of its own: refuse before that can happen.
  if (getenv(kCallEnv) != nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "RunFreshCall('", name,
        "'): this process was started as a fresh call "
        "but main() did not call alloclab::MaybeRunFreshCall() first"));
  }

  // Everything the child needs is built here: between fork and execve only
  // async-signal-safe calls are allowed (no malloc), because another thread
  // of the parent may hold a lock that the child would never see released.
  // The pipe's number is known only in the child: its entry is written
  // there, into room made here.
  absl::StatusOr<internal::PreparedExec> exec =
      internal::PrepareExec({OwnArgv0()},
                            {{kCallEnv, std::string(name)},
                             {kArgEnv, std::string(arg)},
                             {kFdEnv, std::string(kFdRoom, ' ')}},
                            {std::string(kEnvPrefix)});
  if (!exec.ok()) return exec.status();
  exec->program = "/proc/self/exe";  // this program, whatever its argv[0]
  char* fd_value = exec->MutableEnvValue(kFdEnv);

  int report_pipe[2];
  if (pipe2(report_pipe, O_CLOEXEC) != 0) {
    return absl::ErrnoToStatus(errno, "RunFreshCall: pipe2");
  }
  const int read_fd = report_pipe[0];
  const int write_fd = report_pipe[1];
  absl::StatusOr<pid_t> pid = internal::Spawn(*exec, [&] {
    fcntl(write_fd, F_SETFD, 0);  // the report pipe survives execve
    *std::to_chars(fd_value, fd_value + kFdRoom, write_fd).ptr = '\0';
  });
  close(write_fd);
  if (!pid.ok()) {
    close(read_fd);
    return pid.status();
  }
  absl::StatusOr<std::string> data = internal::ReadAll(read_fd);
  close(read_fd);
  absl::StatusOr<int> wait_status = internal::WaitForPid(*pid);
  if (!wait_status.ok()) return wait_status.status();
  if (!data.ok()) return data.status();

  FreshCallResult result;
  absl::Status parsed = ParseReport(name, *data, result);
  if (!internal::ExitedCleanly(*wait_status)) {
    // A failure it reported before dying says more than the exit alone.
    return absl::InternalError(absl::StrCat(
        "fresh call '", name, "' ", internal::DescribeWaitStatus(*wait_status),
        parsed.ok() ? "" : absl::StrCat(" (", parsed.message(), ")")));
  }
  if (!parsed.ok()) return parsed;
  return result;
}

absl::Status RunInForkedChildRaw(absl::FunctionRef<void(void* out)> fn,
                                 void* out, size_t size) {
  absl::StatusOr<internal::ChildOutput> child =
      internal::ForkAndRead([&](int write_fd) {
        // `out` is the child's own copy of the parent's object: writing it
        // changes nothing in the parent.
        fn(out);
        absl::Status written = internal::WriteAll(write_fd, out, size);
        fflush(nullptr);
        return written.ok() ? 0 : 2;
      });
  if (!child.ok()) return child.status();
  if (!internal::ExitedCleanly(child->wait_status)) {
    return absl::InternalError(absl::StrCat(
        "forked child ", internal::DescribeWaitStatus(child->wait_status)));
  }
  if (child->data.size() != size) {
    return absl::InternalError(
        absl::StrFormat("forked child sent %d bytes of a %d-byte result",
                        child->data.size(), size));
  }
  memcpy(out, child->data.data(), size);
  return absl::OkStatus();
}

}  // namespace alloclab
