// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The check of lab first_call, written against task.h only. It is linked
// against the reference (solution_test), the starter (starter_test) and the
// known-bad solutions in this folder, which it must reject.
//
// Everything asserted is a count or a byte: page faults (from getrusage,
// which sees the faults a populate takes on the program's behalf; perf's
// event does not), system calls, sizes, checksums. Nothing depends on how
// fast the machine is. Expected faults are computed from the page size,
// never from 4096.
//
// The method a solution reports is checked against what it did: the
// populate calls the syscall counter saw, and whether the faults were the
// program's own writes (perf sees those) or the kernel's populate (only
// getrusage sees those). A test also runs it where the kernel refuses
// MADV_POPULATE_WRITE with EINVAL, as kernels before 5.14 do, through a
// seccomp filter: the real call, the real refusal.

#include "labs/first_call/task.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/faults.h"
#include "common/instruments/memory.h"
#include "common/instruments/proc_maps.h"
#include "common/instruments/refuse_syscall.h"
#include "common/instruments/syscalls.h"
#include "common/testing/message_matchers.h"
#include "common/testing/sizes_at_the_top.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace first_call {

// GoogleTest prints a failed comparison of methods by name.
void PrintTo(PrefaultMethod method, std::ostream* os) {
  *os << PrefaultMethodName(method);
}

namespace {

volatile uint64_t g_sink;

// The lab's byte stream, written independently of baseline.cc and
// common/stats/pseudo_random.cc, so that a slip there shows here: xorshift64
// from `seed ^ golden ratio`, one state per 8 bytes in host byte order, the
// tail from the low bytes of one more state.
std::vector<uint8_t> ExpectedBytes(uint64_t seed, size_t size) {
  std::vector<uint8_t> bytes(size);
  uint64_t state = seed ^ 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < size; i += 8) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    if (i + 8 <= size) {
      std::memcpy(&bytes[i], &state, 8);
      continue;
    }
    for (size_t k = 0; i + k < size; ++k) {
      bytes[i + k] = static_cast<uint8_t>(state >> (8 * k));
    }
  }
  return bytes;
}

absl::StatusOr<alloclab::FaultCounter> ThreadFaults() {
  // getrusage on purpose: see the file comment.
  return alloclab::FaultCounter::Create(alloclab::FaultScope::kThread,
                                        alloclab::FaultSource::kGetrusage);
}

// How many of the pages that `memory` spans are present and this process's
// own, from /proc/self/pagemap: bit 63 (present) and bit 56 (mapped only
// here). A page that was only read is present too, but as the kernel's
// shared zero page, which is never exclusive: its first write still faults.
absl::StatusOr<size_t> OwnPresentPages(absl::Span<const uint8_t> memory) {
  const uintptr_t start =
      reinterpret_cast<uintptr_t>(memory.data()) / PageBytes();
  const uintptr_t end = (reinterpret_cast<uintptr_t>(memory.data()) +
                         memory.size() + PageBytes() - 1) /
                        PageBytes();
  std::vector<uint64_t> entries(end - start);
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::UnavailableError("cannot open /proc/self/pagemap");
  const size_t want = entries.size() * sizeof(uint64_t);
  const ssize_t got = pread(fd, entries.data(), want,
                            static_cast<off_t>(start * sizeof(uint64_t)));
  close(fd);
  if (got != static_cast<ssize_t>(want)) {
    return absl::UnavailableError("short read of /proc/self/pagemap");
  }
  size_t own = 0;
  for (uint64_t entry : entries) {
    if ((entry >> 63 & 1) != 0 && (entry >> 56 & 1) != 0) ++own;
  }
  return own;
}

// --- The premise, in fresh processes -----------------------------------------

// A program that maps its buffer and calls Work() with nothing prepared.
void ColdFirstCall(alloclab::FreshCall& call) {
  absl::StatusOr<absl::Span<uint8_t>> buffer = MapBuffer(kBufferBytes);
  if (!buffer.ok()) {
    call.Fail(buffer.status().ToString());
    return;
  }
  call.Measure("first_call", [&] { g_sink = Work(1, *buffer); });
  UnmapBuffer(*buffer);
}
ALLOCLAB_FRESH_CALL("first_call_test_cold", ColdFirstCall);

