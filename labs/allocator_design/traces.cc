// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The course's fixed traces and their replay (traces.h). Each generated
// trace comes from its own fixed seed with the course's xorshift64 generator
// and plain integer arithmetic, not <random>'s distributions, whose results
// differ between standard libraries: the same trace, op for op, on every
// machine and release.
//
// Each trace separates designs in its own way:
//
//   small_live  many small blocks live at once, half of them replaced, then
//               all freed in random order: a header per block, and rounding
//               sizes up, cost their share of every block;
//   phases      the same 16 MiB live three times, as 64-byte blocks, then
//               4 KiB blocks, then blocks of about 100 KiB, each phase freed
//               before the next: memory kept for one size and never reused
//               for another holds three times the live peak;
//   mixed       sizes from 16 bytes to 64 KiB (as many of each power of two),
//               a live set that grows and shrinks at random: holes of every
//               size, reused or not;
//   large       blocks of 256 KiB to 4 MiB, a few live at once: mappings
//               kept after their free, and not reused for the next size,
//               add up;
//   python      recorded from a real program, not generated: python3
//               with every object a malloc, starting, making 1,500 byte
//               strings of 256 B to 128 KiB, then counting words
//               (recorded_python.trace, whose header says the program, its
//               version and input, and the format; record_trace.py
//               records it again). Over a thousand sizes from 1 byte up,
//               most blocks below 100 bytes, lifetimes from the next
//               operation to the whole run: the mix the generated traces
//               only approximate.
//
// The replay runs on the page source's fake clock, which it never moves:
// decay (task.h's promise 2) never returns memory during a trace, on a fast
// machine or a slow one, so the utilization is the design's alone, the
// same on every machine and every run (score.h's machine-independent part).
//
// The replay writes a word pattern of the block's id over every byte it
// asked for, and checks it before the free: a block handed out twice, or
// overlapping another, or written by the allocator while live, shows.

#include "labs/allocator_design/traces.h"

#include <sys/mman.h>
#include <sys/personality.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/stats/pseudo_random.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"

namespace allocator_design {
namespace internal {
// recorded_python.trace, as :recorded_python_cc builds it in.
extern const char kRecordedPython[];
}  // namespace internal
namespace {

constexpr uint32_t kKiB = 1024;
constexpr uint32_t kMiB = 1024 * kKiB;

// LiveListAllocator
//
// Memory for TraceBuilder's list of live blocks, mapped and unmapped
// directly, never glibc's: the builder frees the list when it is done, and
// a free of glibc's of 128 KiB or more would move its thresholds
// (traces.h).
template <typename T>
struct LiveListAllocator {
  using value_type = T;
  LiveListAllocator() = default;
  template <typename U>
  explicit LiveListAllocator(const LiveListAllocator<U>&) {}

  T* allocate(size_t n) {
    void* p = mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      fprintf(stderr, "traces: mmap of %zu bytes failed\n", n * sizeof(T));
      abort();
    }
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) { munmap(p, n * sizeof(T)); }

  template <typename U>
  bool operator==(const LiveListAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const LiveListAllocator<U>&) const {
    return false;
  }
};

// What a trace needs room for: its operations, and its most blocks live at
// once. TraceBuilder's counting mode finds them.
struct TraceRoom {
  size_t ops = 0;
  size_t max_live = 0;
};

// Builds a trace: ids are handed out in order, and the live blocks are
// kept so that a free can pick one at random. Built with a TraceRoom, the
// trace's operations are reserved once, at their final size, and the live
// list is mapped directly: growing a vector past 128 KiB frees mapped
// chunks of glibc's, each of which moves its mmap threshold (traces.h).
// Counting (`counting`), it only counts: every choice depends
// on the number of live blocks alone, never on which, so the counts are
// those of the real build.
class TraceBuilder {
 public:
  TraceBuilder(std::string name, std::string what, uint64_t seed,
               const TraceRoom* room = nullptr, bool counting = false)
      : rng_(seed), counting_(counting), live_(LiveListAllocator<uint32_t>()) {
    trace_.name = std::move(name);
    trace_.what = std::move(what);
    if (room != nullptr) {
      trace_.ops.reserve(room->ops);
      live_.reserve(room->max_live);
    }
  }

  // A number in [lo, hi].
  uint32_t Uniform(uint32_t lo, uint32_t hi) {
    return lo + static_cast<uint32_t>(rng_.Next() % (uint64_t{hi} - lo + 1));
  }

