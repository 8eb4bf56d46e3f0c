// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The page source's refusals (labs/allocator_design/pages.h): an
// UnmapPages() or ReleasePages() call outside its contract (`pages` and
// `bytes` as one of the map calls gave them, or a page-aligned part of it)
// writes one line naming the call and the rule, and aborts, as glibc does
// for a bad free(); a call inside it never does, for a part of a mapping,
// a range over two adjacent mappings, an empty range, and while another
// thread splits the same mapping (the race driven step by step through
// the table observer of internal/pages_testing.h, not hoped for).

#include "labs/allocator_design/pages.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "labs/allocator_design/internal/pages_testing.h"

namespace allocator_design {
namespace {

// The rule, as the refusal line and pages.h say it (and a regex of it).
constexpr char kRule[] =
    "pages.h: `pages` and `bytes` as one of the map calls gave them, or a "
    "page-aligned part of it";

// The two calls the contract covers, by name.
struct Call {
  const char* name;
  void (*call)(void*, size_t);
};
constexpr Call kCalls[] = {{"UnmapPages", UnmapPages},
                           {"ReleasePages", ReleasePages}};

// The start of the refusal line of `call` on (pages, bytes), as a regex.
std::string Refused(const Call& call, const void* pages, size_t bytes) {
  char text[128];
  std::snprintf(text, sizeof(text),
                "allocator_design::%s\\(0x%" PRIxPTR ", %zu\\) refused: ",
                call.name, reinterpret_cast<uintptr_t>(pages), bytes);
  return text;
}

std::string Hex(uintptr_t address) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIxPTR, address);
  return text;
}

char* Map(size_t pages) {
  char* p = static_cast<char*>(MapPages(pages * PageSize()));
  EXPECT_NE(p, nullptr) << "MapPages() refused " << pages << " pages";
  return p;
}

TEST(PageSourceRefusal, AStartThatIsNotPageAlignedAborts) {
  const size_t page = PageSize();
  char* p = Map(2);
  ASSERT_NE(p, nullptr);
  for (const Call& call : kCalls) {
    EXPECT_DEATH(
        call.call(p + 1, page),
        Refused(call, p + 1, page) + "`pages` is not page-aligned; " + kRule)
        << call.name << " on a start one byte past a mapping's: " << kRule;
  }
  UnmapPages(p, 2 * page);
}

TEST(PageSourceRefusal, ASizeThatIsNotAPageMultipleAborts) {
  const size_t page = PageSize();
  char* p = Map(2);
  ASSERT_NE(p, nullptr);
  for (const Call& call : kCalls) {
    for (size_t bytes : {size_t{1}, page + 1, 2 * page - 1}) {
      EXPECT_DEATH(call.call(p, bytes),
                   Refused(call, p, bytes) +
                       "`bytes` is not a multiple of PageSize\\(\\); " + kRule)
          << call.name << " of " << bytes << " bytes: " << kRule;
    }
  }
  UnmapPages(p, 2 * page);
}

// A page of this test's own static storage: mapped, but never by the page
// source.
char not_the_page_sources[1];

TEST(PageSourceRefusal, ARangeNeverMappedAborts) {
  const size_t page = PageSize();
  char* own = reinterpret_cast<char*>(
      reinterpret_cast<uintptr_t>(not_the_page_sources) & ~(page - 1));
  for (const Call& call : kCalls) {
    EXPECT_DEATH(call.call(own, page),
                 Refused(call, own, page) +
                     Hex(reinterpret_cast<uintptr_t>(own)) +
                     " is a page in no live mapping of the page source")
        << call.name << " on a page of the program's own: " << kRule;
    EXPECT_DEATH(call.call(nullptr, page),
                 Refused(call, nullptr, page) +
                     "0x0 is a page in no live mapping of the page source")
        << call.name << " on page 0: " << kRule;
  }
}