// A program that prepares its buffer with the task at start-up. Work()'s
// code runs once first, on the stack, so that its own first execution is
// not what the measured call pays.
void PreparedFirstCall(alloclab::FreshCall& call) {
  uint8_t scratch[64];
  g_sink = Work(0, absl::MakeSpan(scratch));
  absl::StatusOr<PreparedBuffer> buffer =
      absl::UnknownError("PrepareBuffer() did not run");
  call.Measure("prefault", [&] { buffer = PrepareBuffer(kBufferBytes); });
  if (!buffer.ok()) {
    call.Fail(buffer.status().ToString());
    return;
  }
  uint64_t sum = 0;
  call.Measure("first_call", [&] { sum = Work(1, buffer->memory); });
  call.Record("checksum_ok", Checksum(buffer->memory) == sum ? 1 : 0);
  ReleaseBuffer(*buffer);
}
ALLOCLAB_FRESH_CALL("first_call_test_prepared", PreparedFirstCall);

TEST(FirstCallPremise, ColdFirstCallFaultsOnEveryPage) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("first_call_test_cold");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->values.at("first_call_minor_faults"),
            static_cast<double>(PagesIn(kBufferBytes)))
      << "a first Work() on " << kBufferBytes << " mapped bytes ("
      << PagesIn(kBufferBytes) << " pages of " << PageBytes()
      << " bytes) must fault on each page";
}

TEST(PrepareBufferFresh, PreparationPaysEveryPageAtStartUp) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("first_call_test_prepared");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->values.at("prefault_minor_faults"),
            static_cast<double>(PagesIn(kBufferBytes)))
      << "PrepareBuffer() made fewer page faults than the buffer has pages: "
         "some pages are still left for the first call";
  EXPECT_EQ(r->values.at("checksum_ok"), 1.0)
      << "the first Work() on the prepared buffer must give Work()'s "
         "checksum: the buffer is readable and writable";
}

// --- The task, in this process -----------------------------------------------

class PrepareBufferSizeTest : public testing::TestWithParam<size_t> {};

TEST(PrepareBufferTest, RejectsZeroBytes) {
  absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(0);
  EXPECT_EQ(buffer.status().code(), absl::StatusCode::kInvalidArgument)
      << "PrepareBuffer(0) is InvalidArgument; it returned " << buffer.status();
}

// The top of size_t (common/testing/sizes_at_the_top.h): no mapping can hold
// these, so "another error ... when no memory could be had" (task.h), never a
// buffer of a page count that wrapped around, nor a std::bad_alloc or
// std::length_error from a vector sized with them (GoogleTest reports the
// exception as this test's failure).
TEST(PrepareBufferTopOfSizeTest, IsAnErrorNotABuffer) {
  for (const alloclab::TopSize& size : alloclab::SizesAtTheTop()) {
    absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(size.bytes);
    EXPECT_FALSE(buffer.ok())
        << "PrepareBuffer(" << size.what << " = " << size.bytes << ") is an "
        << "error when no memory could be had (task.h); it returned a buffer "
        << "of " << buffer->memory.size() << " bytes";
    if (buffer.ok()) ReleaseBuffer(*buffer);
  }
}

TEST(PrepareBufferTest, SaysWhichMethodItUsed) {
  absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(kBufferBytes);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  EXPECT_NE(buffer->method, PrefaultMethod::kNone)
      << "PrepareBuffer() reports that it prepared nothing";
  EXPECT_NE(PrefaultMethodName(buffer->method), "unknown")
      << "`method` is one of PrefaultMethod's values";
  ReleaseBuffer(*buffer);
}

// The faults a first Work() on a prepared buffer of `bytes` may still take
// that no preparation can avoid: none, except under AddressSanitizer, which
// reads one shadow byte per 8 bytes written, and the shadow of new memory
// is itself new (one fault per shadow page, plus one for a straddle).
int64_t UnavoidableFaults(size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  return static_cast<int64_t>(PagesIn(bytes / 8 + 1) + 1);
#else
  (void)bytes;
  return 0;
#endif
}

