// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Promise 6 of lab allocator_design (task.h): threads keep to their own
// cache lines, at kOwnLineBytes or the machine's coherency line when that
// is larger (suite_support.h's OwnLineBytes()), in a fixed two-thread
// scenario, in a forked child (its forking thread and a thread it starts)
// and the explorer's random schedules of several threads.
//
// Part of the suite of task_test.cc (whose header says how it is run: in
// fresh processes, on the page source's fake clock, never the wall clock);
// what the files share is suite_support.h. Every failure message quotes
// the rule of task.h it checks.

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/syscalls.h"
#include "common/machine/cpu_facts.h"
#include "common/testing/scoped_env.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/lock_testing.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/traces.h"
#include "tests/allocator_design/forked_child.h"
#include "tests/allocator_design/run_fresh.h"
#include "tests/allocator_design/suite_support.h"

namespace allocator_design::suite {
namespace {

// ---------------------------------------------------------------------------
// Promise 6: threads keep to their own cache lines.
// ---------------------------------------------------------------------------

// Blocks of these sizes, 16 bytes most often (mimalloc-bench's glibc-thread
// shape: four to a 64-byte line); each allocating turn takes one of them.
constexpr size_t kOwnLineSizes[] = {16, 16, 16, 32, 48, 64, 96, 128, 200, 1000};
constexpr int kOwnLineTurns = 1000;

// OwnLineBlock
//
// A live block of one thread: where, and the bytes asked for.
struct OwnLineBlock {
  uintptr_t start = 0;
  size_t size = 0;
};

// SharedLine
//
// A line holding live blocks of both threads: the first one found, and how
// many there are.
struct SharedLines {
  size_t count = 0;
  uintptr_t line = 0;
  size_t sizes[2] = {0, 0};  // a block of each thread's on `line`
};

// CountSharedLines()
//
// The lines of `line_bytes` that hold bytes of a block of live[0] and of a
// block of live[1].
SharedLines CountSharedLines(const std::vector<OwnLineBlock> live[2],
                             uintptr_t line_bytes) {
  struct Holders {
    int mask = 0;
    size_t sizes[2] = {0, 0};
  };
  std::unordered_map<uintptr_t, Holders> lines;
  for (int t = 0; t < 2; ++t) {
    for (const OwnLineBlock& b : live[t]) {
      for (uintptr_t line = b.start / line_bytes;
           line <= (b.start + b.size - 1) / line_bytes; ++line) {
        Holders& h = lines[line];
        h.mask |= 1 << t;
        h.sizes[t] = b.size;
      }
    }
  }
  SharedLines shared;
  for (const auto& [line, h] : lines) {
    if (h.mask != 3) continue;
    if (shared.count++ == 0 || line < shared.line) {
      shared.line = line;
      shared.sizes[0] = h.sizes[0];
      shared.sizes[1] = h.sizes[1];
    }
  }
  return shared;
}

// OwnLineTurn()
//
// One turn of thread `me` (0 or 1) on its live blocks `mine`: allocates 1 to
// 48 blocks of one size of kOwnLineSizes (while it has fewer than 64 live,
// and at random below 1500), each written, or frees a random half of them,
// from `rng`. False when an Allocate() gave nullptr.
bool OwnLineTurn(Rng& rng, std::vector<OwnLineBlock>& mine, int me) {
  if (mine.size() < 64 || (mine.size() < 1500 && rng.Next() % 2 == 0)) {
    const size_t size = kOwnLineSizes[rng.Next() % std::size(kOwnLineSizes)];
    const int count = static_cast<int>(rng.Between(1, 48));
    for (int i = 0; i < count; ++i) {
      void* p = Allocate(size, 1, false);
      if (p == nullptr) return false;
      memset(p, me + 1, size);  // written, as a thread's own data is
      mine.push_back({reinterpret_cast<uintptr_t>(p), size});
    }
    return true;
  }
  for (size_t i = mine.size(); i > 1; --i) {  // a shuffle, seeded
    std::swap(mine[i - 1], mine[rng.Next() % i]);
  }
  for (size_t n = mine.size() / 2; n > 0; --n) {
    Free(reinterpret_cast<void*>(mine.back().start));
    mine.pop_back();
  }
  return true;
}

// OwnLineTurns
//
// Threads 0 ("A") and 1 ("B") taking kOwnLineTurns turns of OwnLineTurn()
// between them, one at a time, in a fixed order (a turn is the lock's: the
// other waits for it); after every turn, with neither in the allocator,
// the lines of `line_bytes` that hold live blocks of both are counted.
struct OwnLineTurns {
  explicit OwnLineTurns(uintptr_t line_bytes) : line_bytes(line_bytes) {}

