// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/faults.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/subprocess.h"

namespace alloclab {
namespace {

constexpr absl::string_view kPerfFull = "perf_event";
constexpr absl::string_view kPerfUser = "perf_event(user)";
constexpr absl::string_view kRusageThread = "getrusage(RUSAGE_THREAD)";
constexpr absl::string_view kRusageSelf = "getrusage(RUSAGE_SELF)";

// The setting that decides what an unprivileged perf_event_open may do, for
// error messages: without it "Permission denied" leaves the reader guessing.
std::string PerfEventParanoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int value = 0;
  if (!(in >> value)) return "perf_event_paranoid=unreadable";
  return absl::StrCat("perf_event_paranoid=", value);
}

int CurrentTid() { return static_cast<int>(syscall(SYS_gettid)); }

// Opens one software page-fault counter on the calling thread; the fd or
// -errno.
int OpenPerfCounter(uint64_t config, bool user_only) {
  perf_event_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = config;
  attr.exclude_kernel = user_only ? 1 : 0;
  attr.exclude_hv = user_only ? 1 : 0;
  // pid 0, cpu -1: this thread, on whichever CPU it runs. No inherit: the
  // count is the creating thread's alone.
  const long fd =
      syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return -errno;
  return static_cast<int>(fd);
}

struct PerfFds {
  int minor = -1;
  int major = -1;
};

// Opens the minor and major counters, both or neither.
absl::StatusOr<PerfFds> OpenPerfPair(bool user_only) {
  const char* mode = user_only ? "user only" : "user+kernel";
  const int minor = OpenPerfCounter(PERF_COUNT_SW_PAGE_FAULTS_MIN, user_only);
  if (minor < 0) {
    return absl::Status(
        absl::ErrnoToStatusCode(-minor),
        absl::StrFormat("perf_event_open(PAGE_FAULTS_MIN, %s): %s", mode,
                        internal::ErrnoText(-minor)));
  }
  const int major = OpenPerfCounter(PERF_COUNT_SW_PAGE_FAULTS_MAJ, user_only);
  if (major < 0) {
    close(minor);
    return absl::Status(
        absl::ErrnoToStatusCode(-major),
        absl::StrFormat("perf_event_open(PAGE_FAULTS_MAJ, %s): %s", mode,
                        internal::ErrnoText(-major)));
  }
  return PerfFds{minor, major};
}

absl::StatusOr<int64_t> ReadPerfCounter(int fd) {
  uint64_t value = 0;
  const ssize_t n = read(fd, &value, sizeof(value));
  if (n != static_cast<ssize_t>(sizeof(value))) {
    const int err = n < 0 ? errno : EIO;
    return absl::Status(
        absl::ErrnoToStatusCode(err),
        absl::StrCat("read(perf_event fd): ", internal::ErrnoText(err)));
  }
  return static_cast<int64_t>(value);
}

}  // namespace

FaultCounts operator-(const FaultCounts& a, const FaultCounts& b) {
  return FaultCounts{a.minor - b.minor, a.major - b.major};
}

FaultCounter::FaultCounter(FaultScope scope, std::string source_name,
                           int minor_fd, int major_fd)
    : scope_(scope),
      source_name_(std::move(source_name)),
      minor_fd_(minor_fd),
      major_fd_(major_fd),
      owner_tid_(CurrentTid()) {}

FaultCounter::FaultCounter(FaultCounter&& other) noexcept
    : scope_(other.scope_),
      source_name_(std::move(other.source_name_)),
      minor_fd_(std::exchange(other.minor_fd_, -1)),
      major_fd_(std::exchange(other.major_fd_, -1)),
      owner_tid_(other.owner_tid_) {}

FaultCounter& FaultCounter::operator=(FaultCounter&& other) noexcept {
  if (this != &other) {
    if (minor_fd_ >= 0) close(minor_fd_);
    if (major_fd_ >= 0) close(major_fd_);
    scope_ = other.scope_;
    source_name_ = std::move(other.source_name_);
    minor_fd_ = std::exchange(other.minor_fd_, -1);
    major_fd_ = std::exchange(other.major_fd_, -1);
    owner_tid_ = other.owner_tid_;
  }
  return *this;
}

FaultCounter::~FaultCounter() {
  if (minor_fd_ >= 0) close(minor_fd_);
  if (major_fd_ >= 0) close(major_fd_);
}

absl::StatusOr<FaultCounter> FaultCounter::Create(FaultScope scope,
                                                  FaultSource source) {
  const bool want_perf =
      source == FaultSource::kPerfEvent || source == FaultSource::kAuto;
  if (want_perf && scope == FaultScope::kProcess) {
    // A perf counter follows one thread: pid=getpid() is the main thread
    // only, and `inherit` adds just the threads created after the counter.
    // Neither is "the process", so say so instead of undercounting.
    if (source == FaultSource::kPerfEvent) {
      return absl::UnimplementedError(
          "perf_event_open cannot count a whole process's page faults (a "
          "counter follows one thread; inherit misses threads that already "
          "exist): use FaultScope::kThread or FaultSource::kGetrusage");
    }
  } else if (want_perf) {
    absl::StatusOr<PerfFds> full = OpenPerfPair(/*user_only=*/false);
    if (full.ok()) {
      return FaultCounter(scope, std::string(kPerfFull), full->minor,
                          full->major);
    }
    if (source == FaultSource::kPerfEvent) {
      // Unprivileged callers (perf_event_paranoid=2, user namespaces) may
      // still count the faults their code takes in user mode.
      absl::StatusOr<PerfFds> user = OpenPerfPair(/*user_only=*/true);
      if (user.ok()) {
        return FaultCounter(scope, std::string(kPerfUser), user->minor,
                            user->major);
      }
      return absl::Status(
          user.status().code(),
          absl::StrCat(full.status().message(), "; ", user.status().message(),
                       " (", PerfEventParanoid(), ")"));
    }
    // kAuto: getrusage counts every fault, which a user-only perf counter
    // would not, so fall back to it rather than to the weaker perf counter.
  }
  return FaultCounter(
      scope,
      std::string(scope == FaultScope::kThread ? kRusageThread : kRusageSelf),
      -1, -1);
}

absl::StatusOr<FaultCounts> FaultCounter::Read() const {
  if (minor_fd_ >= 0) {
    absl::StatusOr<int64_t> minor = ReadPerfCounter(minor_fd_);
    if (!minor.ok()) return minor.status();
    absl::StatusOr<int64_t> major = ReadPerfCounter(major_fd_);
    if (!major.ok()) return major.status();
    return FaultCounts{*minor, *major};
  }
  if (scope_ == FaultScope::kThread && CurrentTid() != owner_tid_) {
    // RUSAGE_THREAD would silently answer for the wrong thread.
    return absl::FailedPreconditionError(absl::StrFormat(
        "FaultCounter (%s) created on thread %d, read on thread %d: "
        "RUSAGE_THREAD counts the calling thread only",
        source_name_, owner_tid_, CurrentTid()));
  }
  rusage usage;
  const int who = scope_ == FaultScope::kThread ? RUSAGE_THREAD : RUSAGE_SELF;
  if (getrusage(who, &usage) != 0) {
    const int err = errno;
    return absl::Status(
        absl::ErrnoToStatusCode(err),
        absl::StrCat(source_name_, ": ", internal::ErrnoText(err)));
  }
  return FaultCounts{usage.ru_minflt, usage.ru_majflt};
}

}  // namespace alloclab