TEST_P(PrepareBufferSizeTest, FirstCallMakesNoPageFault) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer's shadow of new memory is larger than the "
                  "memory itself, so its first use faults more than the "
                  "buffer would; build without --config=tsan to check this";
#endif
  const size_t bytes = GetParam();
  // Work()'s code and this stack are warm: only the buffer can fault.
  std::vector<uint8_t> scratch(bytes);
  g_sink = Work(0, absl::MakeSpan(scratch));
  absl::StatusOr<alloclab::FaultCounter> faults = ThreadFaults();
  ASSERT_TRUE(faults.ok()) << faults.status();

  absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(bytes);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  ASSERT_EQ(buffer->memory.size(), bytes)
      << "PrepareBuffer(bytes) gives exactly the bytes asked for";
  uint64_t sum = 0;
  absl::StatusOr<alloclab::FaultCounts> during =
      alloclab::FaultsDuring(*faults, [&] { sum = Work(7, buffer->memory); });
  ASSERT_TRUE(during.ok()) << during.status();
  // Exact on this course's machines; a host with automatic NUMA balancing
  // (its hint faults) or under swap pressure could add faults here.
  EXPECT_LE(during->minor, UnavoidableFaults(bytes))
      << "the first Work() on a prepared buffer of " << bytes << " bytes ("
      << PagesIn(bytes) << " pages) still faulted; method "
      << PrefaultMethodName(buffer->method);
  EXPECT_EQ(sum, Checksum(buffer->memory))
      << "the buffer holds what Work() wrote: it is readable and writable";
  ReleaseBuffer(*buffer);
}

INSTANTIATE_TEST_SUITE_P(Sizes, PrepareBufferSizeTest,
                         testing::Values(kBufferBytes, size_t{1},
                                         3 * PageBytes() + 1,
                                         16 * PageBytes() + PageBytes() / 2),
                         [](const testing::TestParamInfo<size_t>& info) {
                           return absl::StrCat(info.param, "_bytes");
                         });

TEST(PrepareBufferTest, EveryPageIsPresentForWriting) {
  absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(kBufferBytes);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  absl::StatusOr<size_t> own = OwnPresentPages(buffer->memory);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(*own, PagesIn(kBufferBytes))
      << PagesIn(kBufferBytes) - *own << " of " << PagesIn(kBufferBytes)
      << " pages are absent or the shared zero page (read, not written); "
         "method "
      << PrefaultMethodName(buffer->method);
  ReleaseBuffer(*buffer);
}

TEST(PrepareBufferTest, GivesExactlyTheBytesAskedFor) {
  for (size_t bytes : {size_t{1}, PageBytes() - 1, PageBytes(), PageBytes() + 1,
                       kBufferBytes}) {
    absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(bytes);
    ASSERT_TRUE(buffer.ok()) << bytes << " bytes: " << buffer.status();
    EXPECT_EQ(buffer->memory.size(), bytes)
        << "PrepareBuffer(bytes) gives exactly the bytes asked for";
    EXPECT_NE(buffer->memory.data(), nullptr)
        << "PrepareBuffer(" << bytes << ") gave no memory";
    ReleaseBuffer(*buffer);
  }
}

