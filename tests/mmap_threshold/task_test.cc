// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The check of lab mmap_threshold, written against task.h only. It is linked
// against the reference (solution_test), the starter (starter_test) and the
// known-bad solutions in this folder, which it must reject.
//
// Everything asserted is a count or a size: thresholds in bytes, blocks
// mapped, system calls made. Nothing depends on how fast the machine is.
//
// Each test runs its scenario in a fresh copy of this test binary
// (alloclab::RunFreshCall), because glibc's threshold remembers every big
// free of the process: the tests must not see each other's history, nor
// GoogleTest's. The test's own measure of the threshold, OracleThreshold(),
// asks every question in a forked child of its own, so it never moves the
// threshold it measures.

#include "labs/mmap_threshold/task.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/memory.h"
#include "common/instruments/sink.h"
#include "common/instruments/syscalls.h"
#include "common/machine/allocator_probe.h"
#include "common/machine/versions.h"
#include "common/testing/message_matchers.h"
#include "common/testing/scoped_env.h"
#include "common/testing/sizes_at_the_top.h"
#include "gtest/gtest.h"

namespace mmap_threshold {
namespace {

// The number of calls of the 256 KiB loop the policy tests count.
constexpr int64_t kLoopCalls = 50;

size_t PageSize() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

using alloclab::Escape;

// OracleMaps()
//
// In a forked child: once the heap's top chunk is used up, does malloc(size)
// map (1) or grow the heap (0)? -1 when free chunks kept answering instead.
// It calls mallinfo2() itself, not alloclab::ReadMallinfo(): between taking
// the top chunk and the request under test, nothing else may allocate.
absl::StatusOr<int> OracleMaps(size_t size) {
  return alloclab::RunInForkedChild<int>([size] {
    Escape(malloc(16));
    for (int attempt = 0; attempt < 100; ++attempt) {
      const size_t top = mallinfo2().keepcost;
      if (top > 64) Escape(malloc(top - 64));  // leaves a 48-byte top
      const struct mallinfo2 before = mallinfo2();
      Escape(malloc(size));
      const struct mallinfo2 after = mallinfo2();
      if (after.hblks != before.hblks) return 1;
      if (after.arena != before.arena) return 0;
    }
    return -1;
  });
}

// OracleThreshold()
//
// The smallest multiple of the page size that maps by OracleMaps(): sizes
// double from twice the dynamic ceiling until one maps (a fixed threshold
// may be far above it), then a binary search, one child per question.
absl::StatusOr<size_t> OracleThreshold() {
  const size_t page = PageSize();
  size_t low = 1;
  size_t high = 2 * kMmapThresholdMax / page;
  for (;;) {
    absl::StatusOr<int> maps = OracleMaps(high * page);
    if (!maps.ok()) return maps.status();
    if (*maps == 1) break;
    if (*maps < 0 || high * page >= (size_t{1} << 34)) {
      return absl::InternalError(
          absl::StrCat("oracle: nothing maps up to ", high * page, " bytes"));
    }
    low = high + 1;
    high *= 2;
  }
  while (low < high) {
    const size_t mid = (low + high) / 2;
    absl::StatusOr<int> maps = OracleMaps(mid * page);
    if (!maps.ok()) return maps.status();
    if (*maps < 0) {
      return absl::InternalError(
          absl::StrCat("oracle: no answer for ", mid * page, " bytes"));
    }
    if (*maps == 1) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return high * page;
}

size_t ArgBytes(const alloclab::FreshCall& call) {
  size_t bytes = 0;
  if (!absl::SimpleAtoi(call.arg(), &bytes)) std::abort();
  return bytes;
}

// Mallocs `bytes`, touches every page and frees the block; records whether
// malloc mapped it, which is what lets the free move the threshold.
void AllocateTouchFree(alloclab::FreshCall& call, size_t bytes) {
  const size_t mapped_before = mallinfo2().hblks;
  void* block = malloc(bytes);
  TouchEveryPage(block, bytes);
  call.Record("block_mapped", mallinfo2().hblks > mapped_before ? 1 : 0);
  free(block);
}

bool RecordProbe(alloclab::FreshCall& call, absl::string_view key) {
  absl::StatusOr<size_t> probe = ProbeMmapThreshold();
  if (!probe.ok()) {
    call.Fail(absl::StrCat("ProbeMmapThreshold: ", probe.status().ToString()));
    return false;
  }
  call.Record(key, static_cast<double>(*probe));
  return true;
}

bool RecordOracle(alloclab::FreshCall& call, absl::string_view key) {
  absl::StatusOr<size_t> oracle = OracleThreshold();
  if (!oracle.ok()) {
    call.Fail(oracle.status().ToString());
    return false;
  }
  call.Record(key, static_cast<double>(*oracle));
  return true;
}

// Fresh call "probe_after_free", arg: bytes to allocate and free first (0:
// none). The oracle answers before the probe runs.
void ProbeAfterFree(alloclab::FreshCall& call) {
  const size_t bytes = ArgBytes(call);
  if (bytes > 0) AllocateTouchFree(call, bytes);
  if (!RecordOracle(call, "oracle")) return;
  RecordProbe(call, "probe");
}
ALLOCLAB_FRESH_CALL("probe_after_free", ProbeAfterFree);

// The hole of "probe_fragmented": kHoleBlocks blocks of kHoleBlockBytes,
// each below the default threshold so that they come from the heap, freed
// together so that they merge into one free chunk of about 400 KiB.
constexpr int kHoleBlocks = 4;
constexpr size_t kHoleBlockBytes = 100 * 1024;

// The top pad of "probe_fragmented": each growth of the heap adds 1 MiB.
constexpr int kFragmentedTopPad = 1 << 20;

// Fresh call "probe_fragmented": the probe on a heap with a free chunk of
// about 400 KiB in its bins, kept apart from the top chunk by a block still
// in use, and a top chunk larger than that hole. glibc serves a request
// from the best-fitting free chunk before it looks at the top, or at the
// threshold: a probe that takes the top chunk first then meets the hole
// with its request, below the threshold or above it. It must see that
// neither hblks nor arena moved and ask again, not take the answer for "the
// heap grew".
//
// The large top comes from M_TOP_PAD, which also fixes the threshold where
// it is, at 128 KiB (any such setting does): the expected answer.
void ProbeFragmented(alloclab::FreshCall& call) {
  if (mallopt(M_TOP_PAD, kFragmentedTopPad) != 1) {
    call.Fail("mallopt(M_TOP_PAD) refused");
    return;
  }
  void* blocks[kHoleBlocks];
  for (void*& block : blocks) {
    block = malloc(kHoleBlockBytes);
    TouchEveryPage(block, kHoleBlockBytes);
  }
  // Keeps the hole from merging with the top chunk: a block as big as the
  // others, so that no small free chunk serves it, and above all of them.
  void* fence = malloc(kHoleBlockBytes);
  Escape(fence);
  bool fenced = true;
  for (void* block : blocks) fenced = fenced && block < fence;
  call.Record("fenced", fenced ? 1 : 0);
  const size_t arena = mallinfo2().arena;
  for (void* block : blocks) free(block);
  const struct mallinfo2 holed = mallinfo2();
  call.Record("heap_kept", holed.arena == arena ? 1 : 0);
  // Free memory outside the top chunk: the hole (and crumbs of start-up).
  call.Record("hole_bytes",
              static_cast<double>(holed.fordblks - holed.keepcost));
  call.Record("top_bytes", static_cast<double>(holed.keepcost));
  if (!RecordOracle(call, "oracle")) return;
  RecordProbe(call, "probe");
}
ALLOCLAB_FRESH_CALL("probe_fragmented", ProbeFragmented);

// Fresh call "probe_leaves_heap": the heap, and the threshold, before and
// after two probes.
void ProbeLeavesHeap(alloclab::FreshCall& call) {
  AllocateTouchFree(call, kBlockBytes);  // a threshold that is not the default
  if (!RecordOracle(call, "oracle_before")) return;
  absl::StatusOr<alloclab::MallinfoSnapshot> before = alloclab::ReadMallinfo();
  if (!before.ok()) {
    call.Fail(before.status().ToString());
    return;
  }
  if (!RecordProbe(call, "probe_first")) return;
  if (!RecordProbe(call, "probe_second")) return;
  absl::StatusOr<alloclab::MallinfoSnapshot> after = alloclab::ReadMallinfo();
  if (!after.ok()) {
    call.Fail(after.status().ToString());
    return;
  }
  call.Record("hblks_before", static_cast<double>(before->hblks));
  call.Record("hblks_after", static_cast<double>(after->hblks));
  call.Record("hblkhd_before", static_cast<double>(before->hblkhd));
  call.Record("hblkhd_after", static_cast<double>(after->hblkhd));
  call.Record("arena_before", static_cast<double>(before->arena));
  call.Record("arena_after", static_cast<double>(after->arena));
  RecordOracle(call, "oracle_after");
}
ALLOCLAB_FRESH_CALL("probe_leaves_heap", ProbeLeavesHeap);

// Fresh call "probe_status": the probe where the environment the test set
// (read by glibc at start-up) may leave malloc nothing to map; records the
// status code and the largest size its message names.
// With an arg, also whether the message names it (1) or not (0).
void ProbeStatus(alloclab::FreshCall& call) {
  const absl::StatusOr<size_t> probe = ProbeMmapThreshold();
  call.Record("code", static_cast<double>(probe.status().code()));
  call.Record("named_size",
              alloclab::LargestSizeNamed(probe.status().message()));
  if (!call.arg().empty()) {
    call.Record("names_arg",
                alloclab::TextMentions(probe.status().message(), call.arg()));
  }
}
ALLOCLAB_FRESH_CALL("probe_status", ProbeStatus);

// Fresh call "fixed_holds", arg: the fixed threshold. Probes it, then frees
// a mapped block twice its size and probes again.
void FixedHolds(alloclab::FreshCall& call) {
  const size_t threshold = ArgBytes(call);
  if (absl::Status s = SetMallocPolicy(MallocPolicy::Fixed(threshold));
      !s.ok()) {
    call.Fail(absl::StrCat("SetMallocPolicy(Fixed): ", s.ToString()));
    return;
  }
  if (!RecordProbe(call, "probe_fixed")) return;
  AllocateTouchFree(call, 2 * threshold);
  if (!RecordOracle(call, "oracle_after_free")) return;
  RecordProbe(call, "probe_after_free");
}
ALLOCLAB_FRESH_CALL("fixed_holds", FixedHolds);

void RecordCounts(alloclab::FreshCall& call,
                  const absl::StatusOr<alloclab::SyscallCounts>& counts) {
  if (!counts.ok()) {
    call.Fail(
        absl::StrCat("counting system calls: ", counts.status().ToString()));
    return;
  }
  call.Record("mmap", static_cast<double>(counts->mmap));
  call.Record("munmap", static_cast<double>(counts->munmap));
  call.Record("brk", static_cast<double>(counts->brk));
}

// Fresh call "fixed_loop": kLoopCalls calls under Fixed(128 KiB), the first
// one included.
void FixedLoop(alloclab::FreshCall& call) {
  const absl::Status s =
      SetMallocPolicy(MallocPolicy::Fixed(kDefaultMmapThreshold));
  if (!s.ok()) {
    call.Fail(absl::StrCat("SetMallocPolicy(Fixed): ", s.ToString()));
    return;
  }
  RecordCounts(
      call, alloclab::CountSyscallsInChild([] { BigBufferCalls(kLoopCalls); }));
}
ALLOCLAB_FRESH_CALL("fixed_loop", FixedLoop);

// Fresh call "dynamic_loop": one call, then kLoopCalls counted calls under
// Dynamic().
void DynamicLoop(alloclab::FreshCall& call) {
  const absl::Status s = SetMallocPolicy(MallocPolicy::Dynamic());
  if (!s.ok()) {
    call.Fail(absl::StrCat("SetMallocPolicy(Dynamic): ", s.ToString()));
    return;
  }
  BigBufferCalls(1);
  RecordCounts(
      call, alloclab::CountSyscallsInChild([] { BigBufferCalls(kLoopCalls); }));
}
ALLOCLAB_FRESH_CALL("dynamic_loop", DynamicLoop);

// Fresh call "policy_status", arg: a scenario. Records the status code of
// the last SetMallocPolicy() and the threshold after a 256 KiB free.
//
// An arg "<scenario> <cause>" also records whether the status's message
// names `cause` (message_names_cause).
void PolicyStatus(alloclab::FreshCall& call) {
  const std::pair<absl::string_view, absl::string_view> words =
      absl::StrSplit(call.arg(), absl::MaxSplits(' ', 1));
  absl::string_view scenario = words.first;
  const absl::string_view cause = words.second;
  absl::Status status;
  if (scenario == "dynamic") {
    status = SetMallocPolicy(MallocPolicy::Dynamic());
  } else if (scenario == "fixed_at_dynamic_max") {
    status = SetMallocPolicy(MallocPolicy::Fixed(kMmapThresholdMax));
  } else if (scenario == "fixed_64m") {
    status = SetMallocPolicy(MallocPolicy::Fixed(size_t{64} << 20));
  } else if (scenario == "fixed_1g") {
    status = SetMallocPolicy(MallocPolicy::Fixed(size_t{1} << 30));
  } else if (scenario == "fixed_at_int_max") {
    status = SetMallocPolicy(MallocPolicy::Fixed(kFixedThresholdMax));
  } else if (scenario == "fixed_above_int") {
    status = SetMallocPolicy(MallocPolicy::Fixed(kFixedThresholdMax + 1));
  } else if (scenario == "fixed_wraps_to_default") {
    // As an int it would be kDefaultMmapThreshold: a range check that
    // casts first takes it.
    status = SetMallocPolicy(
        MallocPolicy::Fixed((size_t{1} << 32) + kDefaultMmapThreshold));
  } else if (absl::ConsumePrefix(&scenario, "fixed_top_")) {
    // common/testing/sizes_at_the_top.h's size of that id.
    for (const alloclab::TopSize& size : alloclab::SizesAtTheTop()) {
      if (size.id == scenario) {
        status = SetMallocPolicy(MallocPolicy::Fixed(size.bytes));
      }
    }
  } else if (scenario == "fixed_zero") {
    status = SetMallocPolicy(MallocPolicy::Fixed(0));
  } else if (scenario == "dynamic_after_fixed") {
    status = SetMallocPolicy(MallocPolicy::Fixed(kDefaultMmapThreshold));
    if (!status.ok()) {
      call.Fail(absl::StrCat("SetMallocPolicy(Fixed): ", status.ToString()));
      return;
    }
    status = SetMallocPolicy(MallocPolicy::Dynamic());
  } else {
    call.Fail(absl::StrCat("unknown scenario ", scenario));
    return;
  }
  call.Record("code", static_cast<double>(status.code()));
  if (!cause.empty()) {
    call.Record("message_names_cause",
                alloclab::TextMentions(status.message(), cause) ? 1 : 0);
  }
  AllocateTouchFree(call, kBlockBytes);
  RecordOracle(call, "oracle_after_free");
}
ALLOCLAB_FRESH_CALL("policy_status", PolicyStatus);

// Values
//
// What a fresh call recorded. Every value of this suite is a count or a
// size in bytes, so they come back as integers (and print as such).
using Values = std::map<std::string, int64_t>;

// Runs a fresh call and returns its values; the test fails on an error.
std::optional<Values> Fresh(absl::string_view name, absl::string_view arg) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall(name, arg);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return std::nullopt;
  Values values;
  for (const auto& [key, value] : r->values) {
    values[key] = std::llround(value);
  }
  return values;
}

// WithinAPage()
//
// Whether two thresholds agree to page granularity.
testing::AssertionResult WithinAPage(int64_t a, int64_t b) {
  const int64_t page = static_cast<int64_t>(PageSize());
  if (a - b <= page && b - a <= page) return testing::AssertionSuccess();
  return testing::AssertionFailure()
         << a << " and " << b << " are more than a page (" << page
         << " bytes) apart";
}

// IsTheSmallestMappingPage()
//
// Whether `probe` is the threshold as task.h defines it: the smallest
// multiple of the page size that maps, which the oracle measures the same
// way. Not within a page: one page less is the largest size that did not
// map.
testing::AssertionResult IsTheSmallestMappingPage(int64_t probe,
                                                  int64_t oracle) {
  const int64_t page = static_cast<int64_t>(PageSize());
  if (probe == oracle && probe % page == 0) return testing::AssertionSuccess();
  testing::AssertionResult failure = testing::AssertionFailure();
  failure << "ProbeMmapThreshold() must return the smallest multiple of the "
             "page size that malloc maps: "
          << oracle << " bytes here, but it returned " << probe;
  if (probe % page != 0) {
    failure << ", not a multiple of the page (" << page << " bytes)";
  } else if (probe == oracle - page) {
    failure << ", one page less: the largest size that did not map";
  } else if (probe == oracle + page) {
    failure << ", one page more: a size that maps, but not the smallest";
  }
  return failure;
}

// ---------------------------------------------------------------------------
// The probe.

// FreeCase
//
// What the probe must return after `freed_bytes` were mapped and freed (0:
// nothing freed): between base + min_pages and base + max_pages pages.
struct FreeCase {
  const char* name;
  size_t freed_bytes;
  size_t base;
  int min_pages;
  int max_pages;
};

void PrintTo(const FreeCase& c, std::ostream* os) { *os << c.name; }

class ProbeAfterFreeTest : public testing::TestWithParam<FreeCase> {};

TEST_P(ProbeAfterFreeTest, FindsTheThresholdToAPage) {
  const FreeCase& c = GetParam();
  const auto v = Fresh("probe_after_free", absl::StrCat(c.freed_bytes));
  ASSERT_TRUE(v.has_value());
  if (c.freed_bytes > 0) {
    ASSERT_EQ(v->at("block_mapped"), 1)
        << "setup: malloc(" << c.freed_bytes << ") was not mapped";
  }
  const int64_t page = static_cast<int64_t>(PageSize());
  const int64_t base = static_cast<int64_t>(c.base);
  const int64_t probe = v->at("probe");
  EXPECT_GE(probe, base + c.min_pages * page)
      << "ProbeMmapThreshold() after freeing a mapped block of "
      << c.freed_bytes << " bytes is below where glibc puts the threshold";
  EXPECT_LE(probe, base + c.max_pages * page)
      << "ProbeMmapThreshold() after freeing a mapped block of "
      << c.freed_bytes << " bytes is above where glibc puts the threshold";
  EXPECT_TRUE(IsTheSmallestMappingPage(probe, v->at("oracle")))
      << "after freeing " << c.freed_bytes << " bytes";
}

INSTANTIATE_TEST_SUITE_P(
    Frees, ProbeAfterFreeTest,
    testing::Values(
        // A fresh process: the documented default, give or take a page.
        FreeCase{"nothing", 0, kDefaultMmapThreshold, -1, 1},
        // Freeing a mapped block raises it to that block's size: the
        // request, its header, rounded up to a page.
        FreeCase{"256k", kBlockBytes, kBlockBytes, 0, 2},
        FreeCase{"1m", 1 << 20, 1 << 20, 0, 2},
        // A block above the 32 MiB ceiling leaves it where it was.
        FreeCase{"64m", 64 << 20, kDefaultMmapThreshold, -1, 1}),
    [](const testing::TestParamInfo<FreeCase>& info) {
      return std::string(info.param.name);
    });

TEST(ProbeTest, LeavesTheHeapAndTheThresholdAsItFoundThem) {
  const auto v = Fresh("probe_leaves_heap", "");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->at("hblks_after"), v->at("hblks_before"))
      << "the probe left blocks mapped (mallinfo2().hblks)";
  EXPECT_EQ(v->at("hblkhd_after"), v->at("hblkhd_before"))
      << "the probe left mapped bytes behind (mallinfo2().hblkhd)";
  EXPECT_EQ(v->at("arena_after"), v->at("arena_before"))
      << "the probe grew the heap (mallinfo2().arena)";
  EXPECT_EQ(v->at("oracle_after"), v->at("oracle_before"))
      << "probing moved the threshold it measured";
  EXPECT_EQ(v->at("probe_second"), v->at("probe_first"))
      << "two probes in a row disagree";
  EXPECT_TRUE(
      IsTheSmallestMappingPage(v->at("probe_first"), v->at("oracle_before")))
      << "the first probe after a 256 KiB free";
}

TEST(ProbeTest, SeesThroughFreeChunksInTheHeap) {
  const auto v = Fresh("probe_fragmented", "");
  ASSERT_TRUE(v.has_value());
  ASSERT_EQ(v->at("fenced"), 1) << "setup: the fence is not above the hole";
  ASSERT_EQ(v->at("heap_kept"), 1)
      << "setup: freeing the blocks trimmed the heap";
  // The hole serves a request of twice the threshold (a size a binary
  // search asks for early), and the top is larger, so taking the top first
  // leaves the hole in place.
  const int64_t threshold = static_cast<int64_t>(kDefaultMmapThreshold);
  ASSERT_GT(v->at("hole_bytes"), 2 * threshold + 64)
      << "setup: the free chunk is too small";
  ASSERT_GT(v->at("top_bytes"), v->at("hole_bytes"))
      << "setup: the top chunk is smaller than the hole";
  EXPECT_TRUE(WithinAPage(v->at("oracle"), threshold))
      << "the threshold M_TOP_PAD fixed";
  EXPECT_TRUE(IsTheSmallestMappingPage(v->at("probe"), v->at("oracle")))
      << "a request a free chunk served is no answer: neither hblks nor "
         "arena moved";
}

// EnvCase
//
// A setting of the environment for a fresh call, the status the call must
// return under it, and, for SetMallocPolicy(Dynamic()), the name its
// message must give as the cause (task.h: "The message names the cause"):
// the variable, or the tunable's name.
struct EnvCase {
  const char* name;
  const char* variable;
  std::string value;
  absl::StatusCode code;
  const char* cause = "";
};

void PrintTo(const EnvCase& c, std::ostream* os) { *os << c.name; }

// task.h: "FailedPrecondition when malloc maps no block at all, up to the
// largest this machine would allocate (mmap switched off with
// M_MMAP_MAX = 0, ...), the message naming the size". glibc reads the
// setting at start-up, so the fresh process gets it from its environment:
// malloc then grows the heap for every size until it fails, in
// milliseconds (nothing is touched).
class ProbeNothingMapsTest : public testing::TestWithParam<EnvCase> {};

TEST_P(ProbeNothingMapsTest, IsAFailedPreconditionThatNamesTheSize) {
  const EnvCase& c = GetParam();
  alloclab::ScopedEnv env(c.variable, c.value);  // for the fresh call
  ASSERT_TRUE(env.status().ok()) << env.status();
  const auto v = Fresh("probe_status", "");
  ASSERT_TRUE(v.has_value());
  const auto code = static_cast<absl::StatusCode>(v->at("code"));
  EXPECT_EQ(code, absl::StatusCode::kFailedPrecondition)
      << "ProbeMmapThreshold() with " << c.variable << "=" << c.value
      << " must return FailedPrecondition \"when malloc maps no block at "
         "all\" (task.h), not "
      << absl::StatusCodeToString(code)
      << " (Internal is for a probe that itself failed)";
  // A fixed threshold can be far above the dynamic ceiling: a probe that
  // looked no further has not seen that nothing maps. Nothing maps at twice
  // the ceiling either, so the size the probe stopped at is beyond that.
  EXPECT_GT(v->at("named_size"), static_cast<int64_t>(2 * kMmapThresholdMax))
      << "ProbeMmapThreshold() with " << c.variable << "=" << c.value
      << ": \"the message naming the size\" (task.h) up to which nothing "
         "mapped, above 2 * kMmapThresholdMax (nothing maps there either); "
         "the largest size it names (a number, times its unit if one "
         "follows) is "
      << v->at("named_size");
}

INSTANTIATE_TEST_SUITE_P(
    MmapOff, ProbeNothingMapsTest,
    testing::Values(EnvCase{"mmap_max_tunable", "GLIBC_TUNABLES",
                            "glibc.malloc.mmap_max=0",
                            absl::StatusCode::kFailedPrecondition},
                    EnvCase{"old_mmap_max_variable", "MALLOC_MMAP_MAX_", "0",
                            absl::StatusCode::kFailedPrecondition}),
    [](const testing::TestParamInfo<EnvCase>& info) {
      return std::string(info.param.name);
    });

// task.h: FailedPrecondition also where "malloc [is] replaced by another
// allocator". jemalloc, preloaded as lab jemalloc_adoption does, maps its
// own extents: whatever the probe saw there is no threshold of glibc's.
TEST(ProbeAnotherAllocatorTest, IsAFailedPreconditionThatNamesIt) {
  absl::StatusOr<alloclab::LocatedAllocator> jemalloc =
      alloclab::LocateAllocator("jemalloc");
  ASSERT_TRUE(jemalloc.ok()) << jemalloc.status();
  alloclab::ScopedEnv env("LD_PRELOAD", jemalloc->path);
  ASSERT_TRUE(env.status().ok()) << env.status();
  const auto v = Fresh("probe_status", "jemalloc");
  ASSERT_TRUE(v.has_value());
  const auto code = static_cast<absl::StatusCode>(v->at("code"));
  EXPECT_EQ(code, absl::StatusCode::kFailedPrecondition)
      << "ProbeMmapThreshold() under LD_PRELOAD=" << jemalloc->path
      << " must return FailedPrecondition (task.h: \"malloc replaced by "
         "another allocator\"), not "
      << absl::StatusCodeToString(code);
  EXPECT_EQ(v->at("names_arg"), 1)
      << "ProbeMmapThreshold() under jemalloc: the message names the "
         "allocator that serves malloc (\"jemalloc\")";
}

// ---------------------------------------------------------------------------
// The policy.

// The largest threshold the installed glibc lets mallopt() fix, by the
// course's one version rule (common/machine/versions.h: 2.35 and later,
// anything mallopt()'s int holds; 2.34 and earlier, the 32 MiB ceiling itself).
size_t LargestFixed() {
  const absl::StatusOr<std::string> glibc = alloclab::GlibcVersion();
  return glibc.ok() && alloclab::GlibcAcceptsFixedThresholdAbove32MiB(*glibc)
             ? kFixedThresholdMax
             : kMmapThresholdMax;
}

// A fixed threshold is found where it was fixed, and freeing a mapped block
// twice its size does not move it: 1 MiB, and 100 MiB, above the 32 MiB
// ceiling of the dynamic adjustment, which is no limit on a fixed one from
// glibc 2.35 on (on 2.34 and earlier, which refuse 100 MiB, the largest
// they take: 32 MiB).
class FixedHoldsTest : public testing::TestWithParam<size_t> {};

TEST_P(FixedHoldsTest, FixedThresholdIsFoundAndDoesNotMove) {
  const size_t fixed = GetParam();
  const auto v = Fresh("fixed_holds", absl::StrCat(fixed));
  ASSERT_TRUE(v.has_value());
  const int64_t expected = static_cast<int64_t>(fixed);
  EXPECT_TRUE(WithinAPage(v->at("probe_fixed"), expected))
      << "ProbeMmapThreshold() must find the threshold Fixed(" << fixed
      << ") set";
  ASSERT_EQ(v->at("block_mapped"), 1)
      << "setup: " << 2 * fixed << " bytes were not mapped";
  EXPECT_TRUE(WithinAPage(v->at("oracle_after_free"), expected))
      << "freeing a mapped block of " << 2 * fixed
      << " bytes moved a fixed threshold";
  EXPECT_TRUE(IsTheSmallestMappingPage(v->at("probe_after_free"),
                                       v->at("oracle_after_free")))
      << "after freeing a mapped block of " << 2 * fixed
      << " bytes under Fixed(" << fixed << ")";
  EXPECT_TRUE(WithinAPage(v->at("probe_after_free"), expected))
      << "ProbeMmapThreshold() must still find Fixed(" << fixed
      << ") after a free";
}

INSTANTIATE_TEST_SUITE_P(Thresholds, FixedHoldsTest,
                         testing::Values(size_t{1} << 20,
                                         std::min(size_t{100} << 20,
                                                  LargestFixed())),
                         [](const testing::TestParamInfo<size_t>& info) {
                           return absl::StrCat(info.param >> 20, "MiB");
                         });

// task.h: "exactly that one: a page less ... is a different answer". A
// threshold one page past a size the probe's doubling tries (twice the
// dynamic ceiling): a search that takes a step past what it tried is a
// page off there, and only there.
TEST(FixedExactTest, ThresholdAPagePastADoublingIsFoundExactly) {
  const size_t fixed = 2 * kMmapThresholdMax + PageSize();
  if (fixed > LargestFixed()) {
    GTEST_SKIP() << "this glibc fixes no threshold above " << LargestFixed()
                 << " bytes (2.34 and earlier)";
  }
  const auto v = Fresh("fixed_holds", absl::StrCat(fixed));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->at("probe_fixed"), static_cast<int64_t>(fixed))
      << "ProbeMmapThreshold() under Fixed(" << fixed << ") (twice "
      << "kMmapThresholdMax and one page) must return exactly it: task.h, "
         "the smallest multiple of the page that maps, \"exactly that one\"";
}

