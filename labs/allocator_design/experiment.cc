// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab allocator_design: the experiment. Your allocator, built into
// libyours.so with the lab's shim, joins lab jemalloc_adoption's matrix
// (common/adoption/matrix.h): its six workloads as child processes
// under glibc, jemalloc, tcmalloc, mimalloc and yours, preloaded, the rows
// interleaved, every row verified by the allocator probe; the time ratio to
// glibc with its interval and verdict, the peak RSS ratio, and the system
// calls per operation from one more run of each row under ptrace. Lab
// jemalloc_adoption's reference Recommend() then judges the table, and
// judges yours against glibc alone: the decision that lab taught, with
// your allocator as a candidate.
//
// Then two threads against one on 16-byte blocks (task.h's promise 6, lab
// counter_contention's lesson), on an aged heap (a thread that allocated
// 65,536 of them, freed seven in eight in a shuffled order and exited):
// each thread keeps 1,024 blocks, frees 256 of them at random and
// allocates them again, then increments every one of its own, round after
// round; one thread alone, then two at once, each
// doing the same rounds, in fresh processes taken in turn. Two threads
// that share no line do twice the work in about the time one takes (on two
// idle cores); two whose blocks share lines take turns owning each line.
// The ratio is a measurement of this machine and load, never asserted.
//
// Then the malloclab score: each fixed trace of traces.h replayed against
// your task.cc (linked into this program) in a fresh process, its
// utilization against task.h's kMinUtilization; and the same trace on
// glibc's malloc, whose bytes held mallinfo2() reports. Then each trace
// timed on your task.cc and on glibc's malloc, in fresh processes taken in
// turn, and score.h's score per trace and in total: the utilization part
// (the same on every machine) and the throughput part (this machine's)
// apart.

#include "common/harness/experiment.h"

#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/adoption/judge.h"
#include "common/adoption/matrix.h"
#include "common/adoption/workloads.h"
#include "common/harness/child_run.h"
#include "common/harness/fresh_process.h"
#include "common/harness/fresh_rows.h"
#include "common/harness/samples.h"
#include "common/instruments/proc_maps.h"
#include "common/machine/allocator_probe.h"
#include "common/machine/cpu_facts.h"
#include "labs/allocator_design/score.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/traces.h"

ABSL_FLAG(std::string, workloads,
          absl::StrJoin(alloclab::adoption::WorkloadNames(), ","),
          "comma-separated workloads to run (lab jemalloc_adoption's)");
ABSL_FLAG(std::string, allocators, "glibc,jemalloc,tcmalloc,mimalloc",
          "comma-separated allocators beside yours, which is always in the "
          "table (glibc, the baseline, is required)");
ABSL_FLAG(int, threads, 0, "threads per workload (0: the CPUs available)");
ABSL_FLAG(double, iterations_scale, 1.0,
          "multiplies every workload's iterations (the tests use 0.01)");
ABSL_FLAG(int, rss_interval_ms, 20, "milliseconds between two RSS samples");
ABSL_FLAG(std::string, yours_library, "",
          "your allocator's shared library (empty: the libyours.so built "
          "beside this program)");

namespace {

// The words that open the quick run's note on what it cannot show:
// tools/quick_full_test.py looks for them.
constexpr absl::string_view kQuickCannotShowDuel =
    "quick mode cannot show whether lab jemalloc_adoption's rule recommends "
    "yours over glibc";

namespace ad = allocator_design;
namespace ja = alloclab::adoption;

constexpr absl::string_view kYours = alloclab::kYoursAllocator;

std::vector<std::string> List(const std::string& flag) {
  return absl::StrSplit(flag, ',', absl::SkipEmpty());
}

// --allocators, with yours added at the end unless it is named.
std::vector<std::string> AllocatorNames() {
  std::vector<std::string> names = List(absl::GetFlag(FLAGS_allocators));
  if (std::find(names.begin(), names.end(), kYours) == names.end()) {
    names.emplace_back(kYours);
  }
  return names;
}

// YoursLibrary()
//
// The library to preload for "yours": --yours_library, or libyours.so
// beside this program (a data dependency of the lab's target), as an
// absolute path. NotFound saying how to build it.
absl::StatusOr<std::string> YoursLibrary() {
  const std::string flag = absl::GetFlag(FLAGS_yours_library);
  if (flag.empty()) {
    absl::StatusOr<std::string> beside =
        alloclab::ProgramBesideSelf(alloclab::kYoursLibraryFile);
    if (beside.ok()) return beside;
    return absl::NotFoundError(absl::StrCat(
        "your allocator's library is missing: ", beside.status().message(),
        " (`bazel run //labs/allocator_design` builds ",
        alloclab::kYoursLibraryFile,
        " beside the experiment; or name one "
        "with --yours_library)"));
  }
  struct stat st;
  if (stat(flag.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat(
        "--yours_library=", flag,
        ": no such file (your allocator's shared library: `bazel build "
        "//labs/allocator_design:libyours.so` builds it)"));
  }
  // The probe knows yours by the file name the dynamic linker loaded (the
  // name preloaded, not a symlink's target): another name would leave every
  // row of yours unverified.
  if (alloclab::IdentifyAllocatorFile(flag) != kYours) {
    return absl::InvalidArgumentError(
        absl::StrCat("--yours_library=", flag, ": the file must be named ",
                     alloclab::kYoursLibraryFile,
                     ", by which the allocator probe verifies its rows"));
  }
  if (absl::StartsWith(flag, "/")) return flag;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "--yours_library=", flag,
        ": a relative path, and this process cannot name its directory"));
  }
  return absl::StrCat(cwd, "/", flag);
}