  // Thread `me`'s turns, from turn number `first` (0 or 1: whose turn
  // comes first) on, every other one, its blocks from `rng`.
  void Run(int me, int first, Rng& rng) {
    for (int t = first; t < kOwnLineTurns; t += 2) {
      std::unique_lock<std::mutex> lock(mu);
      turned.wait(lock, [&] { return turn == t; });
      if (!OwnLineTurn(rng, live[me], me)) ++failed;
      const SharedLines shared = CountSharedLines(live, line_bytes);
      if (shared.count != 0) {
        ++sharing_turns;
        if (first_turn < 0) {
          first_turn = t;
          first_shared = shared;
        }
        most_shared = std::max(most_shared, shared.count);
      }
      ++turn;
      turned.notify_all();
    }
  }

  // Frees every live block of both threads.
  void FreeAll() {
    for (std::vector<OwnLineBlock>& mine : live) {
      for (const OwnLineBlock& block : mine) {
        Free(reinterpret_cast<void*>(block.start));
      }
      mine.clear();
    }
  }

  // Records "failed" (plus `failed_before`), "sharing_turns",
  // "most_shared", "first_turn", "first_size_a" and "first_size_b".
  void Record(alloclab::FreshCall& call, int failed_before) const {
    call.Record("failed", failed_before + failed);
    call.Record("sharing_turns", sharing_turns);
    call.Record("most_shared", static_cast<double>(most_shared));
    call.Record("first_turn", first_turn);
    call.Record("first_size_a", static_cast<double>(first_shared.sizes[0]));
    call.Record("first_size_b", static_cast<double>(first_shared.sizes[1]));
  }