TEST(PolicyTest, FixedMakesOneMmapAndOneMunmapPerCall) {
  const auto v = Fresh("fixed_loop", "");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->at("mmap"), kLoopCalls)
      << kLoopCalls << " calls of 256 KiB under Fixed(128 KiB)";
  EXPECT_EQ(v->at("munmap"), kLoopCalls)
      << kLoopCalls << " calls of 256 KiB under Fixed(128 KiB) must each "
      << "unmap their block";
}

TEST(PolicyTest, DynamicMakesNoMmapAfterTheFirstCall) {
  const auto v = Fresh("dynamic_loop", "");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->at("mmap"), 0) << "under Dynamic(), " << kLoopCalls
                              << " calls after the first one must not map";
  EXPECT_EQ(v->at("munmap"), 0) << "under Dynamic(), " << kLoopCalls
                                << " calls after the first one must not unmap";
  // The second call finds no room in the heap yet: it may grow it once.
  EXPECT_LE(v->at("brk"), 1)
      << "under Dynamic(), the heap may grow once, for the second call";
}

// StatusCase
//
// A scenario of "policy_status", the status it must return, and where a
// free of a mapped 256 KiB block leaves the threshold afterwards:
// `threshold_after`, or 0 when the free must raise it to the block's size.
struct StatusCase {
  const char* scenario;
  absl::StatusCode code;
  size_t threshold_after;
};