// ---------------------------------------------------------------------------
// Utilization: a trace in a fresh process, on your task.cc or on glibc.

// What glibc holds from the kernel: its heap (brk and its arenas' mappings,
// mallinfo2's arena) and the chunks it mapped alone (hblkhd).
uint64_t GlibcHeldBytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<uint64_t>(info.arena) + static_cast<uint64_t>(info.hblkhd);
}

// The start of the brk heap ("[heap]" in /proc/self/maps), or the break
// itself while there is no heap yet.
uintptr_t HeapStart() {
  std::optional<uintptr_t> start;
  const absl::Status read =
      alloclab::ForEachMapping([&](const alloclab::Mapping& m) {
        if (m.name == "[heap]" && !start.has_value()) start = m.start;
      });
  if (read.ok() && start.has_value()) return *start;
  return reinterpret_cast<uintptr_t>(sbrk(0));
}

// The byte block `id` holds: the replay checks it survived until the free.
unsigned char Pattern(uint32_t id) {
  return static_cast<unsigned char>(0x5a ^ (id * 131));
}

// traces.h's ReplayTrace() on glibc's malloc and free: the same operations,
// the same bytes written and checked, and the bytes held, less what glibc
// held when the replay began. mallinfo2() walks every free chunk, too slow
// to call after each of tens of thousands of operations; but what glibc
// holds grows only when the break moves or a chunk is mapped alone (outside
// the brk heap), so it is read after each allocation that did either: the
// peak is the same.
absl::StatusOr<ad::TraceResult> ReplayOnGlibc(const ad::Trace& trace) {
  uint32_t max_id = 0;
  for (const ad::TraceOp& op : trace.ops) max_id = std::max(max_id, op.id);
  std::vector<unsigned char*> blocks(static_cast<size_t>(max_id) + 1);
  std::vector<uint32_t> sizes(blocks.size());
  const uintptr_t heap_start = HeapStart();
  void* last_break = sbrk(0);
  const uint64_t base = GlibcHeldBytes();
  uint64_t live = 0;
  ad::TraceResult r;
  for (size_t i = 0; i < trace.ops.size(); ++i) {
    const ad::TraceOp& op = trace.ops[i];
    if (op.kind == ad::TraceOp::Kind::kAllocate) {
      auto* p = static_cast<unsigned char*>(std::malloc(op.size));
      if (p == nullptr && op.size > 0) {
        return absl::DataLossError(absl::StrCat(trace.name, ": glibc's malloc(",
                                                op.size, ") failed at op ", i));
      }
      if (op.size > 0) std::memset(p, Pattern(op.id), op.size);
      blocks[op.id] = p;
      sizes[op.id] = op.size;
      live += op.size;
      r.peak_live_bytes = std::max(r.peak_live_bytes, live);
      void* now_break = sbrk(0);
      const auto at = reinterpret_cast<uintptr_t>(p);
      if (now_break != last_break || at < heap_start ||
          at >= reinterpret_cast<uintptr_t>(now_break)) {
        last_break = now_break;
        const uint64_t held = GlibcHeldBytes();
        r.peak_held_bytes =
            std::max(r.peak_held_bytes, held > base ? held - base : 0);
      }
    } else {
      unsigned char* p = blocks[op.id];
      for (uint32_t b = 0; b < sizes[op.id]; ++b) {
        if (p[b] != Pattern(op.id)) {
          return absl::DataLossError(absl::StrCat(trace.name, ": block ", op.id,
                                                  " changed while live (op ", i,
                                                  ")"));
        }
      }
      std::free(p);
      blocks[op.id] = nullptr;
      live -= sizes[op.id];
    }
  }
  if (r.peak_held_bytes == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(trace.name,
                     ": glibc served the whole trace from memory it held "
                     "before the replay began: no utilization to measure"));
  }
  r.utilization = static_cast<double>(r.peak_live_bytes) /
                  static_cast<double>(r.peak_held_bytes);
  return r;
}

void RecordTrace(alloclab::FreshCall& call,
                 const absl::StatusOr<ad::TraceResult>& r) {
  if (!r.ok()) return call.Fail(r.status().ToString());
  call.Record("peak_live_bytes", static_cast<double>(r->peak_live_bytes));
  call.Record("peak_held_bytes", static_cast<double>(r->peak_held_bytes));
  call.Record("utilization", r->utilization);
}