  const uintptr_t line_bytes;
  std::vector<OwnLineBlock> live[2];
  std::mutex mu;
  std::condition_variable turned;
  int turn = 0;
  int failed = 0, sharing_turns = 0, first_turn = -1;
  size_t most_shared = 0;
  SharedLines first_shared;
};

// In a fresh process: threads A and B take turns, one at a time, in a fixed
// order (a turn is the lock's: the other waits for it), kOwnLineTurns in
// all. In its turn a thread allocates 1 to 48 blocks of one size of
// kOwnLineSizes, or frees a random half of its live blocks, in a random
// order (fixed seeds): its cache fills, drains and refills, as a program's
// does. After every turn, with both threads alive and neither in the
// allocator, the lines (of `arg` bytes) that hold live blocks of both are
// counted. Every call is made in the same order on every run: the count is
// a fact of the design, not of the scheduler.
void OwnLinesCall(alloclab::FreshCall& call) {
  uintptr_t line_bytes = 0;
  if (!absl::SimpleAtoi(call.arg(), &line_bytes) || line_bytes == 0) {
    call.Fail(absl::StrCat("not a line size: '", call.arg(), "'"));
    return;
  }
  // The decay's clock stands still: no flush of a cache in the middle.
  internal::ScopedFakeClock clock;
  OwnLineTurns turns(line_bytes);
  auto run = [&](int me) {
    Rng rng(61 + static_cast<uint64_t>(me));
    turns.Run(me, me, rng);
  };
  std::thread a(run, 0);
  std::thread b(run, 1);
  a.join();
  b.join();
  turns.FreeAll();
  turns.Record(call, 0);
}
ALLOCLAB_FRESH_CALL("allocator_design_own_lines", OwnLinesCall);

TEST(DesignOwnLines, TwoThreadsNeverShareALineOfLiveBlocks) {
  const uintptr_t line_bytes = OwnLineBytes();
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_own_lines", absl::StrCat(line_bytes));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
  EXPECT_EQ(r->values["sharing_turns"], 0)
      << kRuleOwnLines << ": two threads taking turns, " << kOwnLineTurns
      << " turns of allocating 1 to 48 blocks of 16 to 1000 bytes or freeing "
      << "half of their own; after " << r->values["sharing_turns"]
      << " of those turns, lines of " << line_bytes
      << " bytes (kOwnLineBytes, or this machine's line when larger) held live "
         "blocks of both threads: up to "
      << r->values["most_shared"] << " lines at once, first after turn "
      << r->values["first_turn"] << " (one line held thread A's block of "
      << r->values["first_size_a"] << " bytes and thread B's of "
      << r->values["first_size_b"] << ")";
}

// ---------------------------------------------------------------------------
// Promise 6 in a forked child: the forking thread and a thread of the child.
// ---------------------------------------------------------------------------

// Turns the forking thread takes alone before the fork; the seeds of the
// fresh processes, one each (each leaves the forking thread's caches and
// spans in another state at the fork).
constexpr int kForkOwnLineTurnsBefore = 120;
constexpr int kForkOwnLineSeeds = 8;

// In a fresh process (argument: "<line bytes> <seed>"), the clock standing
// still: this thread ("A") takes kForkOwnLineTurnsBefore turns of
// OwnLineTurn() alone, keeping its live blocks, then forks (ForkPrepare(),
// fork(), ForkParent() or ForkChild(), as the shim's pthread_atfork()
// handlers call them). In the child, A (its blocks live at the fork are
// live in the child, and its own) and a thread the child starts ("B") take
// OwnLineTurns' turns, B's first (its first refill comes while A's caches
// and spans are as the fork left them), both running to the end. The child
// sends its tallies back in a page it shares with its parent. Records
// "child_done" and OwnLineTurns'. This process starts no thread before it
// forks, so ThreadSanitizer (whose state does not survive the fork of a
// threaded process: locks_test.cc's fork check) lets the child start one.
void ForkOwnLinesCall(alloclab::FreshCall& call) {
  uintptr_t line_bytes = 0;
  uint64_t seed = 0;
  const std::vector<absl::string_view> args = absl::StrSplit(call.arg(), ' ');
  if (args.size() != 2 || !absl::SimpleAtoi(args[0], &line_bytes) ||
      line_bytes == 0 || !absl::SimpleAtoi(args[1], &seed)) {
    call.Fail(absl::StrCat("not '<line bytes> <seed>': '", call.arg(), "'"));
    return;
  }
  // The child's tallies, in a page it shares with its parent.
  struct Tally {
    std::atomic<int> done, failed, sharing_turns, first_turn;
    std::atomic<uint64_t> most_shared, first_sizes[2];
  };
  void* page = mmap(nullptr, sizeof(Tally), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) {
    call.Fail("could not map a shared page");
    return;
  }
  Tally* tally = new (page) Tally;
  internal::ScopedFakeClock clock;
  OwnLineTurns turns(line_bytes);
  Rng rng_a(71 + 2 * seed);
  int failed_before = 0;
  for (int t = 0; t < kForkOwnLineTurnsBefore; ++t) {
    if (!OwnLineTurn(rng_a, turns.live[0], 0)) ++failed_before;
  }
  ForkPrepare();
  const pid_t pid = fork();
  if (pid == 0) {
    internal::SetLockObserver(suite::ExitWhenWaitingForever);
    ForkChild();
    std::thread b([&] {
      Rng rng_b(72 + 2 * seed);
      turns.Run(1, 0, rng_b);
    });
    turns.Run(0, 1, rng_a);
    b.join();
    tally->failed.store(turns.failed);
    tally->sharing_turns.store(turns.sharing_turns);
    tally->first_turn.store(turns.first_turn);
    tally->most_shared.store(turns.most_shared);
    tally->first_sizes[0].store(turns.first_shared.sizes[0]);
    tally->first_sizes[1].store(turns.first_shared.sizes[1]);
    tally->done.store(1);
    _exit(0);
  }
  ForkParent();
  // A bound on a child stopped by a lock it inherited held, far past what
  // its turns take: no verdict depends on how long they took.
  // A child about to wait for a lock no thread of its own holds exits at
  // once (forked_child.h).
  int status = 0;
  bool exited = false;
  for (int i = 0; pid > 0 && i < 60 * 100 && !exited; ++i) {
    exited = waitpid(pid, &status, WNOHANG) == pid;
    if (!exited) usleep(10'000);
  }
  if (pid > 0 && !exited) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  call.Record("child_waited_forever",
              exited && WIFEXITED(status) &&
                      WEXITSTATUS(status) == suite::kChildWaitedForever
                  ? 1
                  : 0);
  turns.FreeAll();
  turns.failed = tally->failed.load();
  turns.sharing_turns = tally->sharing_turns.load();
  turns.first_turn = tally->first_turn.load();
  turns.most_shared = tally->most_shared.load();
  turns.first_shared.sizes[0] = tally->first_sizes[0].load();
  turns.first_shared.sizes[1] = tally->first_sizes[1].load();
  turns.Record(call, failed_before);
  call.Record("child_done", tally->done.load());
}
ALLOCLAB_FRESH_CALL("allocator_design_fork_own_lines", ForkOwnLinesCall);

// task.h, ForkChild(): a child is a copy of the parent, started with one
// thread, the one that forked: the blocks live at the fork are live in it
// and its own, so promise 6 holds between them and the blocks of a thread
// the child starts (only the vanished threads' blocks are nobody's, as an
// exited thread's are). Each seed leaves the forking thread's caches and
// spans in another state at the fork.
TEST(DesignOwnLines, AForkedChildsThreadsKeepToTheirOwnLines) {
  const uintptr_t line_bytes = OwnLineBytes();
  for (int seed = 1; seed <= kForkOwnLineSeeds; ++seed) {
    absl::StatusOr<alloclab::FreshCallResult> r = RunFresh(
        "allocator_design_fork_own_lines", absl::StrCat(line_bytes, " ", seed));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->values["child_done"], 1)
        << "task.h: a forked child may allocate; the child of seed " << seed
        << " did not finish its turns"
        << (r->values["child_waited_forever"] != 0
                ? ": it was about to wait for a lock that a thread of the "
                  "parent's held at the fork and no thread of the child holds"
                : "");
    EXPECT_EQ(r->values["failed"], 0) << kRuleAvailable;
    EXPECT_EQ(r->values["sharing_turns"], 0)
        << kRuleOwnLines << "; task.h, ForkChild(): a child starts with one "
        << "thread, the one that forked, and the blocks live at the fork are "
        << "live in it, its own. Seed " << seed << ": the forking thread A "
        << "took " << kForkOwnLineTurnsBefore << " turns of allocating 1 to "
        << "48 blocks of 16 to 1000 bytes or freeing half of its own, then "
        << "forked; in the child, a new thread B and A took " << kOwnLineTurns
        << " turns between them, B first; after " << r->values["sharing_turns"]
        << " of those turns, lines of " << line_bytes
        << " bytes (kOwnLineBytes, or this machine's line when larger) held "
           "live blocks "
        << "of both: up to " << r->values["most_shared"] << " lines at once, "
        << "first after turn " << r->values["first_turn"] << " (one line "
        << "held A's block of " << r->values["first_size_a"] << " bytes and "
        << "B's of " << r->values["first_size_b"] << ")";
  }
}

// ---------------------------------------------------------------------------
// Design, explored: promise 6. Random schedules of calls from several
// threads, each in a fresh process from its own seed, the lines of live
// blocks checked after every step against the blocks the suite tracks (where
// Allocate() put them, the sizes asked for), never against anything the
// allocator says. The fixed test above has two threads of one alignment
// that never exit and never free each other's blocks; these have up to
// kOwnLineThreads at once, every alignment to 4 KiB, zeroed requests, blocks
// freed by another thread (their lines then excluded, as task.h says),
// threads that exit with blocks live (theirs then nobody's) and new ones
// that take their place.
// ---------------------------------------------------------------------------

constexpr int kOwnLineSchedules = SchedulesToRun(64);
constexpr int kOwnLineScheduleSteps = 160;
constexpr int kOwnLineThreads = 3;
// The most blocks a thread keeps live: its cache fills, drains and refills.
constexpr size_t kOwnLineMostLive = 600;

// OwnLinesExplorer
//
// One schedule: steps drawn from `seed`, on kOwnLineThreads threads, each
// one of: a group of 1 to 48 allocations of one size (a class edge to
// 4 KiB, more often a small one; now and then to 64 KiB) at one alignment
// (the minimum, or a power of two to 4 KiB), zeroed or not, each block
// written all over by its thread; frees of a share of the thread's own
// blocks, in a random order; frees of another thread's blocks (or of an
// exited thread's), whose lines (all of each block, as far as UsableSize()
// says) are then that thread's to reuse, left out of the check for the rest
// of the schedule; a thread's exit, its live blocks then nobody's (a new
// thread takes its place at its next step). After every step, every line
// of `line_bytes` (common/machine/cpu_facts.h) that holds bytes of live blocks
// of two running threads, and was never under a block freed by another thread,
// is a failure.
class OwnLinesExplorer {
 public:
  OwnLinesExplorer(uintptr_t line_bytes, uint64_t seed, int steps)
      : line_bytes_(line_bytes),
        seed_(seed),
        steps_count_(steps),
        rng_(seed),
        edges_(EdgeSizes(64 * kKiB)) {}