void PrintTo(const StatusCase& c, std::ostream* os) { *os << c.scenario; }

// The threshold after a 256 KiB free is where `expected` says (0: moved up
// to the freed block, its header and page rounding included).
void ExpectThresholdAfterFree(int64_t threshold, size_t expected) {
  const int64_t page = static_cast<int64_t>(PageSize());
  if (expected == 0) {
    const int64_t block = static_cast<int64_t>(kBlockBytes);
    EXPECT_GE(threshold, block)
        << "under glibc's dynamic policy a free of a mapped 256 KiB block "
           "must raise the threshold to it; it did not move";
    EXPECT_LE(threshold, block + 2 * page)
        << "under glibc's dynamic policy a free of a mapped 256 KiB block "
           "raises the threshold to that block, no further";
  } else {
    EXPECT_TRUE(WithinAPage(threshold, static_cast<int64_t>(expected)))
        << "a fixed threshold must not move when a mapped block is freed";
  }
}

// What Fixed(`bytes`), above kMmapThresholdMax, must return on the
// installed glibc: OK and held where it accepts `bytes`, Internal (glibc
// refused the setting) and the threshold still dynamic where it does not.
StatusCase AboveTheCeiling(const char* scenario, size_t bytes) {
  if (bytes <= LargestFixed()) {
    return StatusCase{scenario, absl::StatusCode::kOk, bytes};
  }
  return StatusCase{scenario, absl::StatusCode::kInternal, 0};
}

