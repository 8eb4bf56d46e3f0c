// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/memory.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/harness/internal/subprocess.h"
#include "common/machine/allocator_probe.h"

namespace alloclab {
namespace {

#if defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define ALLOCLAB_HAVE_MALLINFO2 1
#endif

// ParseKib()
//
// The number of a "Name:   123 kB" line of /proc/<pid>/status.
std::optional<int64_t> ParseKib(absl::string_view text, absl::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == absl::string_view::npos) end = text.size();
    absl::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (!absl::ConsumePrefix(&line, key) || !absl::ConsumePrefix(&line, ":")) {
      continue;
    }
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumeSuffix(&line, "kB")) return std::nullopt;
    int64_t value = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &value)) {
      return std::nullopt;
    }
    return value;
  }
  return std::nullopt;
}

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double TimevalSeconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// The sum of `field` over the mappings of /proc/self/smaps that `matches`
// (given the header line's start and end address and its path).
absl::StatusOr<int64_t> SumSmaps(
    absl::string_view field,
    const std::function<bool(uint64_t, uint64_t, absl::string_view)>& matches) {
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return absl::NotFoundError("cannot read /proc/self/smaps");
  bool inside = false, seen = false;
  int64_t total = 0;
  std::string line;
  while (std::getline(smaps, line)) {
    // A mapping starts with "start-end perms offset dev inode [path]".
    std::vector<absl::string_view> words =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (words.empty()) continue;
    std::vector<absl::string_view> range = absl::StrSplit(words[0], '-');
    uint64_t start = 0, end = 0;
    if (words.size() >= 5 && range.size() == 2 &&
        absl::SimpleHexAtoi(range[0], &start) &&
        absl::SimpleHexAtoi(range[1], &end)) {
      inside = matches(start, end, words.size() >= 6 ? words[5] : "");
      continue;
    }
    if (std::optional<int64_t> kib = ParseKib(line, field)) {
      seen = true;
      if (inside) total += *kib;
    }
  }
  if (!seen) {
    return absl::NotFoundError(
        absl::StrCat("/proc/self/smaps has no \"", field, ":\" line"));
  }
  return total;
}

}  // namespace

absl::StatusOr<int64_t> SmapsKibAt(const void* address,
                                   absl::string_view field) {
  const uint64_t at = reinterpret_cast<uintptr_t>(address);
  return SumSmaps(field, [at](uint64_t start, uint64_t end, absl::string_view) {
    return start <= at && at < end;
  });
}

absl::StatusOr<int64_t> SmapsKibOf(absl::string_view mapping,
                                   absl::string_view field) {
  return SumSmaps(field, [mapping](uint64_t, uint64_t, absl::string_view path) {
    return path == mapping;
  });
}

absl::StatusOr<double> ResidentKib(const void* start, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t at = reinterpret_cast<uintptr_t>(start) & ~(page - 1);
  const uintptr_t end =
      (reinterpret_cast<uintptr_t>(start) + bytes + page - 1) & ~(page - 1);
  // A stack buffer, a window at a time: no allocation, so that measuring a
  // heap does not move it.
  unsigned char present[1024];
  double pages = 0;
  while (at < end) {
    const uintptr_t n = std::min<uintptr_t>((end - at) / page, sizeof(present));
    if (mincore(reinterpret_cast<void*>(at), n * page, present) != 0) {
      const int error = errno;
      return absl::Status(absl::ErrnoToStatusCode(error),
                          absl::StrCat("mincore of ", end - at,
                                       " bytes: ", internal::ErrnoText(error)));
    }
    for (uintptr_t i = 0; i < n; ++i) pages += (present[i] & 1);
    at += n * page;
  }
  return pages * static_cast<double>(page) / 1024;
}

absl::StatusOr<MallinfoSnapshot> ReadMallinfo() {
#ifndef ALLOCLAB_HAVE_MALLINFO2
  return absl::UnimplementedError(
      "mallinfo2 is a glibc 2.33+ function; this C library does not have it");
#else
  // Through a program's own forwarding malloc (the allocation counter) to
  // the allocator that really serves it: a sanitizer's runtime, an
  // LD_PRELOAD or a linked allocator replace glibc's.
  absl::StatusOr<MallocProvider> provider = ProbeMalloc();
  if (!provider.ok()) {
    return absl::UnimplementedError(
        absl::StrCat(provider.status().message(),
                     ": mallinfo2 describes glibc's malloc only"));
  }
  if (provider->allocator != "glibc") {
    return absl::UnimplementedError(absl::StrCat(
        "malloc is served by ", provider->path,
        ", not glibc: mallinfo2 would describe glibc's unused heap"));
  }
  struct mallinfo2 info = mallinfo2();
  MallinfoSnapshot snapshot;
  snapshot.arena = info.arena;
  snapshot.hblks = info.hblks;
  snapshot.hblkhd = info.hblkhd;
  snapshot.uordblks = info.uordblks;
  snapshot.fordblks = info.fordblks;
  snapshot.keepcost = info.keepcost;
  return snapshot;
#endif
}