  // "" when every check held, else the failure, with the seed and the
  // schedule's steps so far.
  std::string Run() {
    for (int step = 0; step < steps_count_ && failure_.empty(); ++step) {
      RandomStep();
      Check();
    }
    // The end: every thread frees what it has live, then exits.
    for (int t = 0; t < kOwnLineThreads; ++t) {
      if (threads_[t] != nullptr) FreeOwn(t, /*all=*/true);
      ExitThread(t);
    }
    if (!orphans_.empty()) {
      Thread(0).Run([&] {
        for (const Live& b : orphans_) Free(reinterpret_cast<void*>(b.start));
      });
      orphans_.clear();
      ExitThread(0);
    }
    return failure_;
  }

  int checks() const { return checks_; }
  int threads() const { return threads_started_; }

 private:
  struct Live {
    uintptr_t start;
    size_t size;
    size_t usable;  // UsableSize(): the block, whose lines a free by another
                    // thread makes that thread's
    size_t alignment;
    int owner;  // the thread that allocated it: its id, never reused
  };

  void RandomStep() {
    const uint64_t pick = rng_.Next() % 100;
    const int t = static_cast<int>(rng_.Next() % kOwnLineThreads);
    if (pick < 45) {
      AllocateGroup(t);
    } else if (pick < 70) {
      FreeOwn(t, rng_.Next() % 8 == 0);
    } else if (pick < 82) {
      FreeOthers(t);
    } else if (pick < 90) {
      ExitThread(t);
    } else {
      Pairs(t);
    }
  }