// Fresh call "allocator_design_trace", arg "<trace> <yours|glibc>": a new
// process whose allocators have served nothing of the trace's.
void TraceInFreshProcess(alloclab::FreshCall& call) {
  const std::vector<std::string> args = absl::StrSplit(call.arg(), ' ');
  // The one trace built alone (traces.h): its build leaves glibc's
  // thresholds where the process started them.
  const std::optional<ad::Trace> trace =
      args.size() == 2 ? ad::BuildTrace(args[0]) : std::nullopt;
  if (!trace.has_value()) {
    return call.Fail(absl::StrCat("bad trace arguments '", call.arg(), "'"));
  }
  if (args[1] == kYours) return RecordTrace(call, ad::ReplayTrace(*trace));
  return RecordTrace(call, ReplayOnGlibc(*trace));
}
ALLOCLAB_FRESH_CALL("allocator_design_trace", TraceInFreshProcess);

// The utilization rows: each trace on yours and on glibc. The traces replay
// the task.cc this program links (traces.h's ReplayTrace() calls it), not
// a preloaded library: with --yours_library naming another one, yours'
// rows would be this binary's task.cc under that library's name, so they
// are left out, and a note says why. Returns yours' utilization per trace
// (nullopt where the replay failed; empty when yours' rows are left out).
std::map<std::string, std::optional<double>> AddUtilizationRows(
    alloclab::Results& results) {
  std::map<std::string, std::optional<double>> yours;
  // The same addresses in every replay: the utilization the same on every
  // run (traces.h).
  const ad::ScopedFixedAddresses fixed;
  const std::string other_library = absl::GetFlag(FLAGS_yours_library);
  std::vector<std::string> below, variants;
  for (const ad::Trace& trace : ad::Traces()) {
    for (const std::string& allocator :
         {std::string(kYours), std::string(ja::kBaseline)}) {
      if (allocator == kYours && !other_library.empty()) continue;
      const std::string variant =
          absl::StrCat("trace_", trace.name, "_", allocator);
      const alloclab::Samples s = alloclab::SamplesOrNote(
          alloclab::RunFreshCalls(variant, "allocator_design_trace", 1,
                                  absl::StrCat(trace.name, " ", allocator)),
          results);
      const std::optional<double> u = s.Median("utilization");
      alloclab::Row& row = results.AddRow(variant);
      row.Set("utilization", u)
          .Set("peak_live_kib", s.Median("peak_live_bytes", 1024))
          .Set("peak_held_kib", s.Median("peak_held_bytes", 1024))
          .Set("utilization_ok",
               u.has_value()
                   ? std::optional<double>(*u >= ad::kMinUtilization ? 1 : 0)
                   : std::nullopt)
          .SetText("workload", trace.name)
          .SetText("allocator", allocator);
      variants.push_back(variant);
      if (allocator == kYours) yours[trace.name] = u;
      if (allocator == kYours && (!u.has_value() || *u < ad::kMinUtilization))
        below.push_back(trace.name);
    }
  }
  results.AddNote(absl::StrFormat(
      "utilization: peak live bytes requested / peak bytes held on each "
      "fixed trace (traces.h), at least %.2f for task.h's promise 5; yours "
      "%s. Replayed in a fresh process each. Yours: bytes_held of your "
      "Counters (pages.h's count); glibc: mallinfo2()'s arena + hblkhd (its "
      "heap and its mapped chunks), less what it held when the replay began: "
      "glibc may reuse free memory its start-up left, so its figure can "
      "only flatter it. %s",
      ad::kMinUtilization,
      !other_library.empty()
          ? absl::StrCat("n/a: the traces replay the task.cc this program "
                         "links, not --yours_library=",
                         other_library,
                         " (build the experiment with that task.cc to see "
                         "its rows)")
      : below.empty() ? "meets it on every trace"
                      : absl::StrCat("is below it (or failed) on ",
                                     absl::StrJoin(below, ", ")),
      fixed.ok() ? "Address randomization off in the replays, and the "
                   "page source's clock still: the same figures on every run"
                 : "Address randomization on in the replays (the kernel "
                   "refused personality(ADDR_NO_RANDOMIZE)): metadata that "
                   "depends on where memory lands may move a figure by a "
                   "node from run to run"));
  results.AddPlot({.kind = alloclab::PlotKind::kBars,
                   .y = "utilization",
                   .title = "utilization on the fixed traces",
                   .variants = variants});
  return yours;
}

// ---------------------------------------------------------------------------
// Two threads against one, on 16-byte blocks of your task.cc.

constexpr int kLineSlots = 1024;      // blocks a thread keeps
constexpr int kLineChurn = 256;       // freed and allocated again each round
constexpr int kAgedBlocks = 1 << 16;  // the aged heap's, one in eight kept

