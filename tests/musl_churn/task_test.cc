// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab musl_churn's suite, against task.h only: the recycler keeps what its
// bound allows and never more, hands out blocks that are large enough, gives
// everything back, and cuts musl's munmap calls on the thread's churn.
//
// The in-process tests put a tracking backend under the recycler: it knows
// every block the recycler took from it, so "held" is measured, not taken
// from recycler_held_bytes(). The musl test runs this implementation's musl
// build of the churn program (tests/musl_churn/BUILD), which lives beside
// this test's executable as <implementation>_churn_musl.

#include "labs/musl_churn/task.h"

#include <errno.h>  // program_invocation_short_name

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/harness/child_run.h"
#include "common/harness/fresh_process.h"
#include "common/testing/sizes_at_the_top.h"
#include "common/workloads/churn.h"
#include "gtest/gtest.h"
#include "labs/musl_churn/runs.h"

namespace {

// A backend that records every block it hands out, and a record of every
// block the recycler hands out, so that the test can say at any moment how
// many bytes the recycler holds and whether a block was big enough.
class Tracker {
 public:
  explicit Tracker(size_t min_size, size_t bound) {
    config_.min_size = min_size;
    config_.bound_bytes = bound;
    config_.backend = {&Allocate, &Release, this};
    recycler_ = recycler_create(&config_);
  }
  ~Tracker() {
    if (recycler_ != nullptr) recycler_destroy(recycler_);
    for (auto& [block, size] : backend_live_) free(block);
  }

  recycler* r() { return recycler_; }

  // Through the recycler, with every fact checked. A block that is not
  // from the backend, too small or already out on loan is counted and NULL
  // returned instead, so that no caller writes into memory that is not its
  // own (the tests then fail on the count, not on a corrupted heap).
  void* Get(size_t size) {
    void* p = recycler_allocate(recycler_, size);
    if (p == nullptr) {
      ADD_FAILURE() << "recycler_allocate(" << size << ") returned NULL";
      return nullptr;
    }
    // The backend block that holds p, and how many bytes are left from p.
    auto it = backend_live_.upper_bound(p);
    char* c = static_cast<char*>(p);
    if (it == backend_live_.begin() ||
        c >= static_cast<char*>(std::prev(it)->first) + std::prev(it)->second) {
      ++foreign_blocks_;
      return nullptr;
    }
    --it;
    if (static_cast<size_t>(static_cast<char*>(it->first) + it->second - c) <
        size) {
      ++short_blocks_;
      return nullptr;
    }
    if (loaned_.count(it->first) != 0) {
      ++double_loans_;
      return nullptr;
    }
    c[0] = 1;  // the first and last byte are the caller's
    c[size - 1] = 1;
    loaned_[it->first] = it->second;
    loaned_bytes_ += it->second;
    user_to_block_[p] = it->first;
    CheckBound();
    return p;
  }

  void Put(void* p, size_t size) {
    auto it = user_to_block_.find(p);
    if (it != user_to_block_.end()) {
      loaned_bytes_ -= loaned_[it->second];
      loaned_.erase(it->second);
      user_to_block_.erase(it);
    }
    recycler_release(recycler_, p, size);
    CheckBound();
  }

  // Bytes allocated from the backend and not out on loan: what the
  // recycler holds.
  size_t HeldBytes() const { return backend_bytes_ - loaned_bytes_; }
  size_t backend_bytes() const { return backend_bytes_; }
  uint64_t backend_allocations() const { return backend_allocations_; }
  uint64_t backend_releases() const { return backend_releases_; }
  size_t max_held() const { return max_held_; }
  uint64_t short_blocks() const { return short_blocks_; }
  uint64_t foreign_blocks() const { return foreign_blocks_; }
  uint64_t double_loans() const { return double_loans_; }
  uint64_t size_mismatches() const { return size_mismatches_; }
  uint64_t unknown_releases() const { return unknown_releases_; }
  uint64_t held_mismatches() const { return held_mismatches_; }

  // Destroys the recycler now (the destructor then has nothing to do).
  void Destroy() {
    recycler_destroy(recycler_);
    recycler_ = nullptr;
  }

 private:
  static void* Allocate(void* context, size_t size) {
    auto* self = static_cast<Tracker*>(context);
    // glibc's malloc refuses more than PTRDIFF_MAX with NULL; ASan's would
    // abort the test instead (allocation-size-too-big), so the backend
    // refuses those sizes itself, as glibc does.
    if (size > static_cast<size_t>(PTRDIFF_MAX)) return nullptr;
    void* block = malloc(size);
    if (block == nullptr) return nullptr;
    self->backend_live_[block] = size;
    self->backend_bytes_ += size;
    ++self->backend_allocations_;
    return block;
  }

