// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/instruments/memory.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::HasSubstr;

constexpr size_t kMiB = size_t{1} << 20;
constexpr int64_t kKibPerMiB = 1024;

// Keeps the compiler from deleting a malloc whose result is unused.
void* volatile g_sink;

// A private anonymous mapping, every page written: `bytes` of resident
// memory that malloc knows nothing about (so these tests leave glibc's mmap
// threshold alone).
class TouchedBuffer {
 public:
  explicit TouchedBuffer(size_t bytes) : bytes_(bytes) {
    data_ = static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (data_ == MAP_FAILED) std::abort();
    std::memset(data_, 0x5a, bytes);
  }
  ~TouchedBuffer() { munmap(data_, bytes_); }

 private:
  char* data_;
  size_t bytes_;
};

// A private anonymous mapping of `bytes` in base pages only (no THP, so
// that the pages resident are the pages written), its first `written` pages
// written; MAP_FAILED when mmap fails.
void* MapBasePagesWriting(size_t bytes, size_t written) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return p;
  madvise(p, bytes, MADV_NOHUGEPAGE);
  for (size_t i = 0; i < written; ++i) {
    static_cast<volatile char*>(p)[i * page] = 1;
  }
  return p;
}

// How far one read of the resident set may be from the truth. What the
// kernel promises: RSS is the sum of three counters (file, anon, shmem
// pages); since Linux 6.2 each is a per-CPU counter read without its
// per-CPU parts (percpu_counter_read_positive), so it lags by up to
// batch * CPUs pages, the batch being max(32, 2 * CPUs)
// (lib/percpu_counter.c); before 6.2 each thread cached up to 64 events
// per counter. VmRSS, VmHWM and ru_maxrss are all computed from that sum
// when read (the last two as max(high-water mark, sum)), so two reads of
// them can disagree by up to this much each. On the 2-CPU course machine:
// 3 * 2 * 64 pages, 1.5 MiB.
int64_t RssReadSlackKib() {
  const int64_t cpus = std::max<int64_t>(1, sysconf(_SC_NPROCESSORS_CONF));
  const int64_t page_kib = sysconf(_SC_PAGESIZE) / 1024;
  return 3 * cpus * std::max<int64_t>(64, 2 * cpus) * page_kib;
}

TEST(MallinfoTest, BigMallocHasItsOwnMapping) {
  absl::StatusOr<MallinfoSnapshot> before = ReadMallinfo();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // A sanitizer's allocator serves malloc: glibc's totals would be a heap
  // nobody uses, and the instrument must say so rather than answer.
  EXPECT_EQ(before.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(before.status().message(), HasSubstr("not glibc"));
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_THAT(before.status().message(), HasSubstr("libasan"));
#else
  EXPECT_THAT(before.status().message(), HasSubstr("libtsan"));
#endif
#else
  ASSERT_TRUE(before.ok()) << before.status();
  // 8 MiB is far above the mmap threshold (128 KiB at start, at most
  // 32 MiB): glibc maps the block by itself.
  constexpr size_t kBytes = 8 * kMiB;
  void* block = std::malloc(kBytes);
  ASSERT_NE(block, nullptr);
  g_sink = block;
  absl::StatusOr<MallinfoSnapshot> during = ReadMallinfo();
  std::free(block);
  absl::StatusOr<MallinfoSnapshot> after = ReadMallinfo();
  ASSERT_TRUE(during.ok()) << during.status();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(during->hblks, before->hblks + 1);
  EXPECT_GE(during->hblkhd, before->hblkhd + kBytes);
  EXPECT_EQ(after->hblks, before->hblks);
  EXPECT_EQ(after->hblkhd, before->hblkhd);
#endif
}

TEST(ProcStatusTest, TouchingMemoryRaisesRss) {
  // Large against the counters' slack, so that the bounds below say
  // something on a machine of any size: 32 MiB, or four times the slack.
  const int64_t slack_kib = RssReadSlackKib();
  const int64_t buffer_kib = std::max<int64_t>(32 * kKibPerMiB, 4 * slack_kib);
  absl::StatusOr<ProcStatusMemory> before = ReadProcStatusMemory();
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_GT(before->vm_rss_kib, 0);
  // One read computes both from the same sum: exact.
  EXPECT_GE(before->vm_hwm_kib, before->vm_rss_kib);

  TouchedBuffer buffer(static_cast<size_t>(buffer_kib) * 1024);
  absl::StatusOr<ProcStatusMemory> during = ReadProcStatusMemory();
  ASSERT_TRUE(during.ok()) << during.status();
  EXPECT_GE(during->vm_rss_kib, before->vm_rss_kib + buffer_kib - 2 * slack_kib)
      << buffer_kib << " KiB written, slack " << slack_kib << " KiB per read";
  EXPECT_GE(during->vm_hwm_kib, during->vm_rss_kib);

  // ru_maxrss is the same high-water mark, read later: at least what
  // VmHWM said, give or take the two reads' slack.
  absl::StatusOr<int64_t> max_rss = MaxRssKibFromRusage();
  ASSERT_TRUE(max_rss.ok()) << max_rss.status();
  EXPECT_GE(*max_rss + 2 * slack_kib, during->vm_hwm_kib)
      << "slack " << slack_kib << " KiB per read";
  EXPECT_GE(*max_rss, before->vm_rss_kib + buffer_kib - 2 * slack_kib);
}

TEST(ProcStatusTest, ErrorsNameTheFile) {
  absl::StatusOr<ProcStatusMemory> missing =
      ReadProcStatusMemory("/nonexistent/alloclab/status");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("/nonexistent/alloclab/status"));

  std::string path = ::testing::TempDir() + "/not_a_status_file";
  FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("Name:\tkthreadd\nVmHWM:\t  12 kB\n", file);
  std::fclose(file);
  absl::StatusOr<ProcStatusMemory> no_rss = ReadProcStatusMemory(path.c_str());
  EXPECT_EQ(no_rss.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(no_rss.status().message(), HasSubstr(path));
  EXPECT_THAT(no_rss.status().message(), HasSubstr("VmRSS"));
}

TEST(ProcStatusTest, ParsesAWellFormedFile) {
  std::string path = ::testing::TempDir() + "/status";
  FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t    1024 kB\n", file);
  std::fclose(file);
  absl::StatusOr<ProcStatusMemory> memory = ReadProcStatusMemory(path.c_str());
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_EQ(memory->vm_rss_kib, 1024);
  EXPECT_EQ(memory->vm_hwm_kib, 20480);
}

TEST(WaitForChildTest, ReportsThePeakOfAChild) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    { TouchedBuffer buffer(32 * kMiB); }
    _exit(7);
  }
  absl::StatusOr<ChildUsage> usage = WaitForChild(pid);
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_EQ(usage->exit_code, 7);
  EXPECT_EQ(usage->term_signal, 0);
  EXPECT_GE(usage->peak_rss_kib, 30 * kKibPerMiB);

  // Waited for already: no longer a child to wait for.
  EXPECT_EQ(WaitForChild(pid).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(WaitForChildTest, ReportsTheSignal) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    raise(SIGKILL);
    _exit(0);
  }
  absl::StatusOr<ChildUsage> usage = WaitForChild(pid);
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_EQ(usage->term_signal, SIGKILL);
  EXPECT_EQ(usage->exit_code, -1);
}