class PolicyStatusTest : public testing::TestWithParam<StatusCase> {};

TEST_P(PolicyStatusTest, ReturnsTheDocumentedStatus) {
  const StatusCase& c = GetParam();
  const auto v = Fresh("policy_status", c.scenario);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(static_cast<absl::StatusCode>(v->at("code")), c.code)
      << "SetMallocPolicy() in scenario " << c.scenario << " must return "
      << absl::StatusCodeToString(c.code) << " (task.h, Errors), not "
      << absl::StatusCodeToString(static_cast<absl::StatusCode>(v->at("code")));
  ExpectThresholdAfterFree(v->at("oracle_after_free"), c.threshold_after);
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, PolicyStatusTest,
    testing::Values(
        StatusCase{"dynamic", absl::StatusCode::kOk, 0},
        // Fixed at the dynamic ceiling: nothing below 32 MiB maps any more.
        StatusCase{"fixed_at_dynamic_max", absl::StatusCode::kOk,
                   kMmapThresholdMax},
        // Above it too: glibc 2.35 and later take these, and they hold;
        // 2.34 and earlier refuse them (Internal), and the policy is still
        // the dynamic one.
        AboveTheCeiling("fixed_64m", size_t{64} << 20),
        AboveTheCeiling("fixed_1g", size_t{1} << 30),
        // The largest threshold mallopt()'s int takes: the edge of
        // InvalidArgument, on the accepted side (where glibc takes it).
        AboveTheCeiling("fixed_at_int_max", kFixedThresholdMax),
        // mallopt() takes an int: refused, and nothing changed, the policy
        // is still glibc's.
        StatusCase{"fixed_above_int", absl::StatusCode::kInvalidArgument, 0},
        // Far above too, where the size's low 32 bits are a threshold
        // mallopt() would take: above kFixedThresholdMax is above it.
        StatusCase{"fixed_wraps_to_default", absl::StatusCode::kInvalidArgument,
                   0},
        StatusCase{"dynamic_after_fixed", absl::StatusCode::kFailedPrecondition,
                   kDefaultMmapThreshold}),
    [](const testing::TestParamInfo<StatusCase>& info) {
      return std::string(info.param.scenario);
    });