  ScheduledThread& Thread(int t) {
    if (threads_[t] == nullptr) {
      threads_[t] = std::make_unique<ScheduledThread>();
      ids_[t] = ++threads_started_;
    }
    return *threads_[t];
  }

  // A class edge to 4 KiB, the smaller ones more often (the least of two
  // draws), or now and then one to 64 KiB.
  size_t Size() {
    size_t i =
        std::min(rng_.Next() % edges_.size(), rng_.Next() % edges_.size());
    if (rng_.Next() % 8 != 0) {
      while (edges_[i] > 4 * kKiB) i /= 2;
    }
    return std::max<size_t>(edges_[i], 1);
  }

  // The minimum half the time, else a power of two from 32 to 4 KiB, 32
  // (less than a line) as often as all the others.
  size_t Alignment() {
    if (rng_.Next() % 2 == 0) return 1;
    if (rng_.Next() % 2 == 0) return 32;
    return size_t{64} << (rng_.Next() % 7);
  }

  void AllocateGroup(int t) {
    const size_t size = Size();
    const size_t alignment = Alignment();
    const bool zero = rng_.Next() % 4 == 0;
    const int n = static_cast<int>(rng_.Between(1, 48));
    std::vector<void*> got(n);
    std::vector<size_t> usable(n);
    Thread(t).Run([&] {
      for (int i = 0; i < n; ++i) {
        got[i] = Allocate(size, alignment, zero);
        if (got[i] == nullptr) continue;
        std::memset(got[i], 0x5a, size);  // the thread's data
        usable[i] = UsableSize(got[i]);
      }
    });
    for (int i = 0; i < n; ++i) {
      if (got[i] == nullptr) {
        return Fail(absl::StrCat(kRuleAvailable, ": Allocate(", size, ", ",
                                 alignment, ") failed"));
      }
      own_.push_back({Address(got[i]), size, std::max(size, usable[i]),
                      alignment, ids_[t]});
    }
    Note(absl::StrCat("thread ", t, " (id ", ids_[t], ") allocates ", n,
                      " blocks of ", size, " bytes aligned to ", alignment,
                      zero ? ", zeroed" : ""));
    // Too many live: the thread frees half of its own.
    size_t mine = 0;
    for (const Live& b : own_) mine += b.owner == ids_[t] ? 1 : 0;
    if (mine > kOwnLineMostLive) FreeOwn(t, false);
  }