  // A size whose power of two is uniform in [2^lo_log, 2^hi_log), and
  // uniform within it.
  uint32_t LogUniform(int lo_log, int hi_log) {
    const uint32_t lo = uint32_t{1} << Uniform(lo_log, hi_log - 1);
    return Uniform(lo, 2 * lo - 1);
  }

  size_t live() const { return live_count_; }

  // The room this build took (in counting mode, what the real one needs).
  TraceRoom room() const { return room_; }

  void Allocate(uint32_t size) {
    const uint32_t id = next_id_++;
    ++room_.ops;
    room_.max_live = std::max(room_.max_live, ++live_count_);
    if (counting_) return;
    trace_.ops.push_back({TraceOp::Kind::kAllocate, id, size});
    live_.push_back(id);
  }

  // Frees the live block at `index` of the live list.
  void FreeAt(size_t index) {
    ++room_.ops;
    --live_count_;
    if (counting_) return;
    trace_.ops.push_back({TraceOp::Kind::kFree, live_[index], 0});
    live_[index] = live_.back();
    live_.pop_back();
  }

  void FreeRandom() { FreeAt(static_cast<size_t>(rng_.Next() % live())); }

  void FreeAllInRandomOrder() {
    while (live() != 0) FreeRandom();
  }

  Trace Finish() && {
    FreeAllInRandomOrder();
    return std::move(trace_);
  }

 private:
  alloclab::XorShift64 rng_;
  const bool counting_;
  Trace trace_;
  std::vector<uint32_t, LiveListAllocator<uint32_t>> live_;
  size_t live_count_ = 0;
  TraceRoom room_;
  uint32_t next_id_ = 0;
};

void SmallLive(TraceBuilder& b) {
  constexpr int kBlocks = 64 * 1024;
  for (int i = 0; i < kBlocks; ++i) b.Allocate(b.Uniform(16, 512));
  for (int i = 0; i < kBlocks / 2; ++i) b.FreeRandom();
  for (int i = 0; i < kBlocks / 2; ++i) b.Allocate(b.Uniform(16, 512));
}

void Phases(TraceBuilder& b) {
  constexpr uint64_t kLive = 16 * kMiB;
  for (uint64_t n = 0; n < kLive; n += 64) b.Allocate(64);
  b.FreeAllInRandomOrder();
  for (uint64_t n = 0; n < kLive; n += 4 * kKiB) b.Allocate(4 * kKiB);
  b.FreeAllInRandomOrder();
  for (uint64_t n = 0; n < kLive;) {
    const uint32_t size = b.Uniform(96 * kKiB, 104 * kKiB);
    b.Allocate(size);
    n += size;
  }
}

void Mixed(TraceBuilder& b) {
  constexpr int kOps = 60'000;
  int64_t target = 1500;
  for (int i = 0; i < kOps; ++i) {
    if (i % 1000 == 0) {
      target = std::clamp<int64_t>(target + b.Uniform(0, 1000) - 500, 0, 3000);
    }
    const uint32_t allocate_percent =
        static_cast<int64_t>(b.live()) < target ? 75 : 25;
    if (b.live() == 0 || b.Uniform(1, 100) <= allocate_percent) {
      b.Allocate(b.LogUniform(4, 16));
    } else {
      b.FreeRandom();
    }
  }
}

void Large(TraceBuilder& b) {
  constexpr int kOps = 120;
  for (int i = 0; i < kOps; ++i) {
    const bool allocate =
        b.live() < 4 || (b.live() < 8 && b.Uniform(0, 1) == 0);
    if (allocate) {
      b.Allocate(b.LogUniform(18, 22));
    } else {
      b.FreeRandom();
    }
  }
}

// A generated trace: its name, what it stresses, its seed and its
// operations (Finish() frees what they leave live).
struct Generated {
  const char* name;
  const char* what;
  uint64_t seed;
  void (*ops)(TraceBuilder&);
};

constexpr Generated kGenerated[] = {
    {"small_live",
     "64 Ki small blocks (16-512 B) live, half replaced, all freed in random "
     "order",
     /*seed=*/1, SmallLive},
    {"phases",
     "16 MiB live as 64 B blocks, then as 4 KiB blocks, then as ~100 KiB "
     "blocks, each phase freed before the next",
     /*seed=*/2, Phases},
    {"mixed",
     "sizes 16 B-64 KiB (each power of two alike), a live set that wanders "
     "between 0 and about 3000 blocks",
     /*seed=*/3, Mixed},
    {"large",
     "blocks of 256 KiB-4 MiB, 4 to 8 of them live, replaced at random",
     /*seed=*/4, Large},
};

// The trace `g`, its vectors reserved once at their final size, found by a
// counting build first.
Trace Generate(const Generated& g) {
  TraceBuilder count(g.name, g.what, g.seed, nullptr, /*counting=*/true);
  g.ops(count);
  count.FreeAllInRandomOrder();
  const TraceRoom room = count.room();
  TraceBuilder b(g.name, g.what, g.seed, &room);
  g.ops(b);
  return std::move(b).Finish();
}

// The trace in `text`, a file of record_trace.py's format: `# name:` and
// `# what:` among the header's lines, then "<size>" (allocate the next
// block) or "-<back>" (free the block allocated <back> allocations ago) a
// line. A malformed file is the course's mistake, caught by every test
// that replays the traces: it ends the program, naming the line.
// Room for an op per line is reserved once, as Generate() does.
Trace ParseRecorded(absl::string_view text) {
  Trace trace;
  trace.ops.reserve(
      static_cast<size_t>(std::count(text.begin(), text.end(), '\n') + 1));
  uint32_t next_id = 0;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.empty()) continue;
    if (line[0] == '#') {
      absl::ConsumePrefix(&line, "# ");
      if (absl::ConsumePrefix(&line, "name: ")) trace.name = std::string(line);
      if (absl::ConsumePrefix(&line, "what: ")) trace.what = std::string(line);
      continue;
    }
    const bool is_free = absl::ConsumePrefix(&line, "-");
    uint32_t n = 0;
    if (!absl::SimpleAtoi(line, &n) || (is_free && (n == 0 || n > next_id))) {
      fprintf(stderr, "recorded trace %s, line %d: '%.*s' is not an op\n",
              trace.name.c_str(), line_number, static_cast<int>(line.size()),
              line.data());
      abort();
    }
    if (is_free) {
      trace.ops.push_back({TraceOp::Kind::kFree, next_id - n, 0});
    } else {
      trace.ops.push_back({TraceOp::Kind::kAllocate, next_id++, n});
    }
  }
  return trace;
}