// Fixed(0) is inside task.h's range (InvalidArgument is only "above
// kFixedThresholdMax"): every request then maps, and it holds.
TEST(PolicyFixedZeroTest, IsAPolicyLikeAnyOther) {
  const auto v = Fresh("policy_status", "fixed_zero");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(static_cast<absl::StatusCode>(v->at("code")), absl::StatusCode::kOk)
      << "SetMallocPolicy(Fixed(0)) must return OK: InvalidArgument is for a "
         "threshold above kFixedThresholdMax (task.h, Errors), not "
      << absl::StatusCodeToString(static_cast<absl::StatusCode>(v->at("code")));
  EXPECT_TRUE(WithinAPage(v->at("oracle_after_free"), 0))
      << "after Fixed(0), every request maps and a free moves nothing: the "
         "threshold after freeing a mapped block is "
      << v->at("oracle_after_free") << " bytes";
}

class PolicyEnvTest : public testing::TestWithParam<EnvCase> {};

TEST_P(PolicyEnvTest, DynamicIsRefusedWhereTheEnvironmentFixedIt) {
  const EnvCase& c = GetParam();
  // Set for the fresh call below, which inherits it.
  alloclab::ScopedEnv env(c.variable, c.value);
  ASSERT_TRUE(env.status().ok()) << env.status();
  const auto v = Fresh("policy_status", absl::StrCat("dynamic ", c.cause));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(static_cast<absl::StatusCode>(v->at("code")), c.code)
      << "SetMallocPolicy(Dynamic()) with " << c.variable << "=" << c.value
      << " must return " << absl::StatusCodeToString(c.code)
      << ": FailedPrecondition where the environment fixed the threshold, "
      << "not "
      << absl::StatusCodeToString(static_cast<absl::StatusCode>(v->at("code")));
  if (c.code == absl::StatusCode::kFailedPrecondition) {
    EXPECT_EQ(v->at("message_names_cause"), 1)
        << "SetMallocPolicy(Dynamic()) with " << c.variable << "=" << c.value
        << ": FailedPrecondition, \"The message names the cause\" (task.h): "
        << "it must name " << c.cause;
  }
  // The fact behind the status: does a 256 KiB free still move it?
  ExpectThresholdAfterFree(
      v->at("oracle_after_free"),
      c.code == absl::StatusCode::kOk ? 0 : kDefaultMmapThreshold);
}