TEST(RssSamplerTest, SeesMemoryHeldForTwoSamples) {
  absl::StatusOr<ProcStatusMemory> baseline = ReadProcStatusMemory();
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  RssSampler sampler(absl::Milliseconds(1));
  ASSERT_TRUE(sampler.Start().ok());
  {
    TouchedBuffer buffer(32 * kMiB);
    // A sample counted now may have read /proc before the touch ended;
    // the one after it cannot have.
    size_t touched_at = sampler.sample_count();
    ASSERT_TRUE(sampler.WaitForSamples(touched_at + 2, absl::Seconds(30)));
  }
  sampler.Stop();
  absl::StatusOr<int64_t> max = sampler.MaxRssKib();
  ASSERT_TRUE(max.ok()) << max.status();
  EXPECT_GE(*max, baseline->vm_rss_kib + 30 * kKibPerMiB);

  std::vector<RssSampler::Sample> samples = sampler.samples();
  ASSERT_GE(samples.size(), 3);
  for (size_t i = 1; i < samples.size(); ++i) {
    EXPECT_GE(samples[i].t_ms, samples[i - 1].t_ms);
  }
  // Stopped: no more samples come.
  EXPECT_EQ(sampler.sample_count(), samples.size());
  EXPECT_FALSE(sampler.WaitForSamples(samples.size() + 1, absl::Seconds(1)));
}

TEST(RssSamplerTest, RunsOnce) {
  RssSampler sampler(absl::Milliseconds(1));
  EXPECT_EQ(sampler.MaxRssKib().status().code(),
            absl::StatusCode::kFailedPrecondition);
  sampler.Stop();  // not started: harmless
  ASSERT_TRUE(sampler.Start().ok());
  EXPECT_EQ(sampler.Start().code(), absl::StatusCode::kFailedPrecondition);
  sampler.Stop();
  sampler.Stop();
  EXPECT_TRUE(sampler.MaxRssKib().ok());
  EXPECT_TRUE(sampler.status().ok());
}

TEST(RssSamplerTest, ReportsAnUnreadableSource) {
  RssSampler sampler(absl::Milliseconds(1), "/nonexistent/alloclab/status");
  absl::Status status = sampler.Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("/nonexistent/alloclab/status"));
  EXPECT_EQ(sampler.sample_count(), 0);
  EXPECT_EQ(sampler.MaxRssKib().status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(sampler.WaitForSamples(1, absl::Seconds(1)));
}

TEST(RssSamplerTest, RejectsANonPositiveInterval) {
  RssSampler sampler(absl::ZeroDuration());
  EXPECT_EQ(sampler.Start().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(SmapsTest, CountsTheTouchedPagesOfOneMapping) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = 16 * page;
  void* p = MapBasePagesWriting(bytes, 5);
  ASSERT_NE(p, MAP_FAILED);
  absl::StatusOr<int64_t> rss = SmapsKibAt(p, "Rss");
  munmap(p, bytes);
  ASSERT_TRUE(rss.ok()) << rss.status();
  EXPECT_EQ(*rss, static_cast<int64_t>(5 * page / 1024));
}

TEST(ResidentKibTest, CountsTheWrittenPages) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = 16 * page;
  void* p = MapBasePagesWriting(bytes, 3);
  ASSERT_NE(p, MAP_FAILED);
  absl::StatusOr<double> kib = ResidentKib(p, bytes);
  munmap(p, bytes);
  ASSERT_TRUE(kib.ok()) << kib.status();
  EXPECT_EQ(*kib, static_cast<double>(3 * page) / 1024);
  absl::StatusOr<double> gone = ResidentKib(p, bytes);
  EXPECT_FALSE(gone.ok());
}

TEST(SmapsTest, NamesAMissingField) {
  absl::StatusOr<int64_t> none = SmapsKibOf("[heap]", "NoSuchField");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("NoSuchField"));
  absl::StatusOr<int64_t> nowhere = SmapsKibOf("[no such mapping]", "Rss");
  ASSERT_TRUE(nowhere.ok()) << nowhere.status();
  EXPECT_EQ(*nowhere, 0);
}

}  // namespace
}  // namespace alloclab