TEST(PrepareBufferTest, BuffersHoldWhatTheCallWrote) {
  absl::StatusOr<PreparedBuffer> a = PrepareBuffer(kBufferBytes);
  absl::StatusOr<PreparedBuffer> b = PrepareBuffer(kBufferBytes);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  const uintptr_t a_start = reinterpret_cast<uintptr_t>(a->memory.data());
  const uintptr_t b_start = reinterpret_cast<uintptr_t>(b->memory.data());
  EXPECT_TRUE(a_start + kBufferBytes <= b_start ||
              b_start + kBufferBytes <= a_start)
      << "two live buffers share memory";

  const uint64_t a_sum = Work(11, a->memory);
  const uint64_t b_sum = Work(12, b->memory);
  EXPECT_NE(a_sum, b_sum) << "setup: two seeds gave one checksum";
  EXPECT_EQ(Checksum(a->memory), a_sum)
      << "a buffer of its own holds what its Work() wrote (buffer a)";
  EXPECT_EQ(Checksum(b->memory), b_sum)
      << "a buffer of its own holds what its Work() wrote (buffer b)";
  const std::vector<uint8_t> a_bytes(a->memory.begin(), a->memory.end());
  EXPECT_TRUE(a_bytes == ExpectedBytes(11, kBufferBytes))
      << "buffer a does not hold the bytes Work(11) wrote";
  ReleaseBuffer(*a);
  ReleaseBuffer(*b);
}

TEST(PrepareBufferTest, ReleaseEmptiesTheBuffer) {
  absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(kBufferBytes);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  ReleaseBuffer(*buffer);
  EXPECT_TRUE(buffer->memory.empty())
      << "ReleaseBuffer() leaves `memory` empty";
  EXPECT_EQ(buffer->method, PrefaultMethod::kNone)
      << "ReleaseBuffer() leaves `method` kNone";
  ReleaseBuffer(*buffer);  // an empty buffer: nothing happens
  EXPECT_TRUE(buffer->memory.empty())
      << "releasing an empty buffer does nothing";
}

TEST(PrepareBufferTest, ReleaseGivesTheMemoryBack) {
  constexpr int kCycles = 256;  // 64 MiB if none of it came back
  const absl::StatusOr<alloclab::ProcStatusMemory> before =
      alloclab::ReadProcStatusMemory();
  ASSERT_TRUE(before.ok()) << before.status();
  for (int i = 0; i < kCycles; ++i) {
    absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(kBufferBytes);
    ASSERT_TRUE(buffer.ok()) << buffer.status();
    g_sink = Work(static_cast<uint64_t>(i), buffer->memory);
    ReleaseBuffer(*buffer);
  }
  const absl::StatusOr<alloclab::ProcStatusMemory> after =
      alloclab::ReadProcStatusMemory();
  ASSERT_TRUE(after.ok()) << after.status();
  const int64_t grown_kib = after->vm_rss_kib - before->vm_rss_kib;
  EXPECT_LT(grown_kib, static_cast<int64_t>(16 * kBufferBytes / 1024))
      << kCycles << " prepared and released buffers left " << grown_kib
      << " KiB more resident";
}

// --- The method reported, against what was done -----------------------------

// Linux 5.14's advice, for C libraries that lack it.
constexpr uint32_t kMadvPopulateWrite = 23;

// Observed
//
// What a child saw around one PrepareBuffer(kBufferBytes), written to
// memory it shares with the test. -1: not measured.
struct Observed {
  int prepared = 0;  // PrepareBuffer() returned a buffer
  PrefaultMethod method = PrefaultMethod::kNone;
  int64_t all_faults = -1;   // getrusage: writes and the kernel's populate
  int64_t user_faults = -1;  // perf_event: the program's own accesses only
  int64_t own_pages = -1;    // present and writable afterwards (pagemap)
  int64_t first_call_faults = -1;
  // Bytes mapped outside the brk heap after ReleaseBuffer(), less before
  // PrepareBuffer(), where /proc/self/maps could be read (mapped_read).
  int64_t mapped_growth = 0;
  int mapped_read = 0;
  absl::StatusCode code = absl::StatusCode::kOk;  // PrepareBuffer()'s
  char error[256] = {};
};

void SetError(Observed& seen, absl::string_view what) {
  std::snprintf(seen.error, sizeof(seen.error), "%.*s",
                static_cast<int>(what.size()), what.data());
}

// Faults of this thread by one source, or -1 where it is unavailable.
int64_t MinorFaults(const absl::StatusOr<alloclab::FaultCounter>& counter) {
  if (!counter.ok()) return -1;
  absl::StatusOr<alloclab::FaultCounts> counts = counter->Read();
  return counts.ok() ? counts->minor : -1;
}