// An allocator of the two-thread rows: yours (task.h's entry points) or,
// beside it as the machine's yardstick, glibc's malloc in the same program.
struct LineAllocator {
  void* (*allocate)(size_t);
  void (*free)(void*);
};
constexpr LineAllocator kYoursLines = {
    [](size_t size) { return ad::Allocate(size, 16, false); },
    [](void* p) { ad::Free(p); }};
constexpr LineAllocator kGlibcLines = {[](size_t size) { return malloc(size); },
                                       [](void* p) { free(p); }};

// LineRounds()
//
// One thread's rounds: free kLineChurn of its blocks at random, allocate
// them again (16 bytes each), then increment the first word of every one.
// At the end its blocks are left in `slots` until `counted` is set.
void LineRounds(const LineAllocator& a, int rounds, uint64_t seed, void** slots,
                std::atomic<int>* done, const std::atomic<bool>* counted) {
  for (int i = 0; i < kLineSlots; ++i) {
    slots[i] = a.allocate(16);
    *static_cast<uint64_t*>(slots[i]) = 0;
  }
  uint64_t x = seed;
  for (int r = 0; r < rounds; ++r) {
    int picked[kLineChurn];
    for (int& i : picked) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
      i = static_cast<int>(x % kLineSlots);
      if (slots[i] != nullptr) a.free(slots[i]);
      slots[i] = nullptr;
    }
    for (int i : picked) {
      if (slots[i] != nullptr) continue;  // picked twice
      slots[i] = a.allocate(16);
      *static_cast<uint64_t*>(slots[i]) = 0;
    }
    for (int i = 0; i < kLineSlots; ++i) {
      volatile uint64_t* word = static_cast<volatile uint64_t*>(slots[i]);
      *word = *word + 1;
    }
  }
  // Sleep, not spin: a thread done first must leave its core to the other.
  done->fetch_add(1);
  done->notify_one();
  counted->wait(false);
  for (int i = 0; i < kLineSlots; ++i) a.free(slots[i]);
}

// Fresh call "allocator_design_two_threads", arg "<threads> <rounds>
// <allocator>" (yours or glibc): that many threads run LineRounds() at once
// on that allocator; the seconds from their start to the last one's end.
void TwoThreadsInFreshProcess(alloclab::FreshCall& call) {
  const std::vector<std::string> args = absl::StrSplit(call.arg(), ' ');
  int threads = 0, rounds = 0;
  if (args.size() != 3 || !absl::SimpleAtoi(args[0], &threads) ||
      !absl::SimpleAtoi(args[1], &rounds) || threads < 1 || rounds < 1 ||
      (args[2] != kYours && args[2] != "glibc")) {
    return call.Fail(absl::StrCat("bad arguments '", call.arg(), "'"));
  }
  const LineAllocator& a = args[2] == kYours ? kYoursLines : kGlibcLines;
  const absl::StatusOr<alloclab::CacheLine> line = alloclab::ReadCacheLine();
  // The aged heap: spans part used, their free blocks in a shuffled order.
  std::thread([&a] {
    std::vector<void*> aged(kAgedBlocks);
    for (void*& p : aged) p = a.allocate(16);
    uint64_t x = 2463534242u;
    for (size_t i = aged.size(); i > 1; --i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      std::swap(aged[i - 1], aged[x % i]);
    }
    for (size_t i = 0; i < aged.size(); ++i) {
      if (i % 8 != 0) a.free(aged[i]);  // one in eight stays live
    }
  }).join();
  std::vector<std::vector<void*>> slots(threads,
                                        std::vector<void*>(kLineSlots));
  std::atomic<int> done{0};
  std::atomic<bool> counted{false};
  std::vector<std::thread> team;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    team.emplace_back(LineRounds, std::cref(a), rounds,
                      uint64_t{88172645463325252u} + t, slots[t].data(), &done,
                      &counted);
  }
  for (int d = done.load(); d != threads; d = done.load()) done.wait(d);
  const std::chrono::duration<double> took =
      std::chrono::steady_clock::now() - start;
  // The lines that hold blocks of more than one thread, at the end.
  std::map<uintptr_t, int> owner;  // line -> thread, or -1: shared
  if (line.ok()) {
    for (int t = 0; t < threads; ++t) {
      for (void* p : slots[t]) {
        const uintptr_t at = reinterpret_cast<uintptr_t>(p);
        for (uintptr_t l = at / line->bytes; l <= (at + 15) / line->bytes;
             ++l) {
          auto [it, fresh] = owner.emplace(l, t);
          if (!fresh && it->second != t) it->second = -1;
        }
      }
    }
  }
  counted.store(true);
  counted.notify_all();
  for (std::thread& t : team) t.join();
  call.Record("seconds", took.count());
  if (line.ok()) {
    call.Record("shared_lines",
                static_cast<double>(std::count_if(
                    owner.begin(), owner.end(),
                    [](const auto& entry) { return entry.second == -1; })));
  }
}
ALLOCLAB_FRESH_CALL("allocator_design_two_threads", TwoThreadsInFreshProcess);