// Every way the environment can fix the threshold at start-up: the four
// tunables and their four older variables, each set to a value that leaves
// the loop working (mmap_max above 0, thresholds at their defaults), because
// what switches the adjustment off is that they are set, not their values.
INSTANTIATE_TEST_SUITE_P(
    Environments, PolicyEnvTest,
    testing::Values(
        EnvCase{
            "mmap_threshold_tunable", "GLIBC_TUNABLES",
            absl::StrCat("glibc.malloc.mmap_threshold=", kDefaultMmapThreshold),
            absl::StatusCode::kFailedPrecondition, "mmap_threshold"},
        EnvCase{"trim_threshold_among_others", "GLIBC_TUNABLES",
                "glibc.malloc.tcache_count=7:glibc.malloc.trim_threshold="
                "262144",
                absl::StatusCode::kFailedPrecondition, "trim_threshold"},
        EnvCase{"top_pad_tunable", "GLIBC_TUNABLES",
                absl::StrCat("glibc.malloc.top_pad=", kDefaultMmapThreshold),
                absl::StatusCode::kFailedPrecondition, "top_pad"},
        EnvCase{"mmap_max_tunable", "GLIBC_TUNABLES",
                "glibc.malloc.mmap_max=65536",
                absl::StatusCode::kFailedPrecondition, "mmap_max"},
        EnvCase{"old_mmap_threshold_variable", "MALLOC_MMAP_THRESHOLD_",
                absl::StrCat(kDefaultMmapThreshold),
                absl::StatusCode::kFailedPrecondition,
                "MALLOC_MMAP_THRESHOLD_"},
        EnvCase{"old_trim_threshold_variable", "MALLOC_TRIM_THRESHOLD_",
                "262144", absl::StatusCode::kFailedPrecondition,
                "MALLOC_TRIM_THRESHOLD_"},
        // Any top pad fixes the threshold, even 128 KiB, glibc's default.
        EnvCase{"old_top_pad_variable", "MALLOC_TOP_PAD_",
                absl::StrCat(kDefaultMmapThreshold),
                absl::StatusCode::kFailedPrecondition, "MALLOC_TOP_PAD_"},
        EnvCase{"old_mmap_max_variable", "MALLOC_MMAP_MAX_", "65536",
                absl::StatusCode::kFailedPrecondition, "MALLOC_MMAP_MAX_"},
        // A tunable of another kind leaves the adjustment on.
        EnvCase{"tcache_tunable", "GLIBC_TUNABLES",
                "glibc.malloc.tcache_count=3", absl::StatusCode::kOk}),
    [](const testing::TestParamInfo<EnvCase>& info) {
      return std::string(info.param.name);
    });