// Bytes of this process's mappings but the brk heap (which malloc grows as
// it likes), from /proc/self/maps; -1 where it cannot be read.
int64_t MappedBytesOutsideHeap() {
  int64_t bytes = 0;
  const absl::Status read =
      alloclab::ForEachMapping([&](const alloclab::Mapping& m) {
        if (m.name != "[heap]") bytes += static_cast<int64_t>(m.end - m.start);
      });
  return read.ok() ? bytes : -1;
}

// In the child: prepares a buffer, recording what it cost and what it left.
// `refusal` (an errno, 0 for none) is the kernel's answer to every
// madvise(MADV_POPULATE_WRITE).
void PrepareAndObserve(int refusal, Observed& seen) {
  if (refusal != 0) {
    const absl::Status refused =
        alloclab::RefuseSyscall({.nr = SYS_madvise,
                                 .arg = 2,
                                 .arg_value = kMadvPopulateWrite,
                                 .error = refusal});
    if (!refused.ok()) {
      SetError(seen, refused.ToString());
      return;
    }
  }
  std::vector<uint8_t> scratch(kBufferBytes);
  g_sink = Work(0, absl::MakeSpan(scratch));  // Work()'s code, warm
  const absl::StatusOr<alloclab::FaultCounter> all = ThreadFaults();
  const absl::StatusOr<alloclab::FaultCounter> user =
      alloclab::FaultCounter::Create(alloclab::FaultScope::kThread,
                                     alloclab::FaultSource::kPerfEvent);
  // Before the fault counts start: reading /proc/self/maps faults too
  // (stdio's buffer; under a sanitizer, its shadow).
  const int64_t mapped_before = MappedBytesOutsideHeap();
  const int64_t all_before = MinorFaults(all);
  const int64_t user_before = MinorFaults(user);
  absl::StatusOr<PreparedBuffer> buffer = PrepareBuffer(kBufferBytes);
  const int64_t all_after = MinorFaults(all);
  const int64_t user_after = MinorFaults(user);
  if (!buffer.ok()) {
    seen.code = buffer.status().code();
    SetError(seen, buffer.status().ToString());
    return;
  }
  seen.prepared = 1;
  seen.method = buffer->method;
  if (all_before >= 0 && all_after >= 0)
    seen.all_faults = all_after - all_before;
  if (user_before >= 0 && user_after >= 0) {
    seen.user_faults = user_after - user_before;
  }
  absl::StatusOr<size_t> own = OwnPresentPages(buffer->memory);
  if (own.ok()) seen.own_pages = static_cast<int64_t>(*own);
  const int64_t before_call = MinorFaults(all);
  g_sink = Work(1, buffer->memory);
  const int64_t after_call = MinorFaults(all);
  if (before_call >= 0 && after_call >= 0) {
    seen.first_call_faults = after_call - before_call;
  }
  ReleaseBuffer(*buffer);
  const int64_t mapped_after = MappedBytesOutsideHeap();
  if (mapped_before >= 0 && mapped_after >= 0) {
    seen.mapped_growth = mapped_after - mapped_before;
    seen.mapped_read = 1;
  }
}

// Runs PrepareAndObserve() in a traced child; `counts` gets its system calls.
absl::StatusOr<Observed> ObservePrepare(int refusal,
                                        alloclab::SyscallCounts& counts) {
  void* shared = mmap(nullptr, sizeof(Observed), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    return absl::InternalError(absl::StrCat("mmap: ", std::strerror(errno)));
  }
  Observed* seen = new (shared) Observed();
  absl::StatusOr<alloclab::SyscallCounts> counted =
      alloclab::CountSyscallsInChild(
          [&] { PrepareAndObserve(refusal, *seen); });
  const Observed copy = *seen;
  munmap(shared, sizeof(Observed));
  if (!counted.ok()) return counted.status();
  counts = *counted;
  return copy;
}