// The rows two_threads_1 and two_threads_2 on yours, glibc_two_threads_1
// and glibc_two_threads_2 on glibc's malloc, all taken in turn, and their
// ratios: the work per second of two threads over one's. glibc's is the
// yardstick: what two threads gain on this machine, at its load, with an
// allocator that gives each thread its own arena.
void AddTwoThreadsRows(alloclab::Lab& lab) {
  const int rounds = lab.options().quick ? 2'000 : 20'000;
  const int processes = lab.options().Repetitions(3, 7);
  std::vector<alloclab::FreshVariant> variants;
  for (absl::string_view allocator : {kYours, absl::string_view("glibc")}) {
    for (int threads : {1, 2}) {
      variants.push_back(
          {.name = absl::StrCat(allocator == kYours ? "" : "glibc_",
                                "two_threads_", threads),
           .call = "allocator_design_two_threads",
           .arg = absl::StrCat(threads, " ", rounds, " ", allocator)});
    }
  }
  std::vector<absl::StatusOr<alloclab::Samples>> runs =
      alloclab::RunFreshInterleaved(variants, processes);
  std::optional<double> seconds[4], shared[4];
  for (int i = 0; i < 4; ++i) {
    const alloclab::Samples s = alloclab::SamplesOrNote(runs[i], lab.results());
    seconds[i] = s.Median("seconds");
    shared[i] = s.Median("shared_lines");
    // A round: kLineChurn frees, as many allocations, kLineSlots increments.
    const int threads = i % 2 + 1;
    const double ops = 2.0 * kLineChurn * rounds * threads;
    lab.results()
        .AddRow(variants[i].name, threads)
        .Set("seconds", seconds[i])
        .Set("shared_lines", shared[i])
        .Set("m_allocs_per_s",
             seconds[i].has_value()
                 ? std::optional<double>(ops / *seconds[i] / 1e6)
                 : std::nullopt)
        .SetText("workload", "two_threads")
        .SetText("allocator", i < 2 ? kYours : "glibc");
  }
  // Two threads' work per second over one's, from rows `one` and `one + 1`.
  auto ratio = [&](int one) {
    return seconds[one].has_value() && seconds[one + 1].has_value()
               ? absl::StrFormat("%.2fx", 2 * *seconds[one] / *seconds[one + 1])
               : std::string("n/a");
  };
  auto lines = [&](int row) {
    return shared[row].has_value() ? absl::StrFormat("%.0f", *shared[row])
                                   : std::string("n/a");
  };
  lab.results().AddNote(absl::StrFormat(
      "two threads against one on 16-byte blocks (task.h's promise 6): two "
      "threads did %s the work per second of one on your task.cc, %s on "
      "glibc's malloc in the same run (the medians of %d fresh processes "
      "each, all taken in turn; 2.00x is two idle cores with no line "
      "shared, 1.00x no gain); at the end %s of their %s held blocks of "
      "both on yours, %s on glibc's. The ratios are measurements of this "
      "machine and its load (the machine line's load average), not a pass "
      "mark: read yours against glibc's",
      ratio(0), ratio(2), processes, lines(1),
      alloclab::DescribeCacheLine(alloclab::ReadCacheLine()), lines(3)));
}

// ---------------------------------------------------------------------------
// The score (score.h): each trace timed on yours and on glibc's malloc.

// The operations a throughput sample times: the trace replayed as many
// times over as it takes to reach this many, after one pass untimed (the
// first pages each allocator maps, faulted in once, are not the trace's).
constexpr uint64_t kTimedOps = uint64_t{1} << 19;

// One pass of `trace` on `a` (the two-thread rows' allocators, yours or
// glibc's): its allocations and frees, one byte written in each block
// (ReplayTrace() checks the blocks; this pass only times). False when an
// allocation failed.
bool TimedPass(const ad::Trace& trace, const LineAllocator& a,
               std::vector<void*>& blocks) {
  for (const ad::TraceOp& op : trace.ops) {
    if (op.kind == ad::TraceOp::Kind::kAllocate) {
      void* p = a.allocate(op.size);
      if (p == nullptr) return false;
      *static_cast<volatile unsigned char*>(p) =
          static_cast<unsigned char>(op.id);
      blocks[op.id] = p;
    } else {
      a.free(blocks[op.id]);
      blocks[op.id] = nullptr;
    }
  }
  return true;
}