// The top of size_t (common/testing/sizes_at_the_top.h): far above
// kFixedThresholdMax, so InvalidArgument (task.h, Errors), and the policy
// still glibc's; a threshold rounded up to a page before the range check
// wraps around to 0 there, and fixes a threshold nobody asked for.
class PolicyTopOfSizeTest : public testing::TestWithParam<alloclab::TopSize> {};

TEST_P(PolicyTopOfSizeTest, FixedIsRefused) {
  const alloclab::TopSize& size = GetParam();
  const auto v = Fresh("policy_status", absl::StrCat("fixed_top_", size.id));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(static_cast<absl::StatusCode>(v->at("code")),
            absl::StatusCode::kInvalidArgument)
      << "SetMallocPolicy(Fixed(" << size.what << " = " << size.bytes
      << ")) must return INVALID_ARGUMENT: a threshold above "
      << "kFixedThresholdMax (task.h, Errors), not "
      << absl::StatusCodeToString(static_cast<absl::StatusCode>(v->at("code")));
  ExpectThresholdAfterFree(v->at("oracle_after_free"), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, PolicyTopOfSizeTest, testing::ValuesIn(alloclab::SizesAtTheTop()),
    [](const testing::TestParamInfo<alloclab::TopSize>& info) {
      return info.param.id;
    });

}  // namespace
}  // namespace mmap_threshold