absl::StatusOr<ProcStatusMemory> ReadProcStatusMemory(const char* path) {
  // A stack buffer and plain read(2): no allocation, so the sampler thread
  // does not create a malloc arena or move the heap it watches.
  char buffer[16384];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    return absl::ErrnoToStatus(error, absl::StrCat("cannot open ", path));
  }
  size_t size = 0;
  while (size < sizeof(buffer)) {
    ssize_t n = read(fd, buffer + size, sizeof(buffer) - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      close(fd);
      return absl::ErrnoToStatus(error, absl::StrCat("cannot read ", path));
    }
    if (n == 0) break;
    size += static_cast<size_t>(n);
  }
  close(fd);
  absl::string_view text(buffer, size);
  std::optional<int64_t> rss = ParseKib(text, "VmRSS");
  std::optional<int64_t> hwm = ParseKib(text, "VmHWM");
  if (!rss.has_value() || !hwm.has_value()) {
    return absl::NotFoundError(absl::StrCat(
        path, " has no readable ", rss.has_value() ? "VmHWM" : "VmRSS",
        " line (a kernel thread, a process that exited, or not a "
        "/proc/<pid>/status file)"));
  }
  return ProcStatusMemory{*rss, *hwm};
}

absl::StatusOr<int64_t> MaxRssKibFromRusage() {
  rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) {
    int error = errno;
    return absl::ErrnoToStatus(error, "getrusage(RUSAGE_SELF)");
  }
  return static_cast<int64_t>(usage.ru_maxrss);  // KiB on Linux
}

absl::StatusOr<ChildUsage> WaitForChild(pid_t pid) {
  rusage usage;
  absl::StatusOr<int> wait_status = internal::WaitForPid(pid, &usage);
  if (!wait_status.ok()) return wait_status.status();
  const int status = *wait_status;
  ChildUsage result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  result.peak_rss_kib = usage.ru_maxrss;
  result.user_s = TimevalSeconds(usage.ru_utime);
  result.sys_s = TimevalSeconds(usage.ru_stime);
  result.minor_faults = usage.ru_minflt;
  result.major_faults = usage.ru_majflt;
  return result;
}

RssSampler::RssSampler(absl::Duration interval, std::string path)
    : interval_(interval), path_(std::move(path)) {}

RssSampler::~RssSampler() { Stop(); }

absl::Status RssSampler::TakeSample() {
  absl::StatusOr<ProcStatusMemory> memory = ReadProcStatusMemory(path_.c_str());
  double t_ms = static_cast<double>(SteadyNowNs() - start_ns_) / 1e6;
  std::lock_guard<std::mutex> lock(mu_);
  if (!memory.ok()) {
    if (status_.ok()) status_ = memory.status();
    return memory.status();
  }
  samples_.push_back(Sample{t_ms, memory->vm_rss_kib});
  changed_.notify_all();
  return absl::OkStatus();
}

absl::Status RssSampler::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) {
      return absl::FailedPreconditionError(
          "RssSampler::Start: already started (a sampler runs once)");
    }
    if (interval_ <= absl::ZeroDuration()) {
      return absl::FailedPreconditionError(
          absl::StrCat("RssSampler: the interval must be positive, not ",
                       absl::FormatDuration(interval_)));
    }
    started_ = true;
    // Room for a long run: growing the vector while sampling would
    // allocate from the sampling thread.
    samples_.reserve(4096);
  }
  start_ns_ = SteadyNowNs();
  if (absl::Status first = TakeSample(); !first.ok()) return first;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = true;
  }
  thread_ = std::thread([this] { Run(); });
  return absl::OkStatus();
}

void RssSampler::Run() {
  const auto interval = absl::ToChronoNanoseconds(interval_);
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Sleeps for the interval, or less if Stop() comes.
      if (stop_requested_.wait_for(lock, interval,
                                   [this] { return stopping_; })) {
        break;
      }
    }
    if (!TakeSample().ok()) break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  running_ = false;
  changed_.notify_all();
}

void RssSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
    stop_requested_.notify_all();
  }
  thread_.join();
  bool failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed = !status_.ok();
  }
  if (!failed) TakeSample().IgnoreError();  // an error lands in status_
}

bool RssSampler::WaitForSamples(size_t n, absl::Duration timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                    [this, n] { return samples_.size() >= n || !running_; });
  return samples_.size() >= n;
}

std::vector<RssSampler::Sample> RssSampler::samples() const {
  std::lock_guard<std::mutex> lock(mu_);
  return samples_;
}

size_t RssSampler::sample_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return samples_.size();
}

absl::StatusOr<int64_t> RssSampler::MaxRssKib() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!status_.ok()) return status_;
  if (samples_.empty()) {
    return absl::FailedPreconditionError(
        "RssSampler: no sample yet (call Start() first)");
  }
  int64_t max = 0;
  for (const Sample& sample : samples_) max = std::max(max, sample.rss_kib);
  return max;
}

absl::Status RssSampler::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

}  // namespace alloclab