// What the page source has mapped and not unmapped or released, by its own
// counts (pages.h): no allocator holds less.
int64_t MappedLeft() {
  const PageSourceCounts pages = ReadPageSourceCounts();
  return static_cast<int64_t>(pages.bytes_mapped) -
         static_cast<int64_t>(pages.bytes_unmapped) -
         static_cast<int64_t>(pages.bytes_released);
}

// The pattern of block `id`: one word, repeated over its bytes.
uint64_t PatternWord(uint32_t id) {
  return (uint64_t{id} + 1) * 0x9e3779b97f4a7c15ULL;
}

void WritePattern(void* block, uint32_t size, uint32_t id) {
  const uint64_t word = PatternWord(id);
  char* p = static_cast<char*>(block);
  uint32_t i = 0;
  for (; i + 8 <= size; i += 8) memcpy(p + i, &word, 8);
  memcpy(p + i, &word, size - i);
}

// The offset of the first byte that differs from the pattern, or -1.
int64_t CheckPattern(const void* block, uint32_t size, uint32_t id) {
  const uint64_t word = PatternWord(id);
  const char* p = static_cast<const char*>(block);
  uint32_t i = 0;
  for (; i + 8 <= size; i += 8) {
    if (memcmp(p + i, &word, 8) != 0) break;
  }
  for (; i < size; ++i) {
    if (p[i] != reinterpret_cast<const char*>(&word)[i % 8]) return i;
  }
  return -1;
}

std::string Describe(const Trace& trace, size_t index, const TraceOp& op) {
  return absl::StrCat("trace ", trace.name, ", op ", index, " (",
                      op.kind == TraceOp::Kind::kAllocate ? "allocate" : "free",
                      " block ", op.id,
                      op.kind == TraceOp::Kind::kAllocate
                          ? absl::StrCat(", ", op.size, " bytes")
                          : std::string(),
                      ")");
}

}  // namespace

const std::vector<Trace>& Traces() {
  // Each trace moved into the list, never copied: a copy's free of the
  // original's vector would be a free of glibc's of megabytes (BuildTrace()).
  static const std::vector<Trace>* const traces = [] {
    auto* all = new std::vector<Trace>;
    all->reserve(std::size(kGenerated) + 1);
    for (const Generated& g : kGenerated) all->push_back(Generate(g));
    all->push_back(ParseRecorded(internal::kRecordedPython));
    return all;
  }();
  return *traces;
}