// Fresh call "allocator_design_trace_ops", arg "<trace> <yours|glibc>": the
// trace's operations per second on that allocator (yours: task.h's
// Allocate() and Free(); glibc: malloc and free). The rule of the timing,
// for both: the allocator timed has served nothing but the replay's own
// untimed pass, as traces.h's ReplayTrace() asks of a utilization. So the
// process builds its one trace alone, with traces.h's BuildTrace(), which
// frees no large block of glibc's: glibc 2.36 raises its mmap threshold at
// each such free (its trim threshold with it), and once served the `large`
// trace's blocks from its heap, many times faster than a process that had
// only run the trace.
void TraceOpsInFreshProcess(alloclab::FreshCall& call) {
  const std::vector<std::string> args = absl::StrSplit(call.arg(), ' ');
  const std::optional<ad::Trace> trace =
      args.size() == 2 ? ad::BuildTrace(args[0]) : std::nullopt;
  if (!trace.has_value() || (args[1] != kYours && args[1] != ja::kBaseline)) {
    return call.Fail(absl::StrCat("bad trace arguments '", call.arg(), "'"));
  }
  const LineAllocator& a = args[1] == kYours ? kYoursLines : kGlibcLines;
  uint32_t ids = 0;
  for (const ad::TraceOp& op : trace->ops) ids = std::max(ids, op.id + 1);
  std::vector<void*> blocks(ids, nullptr);
  const uint64_t ops = trace->ops.size();
  const uint64_t passes = std::max<uint64_t>(1, (kTimedOps + ops - 1) / ops);
  if (!TimedPass(*trace, a, blocks)) {
    return call.Fail(absl::StrCat(trace->name, ": an allocation failed"));
  }
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t pass = 0; pass < passes; ++pass) {
    if (!TimedPass(*trace, a, blocks)) {
      return call.Fail(absl::StrCat(trace->name, ": an allocation failed"));
    }
  }
  const std::chrono::duration<double> took =
      std::chrono::steady_clock::now() - start;
  call.Record("ops_per_s", static_cast<double>(passes * ops) / took.count());
}
ALLOCLAB_FRESH_CALL("allocator_design_trace_ops", TraceOpsInFreshProcess);

// A value with `digits`, or "n/a".
std::string Cell(std::optional<double> value, int digits) {
  return value.has_value() ? absl::StrFormat("%.*f", digits, *value)
                           : std::string("n/a");
}

// The rows score_<trace> and score_total: score.h's score of yours, its
// utilization part from `utilization` (AddUtilizationRows()'s) and its
// throughput part from each trace timed on yours and on glibc's malloc,
// in fresh processes all taken in turn.
void AddScoreRows(
    alloclab::Lab& lab,
    const std::map<std::string, std::optional<double>>& utilization) {
  if (utilization.empty()) {
    lab.results().AddNote(
        "score: n/a, as yours' utilization rows (the traces replay the "
        "task.cc this program links, not --yours_library)");
    return;
  }
  const int processes = lab.options().Repetitions(3, 7);
  std::vector<alloclab::FreshVariant> variants;
  for (const ad::Trace& trace : ad::Traces()) {
    for (absl::string_view allocator : {kYours, ja::kBaseline}) {
      variants.push_back(
          {.name = absl::StrCat("ops_", trace.name, "_", allocator),
           .call = "allocator_design_trace_ops",
           .arg = absl::StrCat(trace.name, " ", allocator)});
    }
  }
  std::vector<absl::StatusOr<alloclab::Samples>> runs =
      alloclab::RunFreshInterleaved(variants, processes);
  auto mops = [](std::optional<double> v) {
    return v.has_value() ? std::optional<double>(*v / 1e6) : std::nullopt;
  };
  std::vector<ad::TraceScore> scores;
  std::vector<std::string> each, no_utilization;
  for (size_t t = 0; t < ad::Traces().size(); ++t) {
    const std::string& name = ad::Traces()[t].name;
    const std::optional<double> yours =
        alloclab::SamplesOrNote(runs[2 * t], lab.results()).Median("ops_per_s");
    const std::optional<double> glibc =
        alloclab::SamplesOrNote(runs[2 * t + 1], lab.results())
            .Median("ops_per_s");
    alloclab::Row& row = lab.results().AddRow(absl::StrCat("score_", name));
    row.Set("yours_m_ops_per_s", mops(yours))
        .Set("glibc_m_ops_per_s", mops(glibc))
        .SetText("workload", name)
        .SetText("allocator", kYours);
    const auto u = utilization.find(name);
    if (u == utilization.end() || !u->second.has_value()) {
      no_utilization.push_back(name);
      continue;
    }
    ad::TraceScore s =
        ad::ScoreTrace(name, *u->second, ad::ThroughputRatio(yours, glibc));
    row.Set("utilization", s.utilization)
        .Set("u_points", s.utilization_points)
        .Set("ops_ratio", s.throughput_ratio.ok()
                              ? std::optional<double>(*s.throughput_ratio)
                              : std::nullopt)
        .Set("t_points", s.throughput_points)
        .Set("score", s.score);
    each.push_back(absl::StrFormat(
        "%s %s (U %.3f, T/T_glibc %s)", name, Cell(s.score, 3), s.utilization,
        s.throughput_ratio.ok()
            ? absl::StrFormat("%.2fx", *s.throughput_ratio)
            : std::string(s.throughput_ratio.status().message())));
    scores.push_back(std::move(s));
  }
  ad::Score total = ad::TotalScore(scores);
  if (!no_utilization.empty()) {
    total = ad::Score();
    total.unavailable =
        absl::StrCat("no utilization on ", absl::StrJoin(no_utilization, ", "));
  }
  const std::optional<double> u_points =
      no_utilization.empty() ? std::optional<double>(total.utilization_points)
                             : std::nullopt;
  lab.results()
      .AddRow("score_total")
      .Set("u_points", u_points)
      .Set("t_points", total.throughput_points)
      .Set("score", total.score)
      .SetText("workload", "total")
      .SetText("allocator", kYours);
  lab.results().AddNote(absl::StrFormat(
      "score (malloclab's performance index, score.h): per trace P = %.1f U "
      "+ %.1f min(%.0f, T/T_glibc), the total the plain mean over the %d "
      "traces: %s%s = utilization part %s (the same on every run: the "
      "replay's clock stands still, its addresses fixed) + throughput part "
      "%s (this machine at "
      "its load: the median of %d fresh processes per trace and allocator, "
      "yours and glibc's taken in turn, %d operations or more each). Per "
      "trace: %s",
      ad::kUtilizationWeight, 1 - ad::kUtilizationWeight, ad::kThroughputCap,
      static_cast<int>(ad::Traces().size()), Cell(total.score, 3),
      total.unavailable.empty() ? ""
                                : absl::StrCat(" (", total.unavailable, ")"),
      Cell(u_points, 3), Cell(total.throughput_points, 3), processes,
      static_cast<int>(kTimedOps), absl::StrJoin(each, "; ")));
}