  // `n` blocks of one size allocated and freed at once, in pairs: the
  // thread's cache turns over without keeping anything live.
  void Pairs(int t) {
    const size_t size = Size();
    const int n = static_cast<int>(rng_.Between(1, 256));
    Thread(t).Run([&] {
      for (int i = 0; i < n; ++i) Free(Allocate(size, 1, false));
    });
    Note(
        absl::StrCat("thread ", t, " makes ", n, " pairs of ", size, " bytes"));
  }

  // TakeShare(), the blocks in a random order.
  template <typename Take>
  std::vector<Live> Share(std::vector<Live>& from, bool all, Take take) {
    std::vector<Live> chosen = TakeShare(rng_, from, all, take);
    for (size_t i = chosen.size(); i > 1; --i) {
      std::swap(chosen[i - 1], chosen[rng_.Next() % i]);
    }
    return chosen;
  }

  void FreeOn(int t, const std::vector<Live>& blocks) {
    Thread(t).Run([&] {
      for (const Live& b : blocks) Free(reinterpret_cast<void*>(b.start));
    });
  }

  // Thread t frees some of its own blocks (all of them when `all`).
  void FreeOwn(int t, bool all) {
    if (threads_[t] == nullptr) return;
    const int id = ids_[t];
    const std::vector<Live> chosen =
        Share(own_, all, [&](const Live& b) { return b.owner == id; });
    if (chosen.empty()) return;
    FreeOn(t, chosen);
    Note(
        absl::StrCat("thread ", t, " frees ", chosen.size(), " of its blocks"));
  }

  // Thread t frees some blocks of another running thread, or of exited
  // ones: their lines are t's to reuse from now on (task.h), and left out.
  void FreeOthers(int t) {
    Thread(t);
    const int id = ids_[t];
    std::vector<Live> chosen =
        Share(orphans_, false, [](const Live&) { return true; });
    const std::vector<Live> theirs = Share(own_, false, [&](const Live& b) {
      return b.owner != id && rng_.Next() % 2 == 0;
    });
    chosen.insert(chosen.end(), theirs.begin(), theirs.end());
    if (chosen.empty()) return;
    FreeOn(t, chosen);
    for (const Live& b : chosen) {
      for (uintptr_t line = b.start / line_bytes_;
           line <= (b.start + std::max<size_t>(b.usable, 1) - 1) / line_bytes_;
           ++line) {
        excluded_.insert(line);
      }
    }
    Note(absl::StrCat("thread ", t, " frees ", chosen.size(),
                      " blocks of other threads (", theirs.size(),
                      " of running ones): their lines are left out"));
  }

  // Thread t exits; its live blocks are nobody's.
  void ExitThread(int t) {
    if (threads_[t] == nullptr) return;
    threads_[t]->Exit();
    threads_[t] = nullptr;
    const int id = ids_[t];
    const std::vector<Live> left =
        Share(own_, true, [&](const Live& b) { return b.owner == id; });
    orphans_.insert(orphans_.end(), left.begin(), left.end());
    Note(absl::StrCat("thread ", t, " exits; ", left.size(),
                      " of its blocks live, nobody's now"));
  }