TEST(PageSourceRefusal, ARangePartlyPastAMappingsEndAborts) {
  const size_t page = PageSize();
  char* p = Map(3);
  ASSERT_NE(p, nullptr);
  UnmapPages(p + 2 * page, page);  // nothing of ours after its second page
  for (const Call& call : kCalls) {
    EXPECT_DEATH(call.call(p, 3 * page),
                 Refused(call, p, 3 * page) +
                     Hex(reinterpret_cast<uintptr_t>(p + 2 * page)) +
                     " is a page in no live mapping of the page source")
        << call.name << " on a 2-page mapping and the page after it: " << kRule;
    EXPECT_DEATH(call.call(p + page, 2 * page),
                 Refused(call, p + page, 2 * page) +
                     Hex(reinterpret_cast<uintptr_t>(p + 2 * page)) +
                     " is a page in no live mapping")
        << call.name
        << " on a mapping's last page and the page after it: " << kRule;
  }
  UnmapPages(p, 2 * page);
}

TEST(PageSourceRefusal, ARangeAlreadyUnmappedAborts) {
  const size_t page = PageSize();
  char* p = Map(4);
  ASSERT_NE(p, nullptr);
  UnmapPages(p, 4 * page);
  for (const Call& call : kCalls) {
    EXPECT_DEATH(call.call(p, 4 * page),
                 Refused(call, p, 4 * page) +
                     Hex(reinterpret_cast<uintptr_t>(p)) +
                     " is a page in no live mapping of the page source "
                     "\\(never mapped, or unmapped since\\); " +
                     kRule)
        << call.name << " on a mapping unmapped before: " << kRule;
  }
  // Its middle page unmapped: the rest lives, the hole does not.
  p = Map(3);
  ASSERT_NE(p, nullptr);
  UnmapPages(p + page, page);
  for (const Call& call : kCalls) {
    EXPECT_DEATH(call.call(p, 3 * page),
                 Refused(call, p, 3 * page) +
                     Hex(reinterpret_cast<uintptr_t>(p + page)) +
                     " is a page in no live mapping")
        << call.name << " over a hole unmapped before: " << kRule;
  }
  UnmapPages(p, page);
  UnmapPages(p + 2 * page, page);
}

// What a call inside the contract does: exactly one unmap or release,
// counted, and no abort.
TEST(PageSourceAccepts, APageAlignedPartOfAMapping) {
  const size_t page = PageSize();
  char* p = static_cast<char*>(MapAlignedPages(8 * page, 4 * page));
  ASSERT_NE(p, nullptr);
  const PageSourceCounts before = ReadPageSourceCounts();
  p[5 * page] = 1;
  ReleasePages(p + 4 * page, 3 * page);
  EXPECT_EQ(p[5 * page], 0) << "released, it reads as zeroes";
  UnmapPages(p + 2 * page, 2 * page);
  ReleasePages(p, 2 * page);
  UnmapPages(p + 4 * page, 4 * page);
  UnmapPages(p, 2 * page);
  const PageSourceCounts after = ReadPageSourceCounts();
  EXPECT_EQ(after.release_calls - before.release_calls, 2u);
  EXPECT_EQ(after.bytes_released - before.bytes_released, 5 * page);
  EXPECT_EQ(after.unmap_calls - before.unmap_calls, 3u);
  EXPECT_EQ(after.bytes_unmapped - before.bytes_unmapped, 8 * page);
}

// Two mappings the kernel placed side by side (one of 64 single pages
// next to another: a fresh process's anonymous maps are packed), released
// and unmapped by one call each over both.
TEST(PageSourceAccepts, ARangeOverTwoAdjacentMappings) {
  const size_t page = PageSize();
  std::vector<char*> maps;
  for (int i = 0; i < 64; ++i) {
    char* p = Map(1);
    ASSERT_NE(p, nullptr);
    maps.push_back(p);
  }
  std::sort(maps.begin(), maps.end());
  auto pair =
      std::adjacent_find(maps.begin(), maps.end(),
                         [&](char* a, char* b) { return a + page == b; });
  ASSERT_NE(pair, maps.end()) << "the kernel placed no two of 64 "
                                 "single-page maps side by side";
  char* first = *pair;
  const PageSourceCounts before = ReadPageSourceCounts();
  ReleasePages(first, 2 * page);
  UnmapPages(first, 2 * page);
  const PageSourceCounts after = ReadPageSourceCounts();
  EXPECT_EQ(after.release_calls - before.release_calls, 1u);
  EXPECT_EQ(after.unmap_calls - before.unmap_calls, 1u);
  EXPECT_EQ(after.bytes_unmapped - before.bytes_unmapped, 2 * page);
  for (char* p : maps) {
    if (p != first && p != first + page) UnmapPages(p, page);
  }
}