// ---------------------------------------------------------------------------

// MatrixSpecFromFlags()
//
// Lab jemalloc_adoption's matrix over the flags' workloads and allocators,
// yours among them, judged by that lab's reference rule.
absl::StatusOr<ja::MatrixSpec> MatrixSpecFromFlags() {
  ja::MatrixSpec spec;
  spec.workloads = List(absl::GetFlag(FLAGS_workloads));
  for (const std::string& name : AllocatorNames()) {
    if (name == kYours) {
      absl::StatusOr<std::string> library = YoursLibrary();
      if (!library.ok()) return library.status();
      spec.allocators.push_back({name, *library});
      continue;
    }
    absl::StatusOr<alloclab::LocatedAllocator> a =
        alloclab::LocateAllocator(name);
    if (!a.ok()) return a.status();  // names the Debian package
    spec.allocators.push_back({name, a->path});
  }
  spec.threads = absl::GetFlag(FLAGS_threads);
  spec.iterations_scale = absl::GetFlag(FLAGS_iterations_scale);
  spec.rss_interval_ms = absl::GetFlag(FLAGS_rss_interval_ms);
  spec.count_syscalls = true;
  // The course's judge (common/adoption/judge.h): lab jemalloc_adoption's
  // reference rule, not a learner's version.
  spec.compare = ja::CompareTimings;
  spec.recommend = ja::Recommend;
  return spec;
}

// AddMemo()
//
// The memo on yours against glibc alone: the rule's answer to "switch to
// yours?", whatever else the table holds, with every rule's input (each
// workload's verdict and memory), not only the first one that failed.
// Returns whether the rule recommends yours.
absl::StatusOr<bool> AddMemo(const ja::MatrixResult& matrix,
                             alloclab::Results& results) {
  std::vector<ja::Measurement> pair;
  for (const ja::Measurement& m : matrix.table) {
    if (m.allocator == ja::kBaseline || m.allocator == kYours)
      pair.push_back(m);
  }
  absl::StatusOr<ja::Recommendation> duel =
      ja::Recommend(pair, ja::kMemoryBudgetRatio, 1);
  if (!duel.ok()) return duel.status();
  const bool recommended = duel->allocator == std::string(kYours);
  std::string why;
  for (const std::string& reason : duel->reasons) {
    // Every allocator is named in a reason of its own (task.h, property 6).
    if (why.empty() && absl::StrContains(reason, kYours)) why = reason;
  }
  if (why.empty()) why = absl::StrJoin(duel->reasons, " ");
  std::vector<std::string> each;
  for (const ja::MatrixRow& row : matrix.rows) {
    if (row.allocator != kYours || !row.vs_baseline.has_value()) continue;
    each.push_back(absl::StrFormat(
        "%s %s (%.2fx time, %.2fx RSS%s)", row.workload,
        ja::VerdictName(row.vs_baseline->verdict), row.vs_baseline->ratio,
        row.rss_ratio.value_or(0), row.verified ? "" : ", not verified"));
  }
  results.AddNote(absl::StrFormat(
      "memo: yours over glibc (Recommend() on their rows alone, budget %.2fx "
      "peak RSS): %s. %s Per workload: %s.",
      ja::kMemoryBudgetRatio, recommended ? "recommended" : "not recommended",
      why, absl::StrJoin(each, "; ")));
  return recommended;
}