// The reported method agrees with what the counters saw.
void ExpectMethodMatches(const Observed& seen,
                         const alloclab::SyscallCounts& counts) {
  const int64_t pages = static_cast<int64_t>(PagesIn(kBufferBytes));
  const std::string said = absl::StrCat(
      "PrepareBuffer() reports ", PrefaultMethodName(seen.method), "; it made ",
      counts.madvise_populate, " madvise(MADV_POPULATE_*) and ",
      counts.mmap_populate,
      " mmap(MAP_POPULATE), and its own accesses faulted ", seen.user_faults,
      " times (-1: perf unavailable) on ", pages, " pages");
  switch (seen.method) {
    case PrefaultMethod::kNone:
      ADD_FAILURE() << said << ": it says it prepared nothing";
      return;
    case PrefaultMethod::kMadvisePopulateWrite:
      EXPECT_GE(counts.madvise_populate, 1) << said;
      break;
    case PrefaultMethod::kMapPopulate:
      EXPECT_GE(counts.mmap_populate, 1) << said;
      break;
    case PrefaultMethod::kTouch:
      break;
  }
  if (seen.user_faults < 0) {
    std::cout << "note: perf_event is unavailable here, so whether the "
                 "program's own writes or the kernel made the pages present "
                 "is not checked\n";
    return;
  }
  if (seen.method == PrefaultMethod::kTouch) {
    // mTHP would let one write fault map many pages: the buffer asks for
    // base pages (MapBuffer, MADV_NOHUGEPAGE).
    EXPECT_GE(seen.user_faults, pages)
        << said << ": a touch is the program's own write to every page";
  } else {
    EXPECT_LT(seen.user_faults, pages)
        << said
        << ": a populate is the kernel's work, not the program's "
           "writes";
  }
}

TEST(PrepareBufferMethod, ReportsWhatItDid) {
  alloclab::SyscallCounts counts;
  absl::StatusOr<Observed> seen = ObservePrepare(0, counts);
  ASSERT_TRUE(seen.ok()) << seen.status();
  ASSERT_EQ(seen->prepared, 1) << seen->error;
  ExpectMethodMatches(*seen, counts);
}

// Where the kernel refuses MADV_POPULATE_WRITE with `refusal`,
// PrepareBuffer() falls back to a method that works, and says which.
void ExpectFallsBack(int refusal) {
  const std::string answer = absl::StrCat(
      "madvise(MADV_POPULATE_WRITE) answers ", strerrorname_np(refusal));
  alloclab::SyscallCounts counts;
  absl::StatusOr<Observed> seen = ObservePrepare(refusal, counts);
  ASSERT_TRUE(seen.ok()) << seen.status();
  ASSERT_EQ(seen->prepared, 1)
      << "where " << answer
      << " (EINVAL: Linux before 5.14; EPERM, ENOSYS: a sandbox), "
         "PrepareBuffer() must \"fall back when this kernel refuses it\", "
         "not fail: "
      << seen->error;
  EXPECT_NE(seen->method, PrefaultMethod::kMadvisePopulateWrite)
      << "the kernel refused MADV_POPULATE_WRITE, so it cannot be the method";
  ExpectMethodMatches(*seen, counts);
  EXPECT_EQ(seen->own_pages, static_cast<int64_t>(PagesIn(kBufferBytes)))
      << "pages present and writable after the fallback, method "
      << PrefaultMethodName(seen->method) << ", where " << answer;
#if !defined(__SANITIZE_THREAD__)  // its shadow faults too: see above
  EXPECT_LE(seen->first_call_faults, UnavoidableFaults(kBufferBytes))
      << "the first Work() after the fallback, method "
      << PrefaultMethodName(seen->method) << ", where " << answer;
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // A sanitizer's own allocator maps as it likes; glibc's, outside its brk
  // heap, maps only blocks above its threshold, and none is left here.
  ASSERT_EQ(seen->mapped_read, 1) << "/proc/self/maps could not be read";
  EXPECT_LT(seen->mapped_growth, static_cast<int64_t>(kBufferBytes))
      << "after ReleaseBuffer(), " << seen->mapped_growth
      << " more bytes are mapped than before PrepareBuffer(), where " << answer
      << ": the buffer's memory must be released, the mapping the "
         "kernel refused to populate as well as the one that replaced it";
#endif
}