// pages.h: an empty range at a page-aligned start, nullptr too, is no
// call: nothing happens, nothing is counted.
TEST(PageSourceAccepts, AnEmptyRangeIsNoCall) {
  char* p = Map(1);
  ASSERT_NE(p, nullptr);
  const PageSourceCounts before = ReadPageSourceCounts();
  UnmapPages(nullptr, 0);
  ReleasePages(nullptr, 0);
  UnmapPages(p, 0);
  ReleasePages(p, 0);
  p[0] = 1;  // still mapped
  const PageSourceCounts after = ReadPageSourceCounts();
  EXPECT_EQ(after.unmap_calls, before.unmap_calls);
  EXPECT_EQ(after.release_calls, before.release_calls);
  UnmapPages(p, PageSize());
}

// ---------------------------------------------------------------------------
// The race: a thread splits a mapping (UnmapPages() of its middle page)
// while another releases pages of its right part, which moves to a slot of
// its own. The observer stops each thread at a chosen step, so every
// round makes one interleaving happen:
//   kSplitPaused: the splitter stops with the right part in two slots; the
//     releaser makes its whole call then.
//   kWalkPaused: the releaser stops after the n-th slot its check reads;
//     the splitter makes its whole call then.
//   kBothPaused: the releaser stops after its n-th read; the splitter runs
//     until the right part is in two slots and stops; the releaser ends
//     its call; then the splitter ends its.
// A lower slot is freed before each split, so that the right part goes
// into a slot the releaser reads before the mapping's own: stopped after
// reading it (still empty), the releaser then reads the old slot shrunk,
// and must look again rather than abort.
// ---------------------------------------------------------------------------

enum class Mode { kSplitPaused, kWalkPaused, kBothPaused };

// One round's script, and where each thread is. Spins yield: one thread
// waits at a time.
struct Round {
  Mode mode = Mode::kSplitPaused;
  int pause_after_read = 0;  // the releaser's n-th read, from 1
  std::atomic<int> reads{0};
  std::atomic<bool> releaser_paused{false}, releaser_go{false};
  std::atomic<bool> releaser_done{false};
  std::atomic<bool> splitter_paused{false}, splitter_go{false};
  std::atomic<int> right_slot{-2};  // where the split put the right part
  std::atomic<int> paused_after_slot{-1};
  std::atomic<int> reads_after_pause{0};
};

std::atomic<Round*> round_now{nullptr};
thread_local bool is_releaser = false;
thread_local bool is_splitter = false;

void WaitFor(const std::atomic<bool>& flag) {
  while (!flag.load(std::memory_order_acquire)) std::this_thread::yield();
}

void Observe(internal::TableStep step, int slot) {
  Round* r = round_now.load(std::memory_order_acquire);
  if (r == nullptr) return;
  if (step == internal::TableStep::kSplitAdded && is_splitter) {
    r->right_slot.store(slot, std::memory_order_release);
    if (r->mode == Mode::kWalkPaused) return;
    r->splitter_paused.store(true, std::memory_order_release);
    WaitFor(r->splitter_go);
  } else if (step == internal::TableStep::kWalkRead && is_releaser) {
    const int n = r->reads.fetch_add(1, std::memory_order_relaxed) + 1;
    if (r->mode == Mode::kSplitPaused) return;
    if (n > r->pause_after_read) {
      r->reads_after_pause.fetch_add(1, std::memory_order_relaxed);
    } else if (n == r->pause_after_read) {
      r->paused_after_slot.store(slot, std::memory_order_relaxed);
      r->releaser_paused.store(true, std::memory_order_release);
      WaitFor(r->releaser_go);
    }
  }
}