std::optional<Trace> BuildTrace(absl::string_view name) {
  for (const Generated& g : kGenerated) {
    if (name == g.name) return Generate(g);
  }
  Trace recorded = ParseRecorded(internal::kRecordedPython);
  if (recorded.name == name) return std::optional<Trace>(std::move(recorded));
  return std::nullopt;
}

absl::StatusOr<TraceResult> ReplayTrace(const Trace& trace) {
  // The page source's clock stands still while the trace replays: no
  // memory goes idle for kDecayNs during it, however slow the machine, so
  // the peak held, and the utilization, are the same on every run.
  internal::ScopedFakeClock still;
  // Everything the replay needs is allocated before the baseline is read,
  // so that only the trace's own blocks move the counters.
  uint32_t ids = 0;
  for (const TraceOp& op : trace.ops) ids = std::max(ids, op.id + 1);
  std::vector<void*> blocks(ids, nullptr);
  std::vector<uint32_t> sizes(ids, 0);

  // Frees what a failed or unfinished replay left live.
  auto free_live = [&] {
    for (void*& block : blocks) {
      Free(block);
      block = nullptr;
    }
  };

  const uint64_t baseline = ReadCounters().bytes_held;
  const int64_t mapped_baseline = MappedLeft();
  uint64_t live = 0;
  TraceResult result;
  for (size_t i = 0; i < trace.ops.size(); ++i) {
    const TraceOp& op = trace.ops[i];
    void*& block = blocks[op.id];
    if (op.kind == TraceOp::Kind::kAllocate) {
      if (block != nullptr) {
        free_live();
        return absl::InvalidArgumentError(absl::StrCat(
            Describe(trace, i, op), ": the block is live already"));
      }
      block = Allocate(op.size, kMinAlignment, /*zero=*/false);
      if (block == nullptr) {
        free_live();
        return absl::DataLossError(absl::StrCat(
            Describe(trace, i, op), ": Allocate() returned nullptr"));
      }
      WritePattern(block, op.size, op.id);
      sizes[op.id] = op.size;
      live += op.size;
      result.peak_live_bytes = std::max(result.peak_live_bytes, live);
    } else {
      if (block == nullptr) {
        free_live();
        return absl::InvalidArgumentError(
            absl::StrCat(Describe(trace, i, op), ": the block is not live"));
      }
      const int64_t changed = CheckPattern(block, sizes[op.id], op.id);
      if (changed >= 0) {
        free_live();
        return absl::DataLossError(
            absl::StrCat(Describe(trace, i, op), ": byte ", changed, " of its ",
                         sizes[op.id], " changed while it was live"));
      }
      Free(block);
      block = nullptr;
      live -= sizes[op.id];
    }
    const uint64_t held = ReadCounters().bytes_held;
    if (held > baseline) {
      result.peak_held_bytes =
          std::max(result.peak_held_bytes, held - baseline);
    }
    const int64_t mapped = MappedLeft();
    if (mapped > mapped_baseline) {
      result.peak_mapped_bytes =
          std::max(result.peak_mapped_bytes,
                   static_cast<uint64_t>(mapped - mapped_baseline));
    }
  }
  free_live();
  if (result.peak_live_bytes == 0) {
    result.utilization = 1.0;
  } else if (result.peak_held_bytes == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "trace ", trace.name,
        ": the allocator took no memory for it, having held enough before "
        "the replay began; replay it in a fresh process"));
  } else {
    result.utilization = static_cast<double>(result.peak_live_bytes) /
                         static_cast<double>(result.peak_held_bytes);
  }
  return result;
}

ScopedFixedAddresses::ScopedFixedAddresses() {
  old_persona_ = personality(0xffffffff);  // reads it
  ok_ = old_persona_ != -1 &&
        personality(static_cast<unsigned long>(old_persona_) |
                    ADDR_NO_RANDOMIZE) != -1 &&
        (personality(0xffffffff) & ADDR_NO_RANDOMIZE) != 0;
}

ScopedFixedAddresses::~ScopedFixedAddresses() {
  if (old_persona_ != -1) {
    personality(static_cast<unsigned long>(old_persona_));
  }
}

}  // namespace allocator_design