TEST(PrepareBufferMethod, FallsBackWhereThePopulateIsRefused) {
  ExpectFallsBack(EINVAL);
}

// A sandbox's refusals: the advice is forbidden or unknown, not the memory
// missing.
class PrepareBufferRefusalTest : public testing::TestWithParam<int> {};

TEST_P(PrepareBufferRefusalTest, FallsBack) { ExpectFallsBack(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Refusals, PrepareBufferRefusalTest,
                         testing::Values(EPERM, ENOSYS),
                         [](const testing::TestParamInfo<int>& info) {
                           return std::string(strerrorname_np(info.param));
                         });

// task.h: "another error, with the kernel's reason, when no memory could be
// had". ENOMEM from MADV_POPULATE_WRITE is not a refusal of the advice: the
// kernel understood it and found no memory, which no other method finds.
TEST(PrepareBufferMethod, NoMemoryForThePopulateIsAnError) {
  alloclab::SyscallCounts counts;
  absl::StatusOr<Observed> seen = ObservePrepare(ENOMEM, counts);
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_EQ(seen->prepared, 0)
      << "where madvise(MADV_POPULATE_WRITE) answers ENOMEM, no memory "
         "could be had: PrepareBuffer() must return \"another error, with "
         "the kernel's reason\", not fall back (it reported "
      << PrefaultMethodName(seen->method) << ")";
  if (seen->prepared == 0) {
    EXPECT_NE(seen->code, absl::StatusCode::kInvalidArgument)
        << "InvalidArgument is for 0 bytes; where no memory could be had it "
           "is another error: "
        << seen->error;
    EXPECT_THAT(absl::string_view(seen->error),
                testing::AnyOf(alloclab::Mentions(std::strerror(ENOMEM)),
                               alloclab::Mentions("ENOMEM")))
        << "where no memory could be had the error must give the kernel's "
           "reason (its errno, ENOMEM, by name or by strerror()'s text)";
  }
}

// --- The given half ----------------------------------------------------------

TEST(Baseline, WorkWritesTheLabsStream) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{13},
                      size_t{4096}, size_t{4099}}) {
    std::vector<uint8_t> bytes(size, 0xAB);
    const uint64_t sum = Work(5, absl::MakeSpan(bytes));
    EXPECT_EQ(bytes, ExpectedBytes(5, size)) << size << " bytes";
    EXPECT_EQ(sum, Checksum(bytes)) << size << " bytes";
  }
}

TEST(Baseline, ChecksumSeesOneChangedByte) {
  std::vector<uint8_t> bytes(kBufferBytes);
  const uint64_t sum = Work(3, absl::MakeSpan(bytes));
  bytes[kBufferBytes - 1] ^= 1;
  EXPECT_NE(Checksum(bytes), sum)
      << "the given Checksum() must see one changed byte";
}

TEST(Baseline, MapBufferTouchesNothing) {
  std::vector<uint8_t> scratch(kBufferBytes);
  g_sink = Work(0, absl::MakeSpan(scratch));
  absl::StatusOr<alloclab::FaultCounter> faults = ThreadFaults();
  ASSERT_TRUE(faults.ok()) << faults.status();
  absl::StatusOr<absl::Span<uint8_t>> buffer = MapBuffer(kBufferBytes);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  absl::StatusOr<alloclab::FaultCounts> during =
      alloclab::FaultsDuring(*faults, [&] { g_sink = Work(2, *buffer); });
  ASSERT_TRUE(during.ok()) << during.status();
  EXPECT_GE(during->minor, static_cast<int64_t>(PagesIn(kBufferBytes)))
      << "the given MapBuffer() maps without touching: the first Work() "
         "faults on every page";
  UnmapBuffer(*buffer);
  EXPECT_EQ(MapBuffer(0).status().code(), absl::StatusCode::kInvalidArgument)
      << "the given MapBuffer(0) is InvalidArgument";
}

}  // namespace
}  // namespace first_call