  static void Release(void* context, void* block, size_t size) {
    auto* self = static_cast<Tracker*>(context);
    ++self->backend_releases_;
    auto it = self->backend_live_.find(block);
    if (it == self->backend_live_.end()) {
      ++self->unknown_releases_;  // not ours: never free it
      return;
    }
    if (it->second != size) ++self->size_mismatches_;
    self->backend_bytes_ -= it->second;
    self->backend_live_.erase(it);
    free(block);
  }

  void CheckBound() {
    const size_t held = HeldBytes();
    if (held > max_held_) max_held_ = held;
    if (recycler_held_bytes(recycler_) != held) ++held_mismatches_;
  }

  recycler_config config_{};
  recycler* recycler_ = nullptr;
  std::map<void*, size_t> backend_live_;  // block -> size, ordered by address
  std::map<void*, size_t> loaned_;        // backend block -> size, out on loan
  std::map<void*, void*> user_to_block_;  // handed-out pointer -> its block
  size_t backend_bytes_ = 0;
  size_t loaned_bytes_ = 0;
  size_t max_held_ = 0;
  uint64_t backend_allocations_ = 0;
  uint64_t backend_releases_ = 0;
  uint64_t short_blocks_ = 0;
  uint64_t foreign_blocks_ = 0;
  uint64_t double_loans_ = 0;
  uint64_t size_mismatches_ = 0;
  uint64_t unknown_releases_ = 0;
  uint64_t held_mismatches_ = 0;
};

// The thread's churn through a Tracker: `iterations` at scale 1024.
void ChurnThrough(Tracker& tracker, uint64_t iterations, uint64_t seed) {
  const churn_allocator hooks = {
      [](void* t, size_t size) { return static_cast<Tracker*>(t)->Get(size); },
      [](void* t, void* block, size_t size) {
        static_cast<Tracker*>(t)->Put(block, size);
      },
      &tracker};
  churn_params params;
  std::memset(&params, 0, sizeof(params));
  params.iterations = iterations;
  params.scale = 1024;
  params.seed = seed;
  params.allocator = &hooks;
  ASSERT_NE(churn_run(&params), static_cast<uint64_t>(CHURN_FAILED));
}

constexpr size_t kMin = CHURN_MUSL_MMAP_THRESHOLD;
constexpr size_t kKiB = 1024;

TEST(RecyclerTest, RefusesAConfigWithoutBackend) {
  recycler_config config{};
  config.min_size = kMin;
  config.bound_bytes = 1 << 20;
  EXPECT_EQ(recycler_create(&config), nullptr)
      << "recycler_create() must return NULL for a config without backend "
         "functions";
  EXPECT_EQ(recycler_create(nullptr), nullptr)
      << "recycler_create(NULL) must return NULL";
  // Half a backend is no backend: either call would have nowhere to go.
  recycler_config only_allocate = config;
  only_allocate.backend.allocate = [](void*, size_t size) -> void* {
    return malloc(size);
  };
  EXPECT_EQ(recycler_create(&only_allocate), nullptr)
      << "recycler_create() must return NULL for a config without backend "
         "functions: this one has allocate and no release";
  recycler_config only_release = config;
  only_release.backend.release = [](void*, void* block, size_t) {
    free(block);
  };
  EXPECT_EQ(recycler_create(&only_release), nullptr)
      << "recycler_create() must return NULL for a config without backend "
         "functions: this one has release and no allocate";
}

// task.h: "NULL is a no-op" for recycler_destroy(). In a forked child, so
// that a recycler that dereferences it fails this test and not the whole
// suite.
TEST(RecyclerTest, DestroyOfNullIsANoOp) {
  const absl::StatusOr<bool> returned = alloclab::RunInForkedChild<bool>([] {
    recycler_destroy(nullptr);
    return true;
  });
  EXPECT_TRUE(returned.ok())
      << "recycler_destroy(NULL) is a no-op (task.h); it crashed: "
      << returned.status();
}

// task.h: "The config is copied": what the caller does to its own struct
// after recycler_create() changes nothing.
TEST(RecyclerTest, TheConfigIsCopied) {
  struct Counts {
    int allocations = 0;
    int releases = 0;
  } counts;
  recycler_config config{};
  config.min_size = kMin;
  config.bound_bytes = 64 << 20;
  config.backend.context = &counts;
  config.backend.allocate = [](void* context, size_t size) -> void* {
    ++static_cast<Counts*>(context)->allocations;
    return malloc(size);
  };
  config.backend.release = [](void* context, void* block, size_t) {
    ++static_cast<Counts*>(context)->releases;
    free(block);
  };
  recycler* r = recycler_create(&config);
  ASSERT_NE(r, nullptr);
  // The caller reuses its struct: nothing kept, every size passed through.
  config.bound_bytes = 0;
  config.min_size = SIZE_MAX;
  for (int i = 0; i < 3; ++i) {
    recycler_release(r, recycler_allocate(r, 200 * kKiB), 200 * kKiB);
  }
  EXPECT_EQ(counts.allocations, 1)
      << "the config is copied (task.h): after recycler_create(), the "
         "caller set its own config's bound_bytes to 0 and min_size to "
         "SIZE_MAX; the recycler must go on with the values it was created "
         "with, and reuse a freed 200 KiB block (three rounds made "
      << counts.allocations << " backend allocations)";
  recycler_destroy(r);
  EXPECT_EQ(counts.allocations, counts.releases)
      << "recycler_destroy() gives back everything held";
}

TEST(RecyclerTest, PassesSmallBlocksStraightThrough) {
  Tracker t(kMin, 64 << 20);
  ASSERT_NE(t.r(), nullptr);
  for (int i = 0; i < 10; ++i) {
    void* p = t.Get(100 * kKiB);
    t.Put(p, 100 * kKiB);
    EXPECT_EQ(t.HeldBytes(), 0u) << "a block below min_size was kept";
  }
  EXPECT_EQ(t.backend_allocations(), 10u)
      << "blocks smaller than min_size are passed straight through: ten "
         "allocations of 100 KiB must reach the backend";
  EXPECT_EQ(t.backend_releases(), 10u)
      << "blocks smaller than min_size are passed straight through: ten "
         "releases of 100 KiB must reach the backend";
}

// task.h: "blocks smaller than `min_size` are passed straight through", and
// a block of `min_size` or more "is reused ... when the bound allows it":
// the edge is the caller's min_size, whatever it is (below musl's
// threshold, above it, no multiple of any class), tried at min_size - 1 and
// at min_size itself.
class RecyclerMinSizeTest : public testing::TestWithParam<size_t> {};

TEST_P(RecyclerMinSizeTest, PassesThroughBelowMinSizeAndReusesFromIt) {
  const size_t min_size = GetParam();
  {
    Tracker t(min_size, 64 << 20);
    ASSERT_NE(t.r(), nullptr);
    for (int i = 0; i < 2; ++i) {
      void* p = t.Get(min_size - 1);
      if (p != nullptr) t.Put(p, min_size - 1);
      EXPECT_EQ(t.HeldBytes(), 0u)
          << "blocks smaller than min_size are passed straight through: a "
          << "block of " << min_size - 1 << " bytes was kept, min_size "
          << min_size;
    }
    EXPECT_EQ(t.backend_allocations(), 2u)
        << "blocks smaller than min_size are passed straight through: two "
        << "allocations of " << min_size - 1 << " bytes (min_size " << min_size
        << ") must reach the backend";
    EXPECT_EQ(t.backend_releases(), 2u)
        << "blocks smaller than min_size are passed straight through: two "
        << "releases of " << min_size - 1 << " bytes (min_size " << min_size
        << ") must reach the backend";
  }
  Tracker t(min_size, 64 << 20);
  ASSERT_NE(t.r(), nullptr);
  for (int i = 0; i < 2; ++i) {
    void* p = t.Get(min_size);
    if (p != nullptr) t.Put(p, min_size);
  }
  EXPECT_EQ(t.backend_allocations(), 1u)
      << "a freed large block is reused: allocate, release, allocate the "
      << "same size again makes one backend allocation when the bound allows "
      << "it; a block of exactly min_size (" << min_size << " bytes), bound "
      << "64 MiB";
}

INSTANTIATE_TEST_SUITE_P(MinSizes, RecyclerMinSizeTest,
                         testing::Values(size_t{64} * kKiB,
                                         size_t{200} * kKiB + 5,
                                         size_t{1} << 20),
                         [](const testing::TestParamInfo<size_t>& info) {
                           return absl::StrCat(info.param, "_bytes");
                         });

TEST(RecyclerTest, ReusesAFreedLargeBlock) {
  Tracker t(kMin, 64 << 20);
  ASSERT_NE(t.r(), nullptr);
  for (int i = 0; i < 10; ++i) {
    void* p = t.Get(200 * kKiB);
    t.Put(p, 200 * kKiB);
  }
  EXPECT_EQ(t.backend_allocations(), 1u)
      << "ten rounds of allocate/release of 200 KiB should take one block "
         "from the backend and reuse it";
}

// "A freed large block is reused": every large size, however far past
// min_size, and each by its own size when two are kept at once.
TEST(RecyclerTest, ReusesAFreedBlockOfEveryLargeSize) {
  Tracker t(kMin, 64 << 20);
  ASSERT_NE(t.r(), nullptr);
  const size_t sizes[] = {kMin, size_t{4} << 20, (size_t{8} << 20) + 1,
                          size_t{12} << 20};
  for (size_t size : sizes) {
    const size_t before = t.backend_allocations();
    for (int i = 0; i < 3; ++i) t.Put(t.Get(size), size);
    EXPECT_EQ(t.backend_allocations() - before, 1u)
        << "a freed large block is reused: allocate, release, allocate the "
           "same size again makes one backend allocation when the bound "
           "allows it; "
        << size << " bytes (min_size " << kMin << "), three rounds";
  }
  // Both far sizes are kept now: each request takes its own.
  const size_t before = t.backend_allocations();
  void* small = t.Get((size_t{8} << 20) + 1);
  void* large = t.Get(size_t{12} << 20);
  EXPECT_EQ(t.backend_allocations(), before)
      << "with a block of 8 MiB + 1 and one of 12 MiB kept, a request of "
         "each size reuses its own";
  t.Put(large, size_t{12} << 20);
  t.Put(small, (size_t{8} << 20) + 1);
  t.Destroy();
  EXPECT_EQ(t.size_mismatches(), 0u)
      << "a block went back with another size than it was allocated with";
  EXPECT_EQ(t.backend_allocations(), t.backend_releases())
      << "recycler_destroy() gives back everything held";
}

TEST(RecyclerTest, KeepsWhatItsBoundAllows) {
  constexpr size_t kBound = 1 << 20;
  Tracker t(kMin, kBound);
  ASSERT_NE(t.r(), nullptr);
  std::vector<void*> blocks;
  for (int i = 0; i < 20; ++i) blocks.push_back(t.Get(256 * kKiB));
  for (void* p : blocks) t.Put(p, 256 * kKiB);
  EXPECT_LE(t.HeldBytes(), kBound)
      << "the bytes held must never exceed bound_bytes";
  EXPECT_GE(t.HeldBytes(), kBound / 2)
      << "twenty released 256 KiB blocks and a 1 MiB bound: keep some";
}

// The size the backend gives a request of `size` bytes: what a block of
// that size costs the bound once it is kept (a recycler may round up).
size_t BackendBytesOf(size_t size) {
  Tracker probe(kMin, 64 << 20);
  void* p = probe.Get(size);
  const size_t bytes = probe.backend_bytes();
  if (p != nullptr) probe.Put(p, size);
  return bytes;
}

// task.h: the bytes held, "in bytes as allocated from the backend", never
// exceed the bound, whatever the bound: here two blocks' worth plus the
// caller's size of a third, which is no multiple of any class. A recycler
// that checks the caller's size instead of the class size it keeps takes
// the third block and goes past the bound.
TEST(RecyclerTest, HoldsNoMoreThanABoundThatIsNoMultipleOfAClass) {
  constexpr size_t kSize = 150 * kKiB + 3;  // rounds up in any class scheme
  const size_t block = BackendBytesOf(kSize);
  ASSERT_GE(block, kSize) << "setup: recycler_allocate(" << kSize
                          << ") took no block of that size from the backend";
  const size_t bound = 2 * block + kSize;
  Tracker t(kMin, bound);
  ASSERT_NE(t.r(), nullptr);
  std::vector<void*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(t.Get(kSize));
  for (void* p : blocks) {
    t.Put(p, kSize);
    EXPECT_LE(t.HeldBytes(), bound)
        << "the bytes held, as allocated from the backend, must never exceed "
        << "bound_bytes; with blocks of " << kSize << " bytes taken as "
        << block << " from the backend and a bound of " << bound
        << ", it holds " << t.HeldBytes()
        << " (checked against the caller's size, not the block's?)";
  }
  EXPECT_EQ(t.HeldBytes(), 2 * block)
      << "a bound of two blocks and a bit keeps two of five released blocks";
}

// task.h: the bound is inclusive ("never exceed"): a bound of exactly one
// block keeps that block, and the next allocation of its size reuses it.
TEST(RecyclerTest, KeepsABlockThatFillsTheBoundExactly) {
  constexpr size_t kSize = 200 * kKiB;
  const size_t block = BackendBytesOf(kSize);
  ASSERT_GE(block, kSize) << "setup: recycler_allocate(" << kSize
                          << ") took no block of that size from the backend";
  Tracker t(kMin, block);
  ASSERT_NE(t.r(), nullptr);
  void* p = t.Get(kSize);
  t.Put(p, kSize);
  EXPECT_EQ(t.HeldBytes(), block)
      << "the bound is inclusive: with bound_bytes = " << block
      << ", one block of exactly that size must be kept, not given back "
      << "(held + block <= bound, not <)";
  p = t.Get(kSize);
  if (p != nullptr) t.Put(p, kSize);
  EXPECT_EQ(t.backend_allocations(), 1u)
      << "a block that fills the bound exactly is reused: allocate, release, "
         "allocate the same size makes one backend allocation";
}

TEST(RecyclerTest, NeverHoldsMoreThanItsBound) {
  for (size_t bound : {size_t{0}, size_t{1} << 20, size_t{8} << 20}) {
    Tracker t(kMin, bound);
    ASSERT_NE(t.r(), nullptr);
    ChurnThrough(t, 3 * CHURN_MAX_LIVE, /*seed=*/5);
    EXPECT_LE(t.max_held(), bound)
        << "the bytes held must never exceed bound_bytes; bound " << bound
        << ", held at most " << t.max_held();
  }
}

TEST(RecyclerTest, ReportsWhatItHolds) {
  Tracker t(kMin, 8 << 20);
  ASSERT_NE(t.r(), nullptr);
  ChurnThrough(t, 3 * CHURN_MAX_LIVE, /*seed=*/6);
  EXPECT_EQ(t.held_mismatches(), 0u)
      << "recycler_held_bytes() differed from the bytes really held";
}

TEST(RecyclerTest, HandsOutAtLeastTheRequestedSize) {
  Tracker t(kMin, 64 << 20);
  ASSERT_NE(t.r(), nullptr);
  // Sizes that share a 4 KiB class, smaller first, then the churn.
  for (size_t kib : {129, 130, 131, 132, 132, 131, 130, 129, 132}) {
    void* p = t.Get(kib * kKiB);
    if (p != nullptr) t.Put(p, kib * kKiB);
  }
  if (t.short_blocks() == 0) ChurnThrough(t, 3 * CHURN_MAX_LIVE, /*seed=*/7);
  EXPECT_EQ(t.short_blocks(), 0u)
      << "a block handed out for `size` bytes has at least `size` usable "
         "bytes: blocks smaller than the request";
  EXPECT_EQ(t.foreign_blocks(), 0u)
      << "every block comes from backend.allocate: blocks not from the "
         "backend";
  EXPECT_EQ(t.double_loans(), 0u)
      << "a block is handed out once until it is released: one block handed "
         "out twice at once";
}

TEST(RecyclerTest, GivesEverythingBackWithItsSize) {
  Tracker t(kMin, 16 << 20);
  ASSERT_NE(t.r(), nullptr);
  ChurnThrough(t, 3 * CHURN_MAX_LIVE, /*seed=*/8);
  t.Destroy();
  EXPECT_EQ(t.backend_bytes(), 0u)
      << "recycler_destroy() gives back everything held: held blocks left "
         "after destroy";
  EXPECT_EQ(t.backend_allocations(), t.backend_releases())
      << "every block from backend.allocate goes back through "
         "backend.release";
  EXPECT_EQ(t.size_mismatches(), 0u)
      << "a block went back with another size than it was allocated with";
  EXPECT_EQ(t.unknown_releases(), 0u)
      << "backend.release got a block backend.allocate never gave";
}

// This implementation's musl build of the churn program (see the file
// comment): solution_test and starter_suite run solution_churn_musl and
// starter_churn_musl.
absl::StatusOr<std::string> MuslChurn() {
  absl::string_view name = program_invocation_short_name;
  if (!absl::ConsumeSuffix(&name, "_test"))
    absl::ConsumeSuffix(&name, "_suite");
  return alloclab::ProgramBesideSelf(absl::StrCat(name, "_churn_musl"));
}

TEST(MuslChurnTest, RecyclerCutsMuslsMunmapsTenfold) {
  absl::StatusOr<std::string> found = MuslChurn();
  ASSERT_TRUE(found.ok()) << found.status()
                          << " (tests/musl_churn/BUILD builds one per "
                             "implementation)";
  const std::string& binary = *found;
  // The same seed and iterations with and without the recycler; the
  // steady state only (runs.h), where the recycler can help.
  constexpr int64_t kIterations = 8192;
  musl_churn::ChurnRunSpec spec;
  spec.seed = 11;
  absl::StatusOr<musl_churn::SteadyCounts> without =
      musl_churn::CountSteadySyscalls(binary, spec, kIterations);
  ASSERT_TRUE(without.ok())
      << "the musl churn without the recycler: " << without.status();
  spec.recycle_bound = RECYCLER_LAB_BOUND_BYTES;
  absl::StatusOr<musl_churn::SteadyCounts> with =
      musl_churn::CountSteadySyscalls(binary, spec, kIterations);
  ASSERT_TRUE(with.ok()) << "the musl churn with the recycler: "
                         << with.status();
  const int64_t plain = without->counts.munmap;
  const int64_t recycled = with->counts.munmap;
  // Without a recycler musl unmaps every block of 128 KiB or more: about
  // half the frees.
  EXPECT_GT(plain, kIterations / 4)
      << "setup: musl without a recycler unmaps about every other block";
  EXPECT_LE(recycled * 10, plain)
      << "munmap calls in " << kIterations << " steady iterations: " << plain
      << " without the recycler, " << recycled << " with it";
}

// task.h: recycler_allocate() gives "a block of at least `size` bytes (size
// >= 1), or NULL when the backend has none", for any size up to SIZE_MAX.
// At the top of size_t no backend has one (malloc refuses more than
// PTRDIFF_MAX), so NULL is the answer; a class size that wrapped around
// asks the backend for a few bytes instead and hands them out.
TEST(RecyclerTopOfSizeTest, ASizeNoBackendHasGetsNull) {
  Tracker t(kMin, RECYCLER_LAB_BOUND_BYTES);
  ASSERT_NE(t.r(), nullptr);
  for (const alloclab::TopSize& size : alloclab::SizesAtTheTop()) {
    const size_t before = t.backend_bytes();
    void* p = recycler_allocate(t.r(), size.bytes);
    EXPECT_EQ(p, nullptr)
        << "recycler_allocate(" << size.what << " = " << size.bytes
        << ") returns a block of at least that many bytes, or NULL when the "
        << "backend has none (task.h): no backend has one, yet it returned a "
        << "block; the backend gave " << t.backend_bytes() - before
        << " bytes (a class size that wrapped around?)";
  }
}

// `rounds` rounds of allocating a block of `size` bytes and releasing it.
void AllocateAndRelease(Tracker& t, size_t size, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    void* p = t.Get(size);
    if (p != nullptr) t.Put(p, size);
  }
}