  // Promise 6: see the class comment. Only a block's first and last lines
  // can hold another block's bytes.
  void Check() {
    if (!failure_.empty()) return;
    ++checks_;
    std::unordered_map<uintptr_t, const Live*> holder;
    for (const Live& b : own_) {
      const uintptr_t first = b.start / line_bytes_;
      const uintptr_t last =
          (b.start + std::max<size_t>(b.size, 1) - 1) / line_bytes_;
      for (uintptr_t line : {first, last}) {
        if (excluded_.count(line) != 0) continue;
        auto [it, inserted] = holder.emplace(line, &b);
        if (inserted || it->second->owner == b.owner) continue;
        const Live& a = *it->second;
        return Fail(absl::StrCat(
            kRuleOwnLines, ": the line of ", line_bytes_, " bytes at ",
            absl::StrFormat("%#x", line * line_bytes_),
            " holds bytes of thread id ", a.owner, "'s live block of ", a.size,
            " bytes aligned to ", a.alignment, " at ",
            absl::StrFormat("%#x", a.start), " and of thread id ", b.owner,
            "'s live block of ", b.size, " bytes aligned to ", b.alignment,
            " at ", absl::StrFormat("%#x", b.start),
            "; both threads run, and no block on that line was freed by "
            "another thread"));
      }
    }
  }

  void Note(std::string step) { log_.Note(std::move(step)); }

  void Fail(const std::string& what) {
    failure_ = log_.Failure(what, "own-lines explorer", seed_, steps_count_);
  }

  const uintptr_t line_bytes_;
  const uint64_t seed_;
  const int steps_count_;
  Rng rng_;
  const std::vector<size_t> edges_;
  std::unique_ptr<ScheduledThread> threads_[kOwnLineThreads];
  int ids_[kOwnLineThreads] = {};
  int threads_started_ = 0;
  std::vector<Live> own_;                   // live, of running threads
  std::vector<Live> orphans_;               // live, of threads that have exited
  std::unordered_set<uintptr_t> excluded_;  // lines under a block freed by
                                            // another thread
  ScheduleLog log_;
  std::string failure_;
  int checks_ = 0;
};

void OwnLinesExplorerCall(alloclab::FreshCall& call) {
  // The decay's clock stands still: no flush of a cache in the middle.
  internal::ScopedFakeClock clock;
  uint64_t seed = 0;
  int steps = kOwnLineScheduleSteps;
  if (!ParseSchedule(call, seed, steps)) return;
  OwnLinesExplorer explorer(OwnLineBytes(), seed, steps);
  const std::string failure = explorer.Run();
  call.Record("checks", explorer.checks());
  call.Record("threads", explorer.threads());
  if (!failure.empty()) call.Fail(failure);
}
ALLOCLAB_FRESH_CALL("allocator_design_own_lines_explorer",
                    OwnLinesExplorerCall);

TEST(DesignOwnLinesExplorer, RandomSchedulesKeepThreadsToTheirOwnLines) {
  ::testing::Test::RecordProperty("line_bytes",
                                  static_cast<int64_t>(OwnLineBytes()));
  int checks = 0;
  int threads = 0;
  for (uint64_t seed = 1; seed <= kOwnLineSchedules; ++seed) {
    absl::StatusOr<alloclab::FreshCallResult> r =
        RunFresh("allocator_design_own_lines_explorer", absl::StrCat(seed));
    ASSERT_TRUE(r.ok()) << ShortestSchedule(
        "allocator_design_own_lines_explorer", seed, kOwnLineScheduleSteps,
        r.status());
    checks += static_cast<int>(r->values["checks"]);
    threads += static_cast<int>(r->values["threads"]);
  }
  EXPECT_GE(checks, kOwnLineSchedules * kOwnLineScheduleSteps)
      << "the explorer checked too rarely";
  ::testing::Test::RecordProperty("checks", checks);
  ::testing::Test::RecordProperty("threads", threads);
}

}  // namespace
}  // namespace allocator_design::suite