// SetHeadline()
//
// The headline: yours over glibc's time, the geometric mean over the
// workloads, and the memo's answer. None when no workload has a ratio.
void SetHeadline(const ja::MatrixResult& matrix, bool recommended,
                 alloclab::Results& results) {
  double log_sum = 0;
  int ratios = 0;
  for (const ja::MatrixRow& row : matrix.rows) {
    if (row.allocator != kYours || !row.vs_baseline.has_value()) continue;
    log_sum += std::log(row.vs_baseline->ratio);
    ++ratios;
  }
  if (ratios == 0) return;
  const double geomean = std::exp(log_sum / ratios);
  results.SetHeadline(
      {"yours / glibc time, geometric mean over workloads", geomean,
       absl::StrFormat("%.2fx; recommended over glibc: %s", geomean,
                       recommended ? "yes" : "no"),
       "0.56x; recommended over glibc: yes (the reference's full run, "
       "load 0.36)"});
}

absl::Status Experiment(alloclab::Lab& lab) {
  absl::StatusOr<ja::MatrixSpec> spec = MatrixSpecFromFlags();
  if (!spec.ok()) return spec.status();
  absl::StatusOr<ja::MatrixResult> matrix = ja::RunMatrix(lab, *spec);
  if (!matrix.ok()) return matrix.status();
  absl::StatusOr<bool> recommended = AddMemo(*matrix, lab.results());
  if (!recommended.ok()) return recommended.status();
  if (lab.options().quick) {
    // Three runs of a tenth of the work leave the scalability_* intervals
    // wide: in four quick runs of the reference on a 2-core VM, two found
    // it slower than glibc there and two did not, where two full runs both
    // recommended it.
    lab.results().AddNote(absl::StrCat(
        kQuickCannotShowDuel,
        ": a verdict rests on intervals that three runs of a tenth of the "
        "work leave wide (the reference's quick runs went either way on "
        "scalability_*); the memory rules and the traces are the full "
        "run's, the answer is the full run's to give"));
  }
  SetHeadline(*matrix, *recommended, lab.results());
  AddTwoThreadsRows(lab);
  AddScoreRows(lab, AddUtilizationRows(lab.results()));
  return absl::OkStatus();
}

absl::Status CheckAllocatorName(absl::string_view name) {
  if (name == kYours) return absl::OkStatus();
  absl::Status s = alloclab::FindAllocator(name).status();
  if (s.ok()) return s;
  return absl::InvalidArgumentError(
      absl::StrCat(s.message(), ", and yours (your ",
                   alloclab::kYoursLibraryFile, ", always in the table)"));
}

absl::Status CheckFlags(const alloclab::LabOptions& options) {
  if (absl::Status s = ja::CheckMatrixFlags(
          options,
          {.workloads = absl::GetFlag(FLAGS_workloads),
           .allocators = absl::GetFlag(FLAGS_allocators),
           .threads = absl::GetFlag(FLAGS_threads),
           .iterations_scale = absl::GetFlag(FLAGS_iterations_scale),
           .tuning_workload = "",
           .rss_interval_ms = absl::GetFlag(FLAGS_rss_interval_ms)},
          CheckAllocatorName);
      !s.ok()) {
    return s;
  }
  return YoursLibrary().status();
}

// Spec()
//
// The lab as RunLab() shows it: its name, its question (--help), its
// columns and its flag checks.
alloclab::LabSpec Spec() {
  std::vector<alloclab::Column> columns = ja::MatrixColumns(/*syscalls=*/true);
  // The trace rows' peaks (peak_live_kib, peak_held_kib) are in the JSON.
  columns.push_back({"m_allocs_per_s", "M allocs+frees/s", 1});
  columns.push_back({"shared_lines", "shared lines", 0});
  columns.push_back({"utilization", 3});
  columns.push_back({"utilization_ok",
                     absl::StrFormat("util >= %.2f", ad::kMinUtilization), 0});
  // The score rows (score.h): the utilization part, then the throughput
  // part, then their sum.
  columns.push_back(
      {"u_points", absl::StrFormat("%.1f U", ad::kUtilizationWeight), 3});
  columns.push_back({"yours_m_ops_per_s", "yours M ops/s", 2});
  columns.push_back({"glibc_m_ops_per_s", "glibc M ops/s", 2});
  columns.push_back({"ops_ratio", "T/T_glibc", 2});
  columns.push_back(
      {"t_points",
       absl::StrFormat("%.1f min(1,T/Tg)", 1 - ad::kUtilizationWeight), 3});
  columns.push_back({"score", 3});
  return {.lab = "allocator_design",
          .usage =
              "Lab allocator_design: your allocator beside glibc, jemalloc, "
              "tcmalloc and mimalloc on lab jemalloc_adoption's six "
              "workloads, judged by that lab's rule; and its utilization on "
              "fixed traces.",
          .usage_flags = "[--yours_library=PATH]",
          .columns = std::move(columns),
          .check_flags = CheckFlags};
}

}  // namespace

ALLOCLAB_EXPERIMENT_MAIN(Spec, Experiment)