// task.h: blocks smaller than `min_size` pass straight through, and a
// bound of any size keeps what it allows: a min_size at the top of size_t,
// whose rounding up to a class wraps around, keeps nothing; a bound of
// SIZE_MAX, where `bound + 1` wraps, keeps a freed block for reuse.
TEST(RecyclerTopOfSizeTest, AMinSizeAtTheTopPassesEveryBlockThrough) {
  for (const alloclab::TopSize& min_size : alloclab::SizesAtTheTop()) {
    Tracker t(min_size.bytes, RECYCLER_LAB_BOUND_BYTES);
    ASSERT_NE(t.r(), nullptr);
    AllocateAndRelease(t, 200 * kKiB, 2);
    EXPECT_EQ(t.backend_releases(), 2u)
        << "blocks smaller than min_size are passed straight through: two "
        << "blocks of 200 KiB, min_size " << min_size.what << " = "
        << min_size.bytes << ", must both go back to the backend (a "
        << "min_size rounded up to a class that wrapped around to 0?)";
  }
}

TEST(RecyclerTopOfSizeTest, ABoundOfSizeMaxKeepsFreedBlocks) {
  Tracker t(kMin, SIZE_MAX);
  ASSERT_NE(t.r(), nullptr);
  AllocateAndRelease(t, 200 * kKiB, 10);
  EXPECT_EQ(t.backend_allocations(), 1u)
      << "a freed large block is reused when the bound allows it: ten rounds "
      << "of allocate and release of 200 KiB with bound_bytes = SIZE_MAX "
      << "take one block from the backend (a bound + 1 that wrapped to 0?)";
}

}  // namespace