TEST(PageSourceRace, ReleasingTheRightPartWhileItsMappingSplitsNeverAborts) {
  const size_t page = PageSize();
  constexpr int kReadPoints = 4;  // pause after the 1st to 4th read
  constexpr int kRepeats = 20;
  internal::SetTableObserver(Observe);
  int rounds = 0, releases = 0, missed_then_found = 0;
  for (int repeat = 0; repeat < kRepeats; ++repeat) {
    for (Mode mode :
         {Mode::kSplitPaused, Mode::kWalkPaused, Mode::kBothPaused}) {
      for (int n = 1; n <= (mode == Mode::kSplitPaused ? 1 : kReadPoints);
           ++n) {
        // A low slot freed, then the mapping to split in a higher one.
        char* low = Map(1);
        char* m = Map(4);
        ASSERT_NE(low, nullptr);
        ASSERT_NE(m, nullptr);
        UnmapPages(low, page);
        Round r;
        r.mode = mode;
        r.pause_after_read = n;
        round_now.store(&r, std::memory_order_release);
        const uint64_t released_before = ReadPageSourceCounts().release_calls;
        std::thread releaser([&] {
          is_releaser = true;
          if (mode == Mode::kSplitPaused) WaitFor(r.splitter_paused);
          ReleasePages(m + 2 * page, 2 * page);
          r.releaser_done.store(true, std::memory_order_release);
        });
        std::thread splitter([&] {
          is_splitter = true;
          if (mode != Mode::kSplitPaused) {
            // Until the releaser stops, or ends its call before its n-th
            // read.
            while (!r.releaser_paused.load(std::memory_order_acquire) &&
                   !r.releaser_done.load(std::memory_order_acquire)) {
              std::this_thread::yield();
            }
          }
          UnmapPages(m + page, page);
        });
        switch (mode) {
          case Mode::kSplitPaused:
            WaitFor(r.releaser_done);
            r.splitter_go.store(true, std::memory_order_release);
            break;
          case Mode::kWalkPaused:
            splitter.join();
            r.releaser_go.store(true, std::memory_order_release);
            break;
          case Mode::kBothPaused:
            while (!r.releaser_paused.load(std::memory_order_acquire) &&
                   !r.releaser_done.load(std::memory_order_acquire)) {
              std::this_thread::yield();
            }
            if (r.releaser_paused.load(std::memory_order_acquire)) {
              WaitFor(r.splitter_paused);
              r.releaser_go.store(true, std::memory_order_release);
              WaitFor(r.releaser_done);
            }
            r.splitter_go.store(true, std::memory_order_release);
            break;
        }
        releaser.join();
        if (splitter.joinable()) splitter.join();
        round_now.store(nullptr, std::memory_order_release);
        ++rounds;
        releases += static_cast<int>(ReadPageSourceCounts().release_calls -
                                     released_before);
        // The releaser read the right part's slot before the split filled
        // it, and read on after it: the pass that missed the page.
        if (mode == Mode::kWalkPaused && r.releaser_paused.load() &&
            r.paused_after_slot.load() == r.right_slot.load() &&
            r.reads_after_pause.load() > 0) {
          ++missed_then_found;
        }
        UnmapPages(m, page);
        UnmapPages(m + 2 * page, 2 * page);
      }
    }
  }
  internal::SetTableObserver(nullptr);
  EXPECT_EQ(releases, rounds) << "every round's release was made, once";
  EXPECT_GT(missed_then_found, 0)
      << "no round stopped the releaser between reading the right part's "
         "new slot (empty) and the mapping's own (shrunk): the race was not "
         "driven";
}

}  // namespace
}  // namespace allocator_design
