// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The check of lab counter_contention, written against task.h only. It is
// linked against the reference (solution_test), the starter (starter_test)
// and the known-bad counters in this folder, which it must reject.
//
// Everything asserted is a count or an address: exact totals, totals that
// never go down, slots in distinct cache lines. Nothing here times anything
// (the experiment does, side by side).

#include "labs/counter_contention/task.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/harness/counting_pass.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/alloc_counter.h"
#include "common/instruments/sink.h"
#include "common/machine/cpu_facts.h"
#include "gtest/gtest.h"
#include "tests/counter_contention/exit_checkpoints.h"

namespace counter_contention {
namespace {

// What `body(thread)` on `threads` threads released together counts in
// TotalAllocations() (common/harness/counting_pass.h).
template <typename Body>
uint64_t CountedOnThreads(int threads, Body body) {
  return alloclab::CountOnThreads(threads, &TotalAllocations, body);
}

// The counting allocator calls the counter under test while it is in scope;
// the course's per-thread counter again afterwards.
class PluggedIn {
 public:
  PluggedIn() { alloclab::UseCustomCounter(kYourCounter); }
  ~PluggedIn() {
    alloclab::SetCountingMode(alloclab::CountingMode::kPerThread);
  }
};

TEST(CounterTest, CountsEveryCall) {
  const uint64_t before = TotalAllocations();
  for (int i = 0; i < 1000; ++i) CountAllocation();
  EXPECT_EQ(TotalAllocations() - before, 1000u)
      << "TotalAllocations() must count every CountAllocation() (promise 2: "
         "exact), here 1000 calls on one thread";
}

// task.h: TotalAllocations() is "every CountAllocation() so far", from the
// first: not a count off by a constant, which every difference of two totals
// above cancels. In a fresh process nothing has called CountAllocation()
// (the counting allocator calls it only where a test plugs it in, and a
// fresh call does not), so the totals there are known outright: none at
// the start, then kFromZeroCalls on this thread, then as many again on a
// thread that has exited.
constexpr uint64_t kFromZeroCalls = 1000;

void FromZeroCall(alloclab::FreshCall& call) {
  call.Record("at_start", static_cast<double>(TotalAllocations()));
  for (uint64_t i = 0; i < kFromZeroCalls; ++i) CountAllocation();
  call.Record("after_this_thread", static_cast<double>(TotalAllocations()));
  std::thread([] {
    for (uint64_t i = 0; i < kFromZeroCalls; ++i) CountAllocation();
  }).join();
  call.Record("after_an_exited_thread",
              static_cast<double>(TotalAllocations()));
}
ALLOCLAB_FRESH_CALL("counter_contention_from_zero", FromZeroCall);

TEST(CounterTest, TotalsCountFromZero) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("counter_contention_from_zero");
  ASSERT_TRUE(r.ok()) << r.status();
  std::map<std::string, double>& v = r->values;
  constexpr char kRule[] =
      "task.h: TotalAllocations() is every CountAllocation() so far, by every "
      "thread, including threads that have exited; in a fresh process where "
      "nothing else calls CountAllocation(), ";
  EXPECT_EQ(v["at_start"], 0) << kRule << "before any call";
  EXPECT_EQ(v["after_this_thread"], static_cast<double>(kFromZeroCalls))
      << kRule << "after " << kFromZeroCalls << " calls on this thread";
  EXPECT_EQ(v["after_an_exited_thread"],
            static_cast<double>(2 * kFromZeroCalls))
      << kRule << "after " << kFromZeroCalls
      << " more on a thread joined since";
}

// More threads than this machine has CPUs is fine: they take turns, and
// every turn is a chance to lose a count. But counts are lost only while two
// threads count at the same instant, on two CPUs, and a busy machine may run
// a whole round one thread at a time. So rounds repeat, each one exact,
// until the threads have made kOverlapWanted calls while another thread was
// visibly counting too (it moved a shared progress mark in the meantime),
// or kMaxRounds have run (a machine with one CPU never overlaps: it says so).
TEST(CounterTest, ExactTotalsFor8ThreadsOf100000) {
  constexpr int kThreads = 8;
  constexpr uint64_t kCalls = 100'000;
  constexpr uint64_t kSample = 1024;  // calls between two looks at the mark
  constexpr uint64_t kOverlapWanted = 500'000;
  constexpr int kMaxRounds = 200;
  uint64_t overlapped = 0;
  int rounds = 0;
  while (overlapped < kOverlapWanted && rounds < kMaxRounds) {
    std::atomic<uint64_t> mark{0};
    std::atomic<uint64_t> together{0};
    const uint64_t counted = CountedOnThreads(kThreads, [&](int) {
      uint64_t last = mark.fetch_add(1, std::memory_order_relaxed);
      uint64_t mine = 0;
      for (uint64_t i = 1; i <= kCalls; ++i) {
        CountAllocation();
        if (i % kSample == 0) {
          const uint64_t now = mark.fetch_add(1, std::memory_order_relaxed);
          if (now != last + 1) mine += kSample;  // another thread moved it
          last = now;
        }
      }
      together.fetch_add(mine, std::memory_order_relaxed);
    });
    ++rounds;
    ASSERT_EQ(counted, kThreads * kCalls)
        << "promise 2: TotalAllocations() must be exact once the threads are "
        << "joined; round " << rounds << " of " << kThreads << " threads x "
        << kCalls << " calls counted " << counted << ". Counts lost (or "
        << "counted twice) by threads that counted at once, or lost when "
        << "they exited (promise 3: CounterTest.ExitedThreadsCountsAreKept "
        << "tells which)";
    overlapped += together.load();
  }
  std::printf(
      "%d rounds of %d x %llu calls; about %llu calls made while "
      "another thread counted too%s\n",
      rounds, kThreads, static_cast<unsigned long long>(kCalls),
      static_cast<unsigned long long>(overlapped),
      overlapped < kOverlapWanted
          ? " (too few to be sure: one CPU, or a very busy machine)"
          : "");
}

TEST(CounterTest, ExitedThreadsCountsAreKept) {
  const uint64_t start = TotalAllocations();
  for (uint64_t t = 1; t <= 20; ++t) {
    std::thread thread([] {
      for (int i = 0; i < 1000; ++i) CountAllocation();
    });
    thread.join();
    ASSERT_EQ(TotalAllocations() - start, t * 1000)
        << "promise 3: the counts of threads that have exited are kept; "
        << "after " << t << " threads of 1000 calls each have exited";
  }
}

// A reader samples the total while threads count, exit and are replaced.
// A count that leaves a slot must arrive in the total before (or as) the
// slot leaves it.
TEST(CounterTest, TotalsNeverGoDownWhileThreadsRun) {
  std::atomic<bool> done{false};
  uint64_t drops = 0;
  uint64_t samples = 0;
  std::string first_drop;
  std::thread reader([&] {
    uint64_t last = TotalAllocations();
    while (!done.load(std::memory_order_acquire)) {
      const uint64_t now = TotalAllocations();
      ++samples;
      if (now < last) {
        if (drops++ == 0) {
          first_drop = std::to_string(last) + " then " + std::to_string(now);
        }
      }
      last = now;
    }
  });
  for (int wave = 0; wave < 10; ++wave) {
    std::vector<std::thread> workers;
    for (int t = 0; t < 4; ++t) {
      workers.emplace_back([] {
        for (int i = 0; i < 20'000; ++i) CountAllocation();
      });
    }
    for (std::thread& w : workers) w.join();
  }
  done.store(true, std::memory_order_release);
  reader.join();
  EXPECT_EQ(drops, 0u)
      << "promise 2: TotalAllocations() never goes down while threads run; "
      << drops << " of " << samples
      << " readings went down, first: " << first_drop;
}

// The fresh call of TotalsNeverGoDownAsAThreadExits: a thread counts
// kExitCalls, then exits one instruction at a time (exit_checkpoints.h),
// and the total is read after every instruction. It records the highest
// reading, the first that went down (from, to) and the total after join,
// all less what was counted before.
constexpr uint64_t kExitCalls = 1000;

void SteppedExitCall(alloclab::FreshCall& call) {
  const uint64_t before = TotalAllocations();
  int64_t highest = INT64_MIN;
  int64_t drop_from = 0;
  int64_t drop_to = 0;
  int drops = 0;
  auto reading = [&](int64_t now) {
    if (now < highest && drops++ == 0) {
      drop_from = highest;
      drop_to = now;
    }
    highest = std::max(highest, now);
  };
  absl::StatusOr<exit_checkpoints::Stepped> stepped =
      exit_checkpoints::StepThroughExit(
          [] {
            for (uint64_t i = 0; i < kExitCalls; ++i) CountAllocation();
          },
          [&] { reading(static_cast<int64_t>(TotalAllocations() - before)); });
  if (!stepped.ok()) {
    call.Fail(stepped.status().ToString());
    return;
  }
  const int64_t after = static_cast<int64_t>(TotalAllocations() - before);
  reading(after);
  call.Record("steps", static_cast<double>(stepped->steps));
  call.Record("readings", static_cast<double>(stepped->readings));
  call.Record("waited", static_cast<double>(stepped->waited));
  call.Record("drops", drops);
  call.Record("drop_from", static_cast<double>(drop_from));
  call.Record("drop_to", static_cast<double>(drop_to));
  call.Record("after", static_cast<double>(after));
}
ALLOCLAB_FRESH_CALL("counter_contention_stepped_exit", SteppedExitCall);

// The same promise, with the interleaving driven rather than hoped for: a
// thread counts, then exits one instruction at a time, and the total is read
// after each instruction while the thread stands still. A count that leaves
// its slot must be in the total, once, at every instruction boundary of the
// move, with locks or without (a lock-free fold that adds the slot to a
// retired total and then clears it counts it twice in between; one that
// clears first, not at all). In a fresh process: the tracer is forked.
TEST(CounterTest, TotalsNeverGoDownAsAThreadExits) {
  if (exit_checkpoints::kSkipReason != nullptr) {
    GTEST_SKIP() << exit_checkpoints::kSkipReason;
  }
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("counter_contention_stepped_exit");
  if (!r.ok() && absl::StrContains(r.status().message(), "does not let")) {
    GTEST_SKIP() << r.status();
  }
  ASSERT_TRUE(r.ok()) << "a thread that counts " << kExitCalls
                      << " and exits, stepped: " << r.status();
  std::map<std::string, double>& v = r->values;
  std::printf(
      "%.0f instructions of exit stepped, %.0f readings, %.0f "
      "waited for the thread (it held what the reader needed)\n",
      v["steps"], v["readings"], v["waited"]);
  EXPECT_GT(v["steps"], 0) << "the tracer stepped no instruction of the exit";
  EXPECT_EQ(v["after"], static_cast<double>(kExitCalls))
      << "promise 3: the counts of a thread that has exited are kept; it "
      << "counted " << kExitCalls;
  EXPECT_EQ(v["drops"], 0)
      << "promise 2: TotalAllocations() never goes down while threads run; "
      << "a thread counted " << kExitCalls << " and, read after each "
      << "instruction of its exit and once after join, the total (less what "
      << "came before) went from " << v["drop_from"] << " down to "
      << v["drop_to"] << " (readings that went down: " << v["drops"]
      << "). Above " << kExitCalls
      << ", the count was in its slot and the retired total at "
      << "once; below, in neither: the fold moves it in two steps a reader "
      << "can fall between (whether they are atomics or a lock and an "
      << "atomic)";
}

// The fresh call of TotalsNeverGoDownAsAReaderIsStoppedInside: before each
// call of TotalAllocations() on the stepped thread, a thread counts
// kExitCalls and waits, alive; the call is stopped after 0, 1, 2, ...
// instructions (exit_checkpoints::StepThroughCalls()), one call per stop,
// and at the stop that thread exits and is joined while the reader stands
// still. Every instruction boundary of the call is a stop of one call,
// hence every load of every counter it reads: up to its stop each call runs
// the same code on the same data (one live counting thread, waiting; no
// other thread counts), so the call stopped after k instructions stands
// where any call of this shape stands after k, and the stops go on until a
// call returns before its stop. It records how many calls read below or
// above the total read just before the exit, and the lowest and highest
// difference.
void SteppedReadCall(alloclab::FreshCall& call) {
  std::optional<std::thread> exiter;
  std::atomic<pid_t> exiter_tid{0};
  std::atomic<bool> release{false};
  uint64_t before = 0;  // written before each call, read by the call
  int64_t lowest = 0;
  int64_t highest = 0;
  int below = 0;
  int above = 0;
  absl::StatusOr<exit_checkpoints::Stepped> stopped =
      exit_checkpoints::StepThroughCalls(
          [&] {
            exiter_tid.store(0);
            release.store(false);
            exiter.emplace([&] {
              for (uint64_t i = 0; i < kExitCalls; ++i) CountAllocation();
              exiter_tid.store(static_cast<pid_t>(gettid()));
              while (!release.load()) sched_yield();
            });
            while (exiter_tid.load() == 0) sched_yield();
            before = TotalAllocations();
            return exiter_tid.load();
          },
          [&] {
            const int64_t d = static_cast<int64_t>(TotalAllocations() - before);
            below += d < 0 ? 1 : 0;
            above += d > 0 ? 1 : 0;
            lowest = std::min(lowest, d);
            highest = std::max(highest, d);
          },
          [&] {
            release.store(true);
            exiter->join();
          });
  if (!stopped.ok()) {
    if (exiter.has_value() && exiter->joinable()) {
      release.store(true);
      exiter->join();
    }
    call.Fail(stopped.status().ToString());
    return;
  }
  call.Record("calls", static_cast<double>(stopped->calls));
  call.Record("steps", static_cast<double>(stopped->steps));
  call.Record("waited", static_cast<double>(stopped->waited));
  call.Record("below", below);
  call.Record("above", above);
  call.Record("lowest", static_cast<double>(lowest));
  call.Record("highest", static_cast<double>(highest));
}
ALLOCLAB_FRESH_CALL("counter_contention_stepped_read", SteppedReadCall);

// Promise 2 from the reader's side: the window may be in TotalAllocations()
// rather than in the exit. A reader that checks a sequence count (even: no
// exit under way) before it sums, but not again after, reads the retired
// total before an exit and the exited thread's slot after it: the count is
// in neither, and the total goes down. Here the reader is stopped at every
// instruction of its call in turn, and at each stop a thread exits whole;
// a correct reader either sees the count where it was or where it went, or
// waits for the exit (a lock) or reads again (a sequence checked after).
TEST(CounterTest, TotalsNeverGoDownAsAReaderIsStoppedInside) {
  if (exit_checkpoints::kCallsSkipReason != nullptr) {
    GTEST_SKIP() << exit_checkpoints::kCallsSkipReason;
  }
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("counter_contention_stepped_read");
  if (!r.ok() && absl::StrContains(r.status().message(), "does not let")) {
    GTEST_SKIP() << r.status();
  }
  ASSERT_TRUE(r.ok()) << "a reader stopped inside TotalAllocations() while "
                      << "a thread of " << kExitCalls
                      << " counts exits: " << r.status();
  std::map<std::string, double>& v = r->values;
  std::printf(
      "%.0f calls of TotalAllocations() stopped, after 0 to %.0f "
      "instructions (%.0f stepped); at %.0f stops the exit waited for the "
      "reader (it held what the exit needed)\n",
      v["calls"], v["calls"] - 1, v["steps"], v["waited"]);
  EXPECT_GT(v["calls"], 1) << "no call was stopped inside";
  EXPECT_EQ(v["below"], 0)
      << "promise 2: TotalAllocations() never goes down while threads run; "
      << "a reader stopped inside TotalAllocations() while a thread of "
      << kExitCalls << " counts exited whole returned less than the total "
      << "read just before, in " << v["below"] << " of " << v["calls"]
      << " calls (lowest: " << v["lowest"] << "): it read the count's old "
      << "place before the exit and its new place after (a sequence count "
      << "checked before reading but not after?)";
  EXPECT_EQ(v["above"], 0)
      << "promise 2: a count on its way out of an exiting thread's slot is "
      << "in the total exactly once; a reader stopped inside "
      << "TotalAllocations() while a thread exited returned more than the "
      << "total read just before, in " << v["above"] << " of " << v["calls"]
      << " calls (highest: +" << v["highest"] << ")";
}

// What an exiting thread counts after its slot is gone: a thread_local
// constructed before the slot is destroyed after it, and pthread key
// destructors run after every thread_local's (glibc's thread exit).
constexpr int kLateCounts = 5;

void CountLate(void*) {
  for (int i = 0; i < kLateCounts; ++i) CountAllocation();
}

struct CountsWhenDestroyed {
  ~CountsWhenDestroyed() { CountLate(nullptr); }
  void Touch() { alloclab::Escape(this); }
};

thread_local CountsWhenDestroyed t_counts_when_destroyed;

// A key destructor that sets its key again once, and so runs in two rounds
// of a thread's key destructors: the second after every key destructor of
// the first, a counter's own among them, whichever key was made first.
pthread_key_t g_twice_key;

void CountLateTwice(void* round) {
  CountLate(nullptr);
  static int second = 2;
  if (round != &second) pthread_setspecific(g_twice_key, &second);
}

TEST(CounterTest, CountsFromAPthreadKeyDestructorAreKept) {
  ASSERT_EQ(pthread_key_create(&g_twice_key, &CountLateTwice), 0);
  const uint64_t before = TotalAllocations();
  std::thread thread([] {
    for (int i = 0; i < 100; ++i) CountAllocation();
    static int first = 1;
    pthread_setspecific(g_twice_key, &first);  // its destructor runs at exit
  });
  thread.join();
  pthread_key_delete(g_twice_key);
  EXPECT_EQ(TotalAllocations() - before, uint64_t{100 + 2 * kLateCounts})
      << "promise 3, and task.h: CountAllocation() is called \"at any point "
      << "of [a thread's] life (also while it exits)\": a thread counted 100, "
      << "then " << kLateCounts << " from a pthread key destructor in each of "
      << "two rounds of them (it set its key again), which run after its "
      << "thread_locals' destructors (and so after a slot's own destructor), "
      << "and the second after any other key's";
}

TEST(CounterTest, CountsFromALaterThreadLocalDestructorAreKept) {
  const uint64_t before = TotalAllocations();
  std::thread thread([] {
    t_counts_when_destroyed.Touch();  // constructed before the slot
    for (int i = 0; i < 100; ++i) CountAllocation();
  });
  thread.join();
  EXPECT_EQ(TotalAllocations() - before, uint64_t{100 + kLateCounts})
      << "promise 3, and task.h: CountAllocation() is called \"at any point "
      << "of [a thread's] life (also while it exits)\": a thread counted 100, "
      << "then " << kLateCounts << " from the destructor of a thread_local "
      << "made before its slot, which runs after the slot was destroyed";
}

// A thread whose first count comes late: its only counts are made in a
// pthread key's destructor, after its thread_locals' destructors have run
// (glibc runs those first), so an exit hook armed as a thread_local's
// destructor at that moment never runs. The next thread is given the same
// thread-local storage (glibc reuses a joined thread's stack, and its TLS
// with it): a slot left behind in a registry is then that thread's new slot
// too, and a list that takes it in again points to itself. The totals are
// read after each thread is joined, and must be exact. A hang here is what
// the test looks for, so the run is in a fresh process, and its driver
// thread is given kLateRunDeadlineSeconds, a bound no correct counter comes
// near (a few thread starts and joins), before the call reports that it
// did not return.
constexpr int kLateRounds = 3;  // a late thread and a counting thread each
constexpr uint64_t kLateRunCalls = 100;  // what each counting thread counts
constexpr int kLateRunDeadlineSeconds = 20;

// Where the driver of the late run stands: the thread it is running, and
// whether that thread has been joined (then TotalAllocations() is next).
struct LateRun {
  std::mutex mutex;
  std::condition_variable changed;
  int thread = 0;       // 1-based, in the order they ran
  bool joined = false;  // thread `thread` was joined; the total is read next
  bool done = false;
  std::vector<uint64_t> totals;    // less what came before, after each join
  std::vector<const void*> slots;  // each thread's ThisThreadSlot()
};

// The pthread key destructor of a late thread: its only counts, and then
// its slot's address.
void CountLateThenRecordSlot(void* run) {
  CountLate(nullptr);
  LateRun& r = *static_cast<LateRun*>(run);
  const void* slot = ThisThreadSlot();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.slots.push_back(slot);
}

// Runs one thread to its end and reads the total, saying where it stands.
template <typename Body>
void RunAndTotal(LateRun& r, uint64_t before, Body body) {
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    ++r.thread;
    r.joined = false;
  }
  std::thread(body).join();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.joined = true;
    r.changed.notify_all();
  }
  const uint64_t total = TotalAllocations() - before;
  std::lock_guard<std::mutex> lock(r.mutex);
  r.totals.push_back(total);
}

// The body of a counting thread of a late run: kLateRunCalls, and its slot
// recorded.
void CountingThread(LateRun& r) {
  const void* slot = ThisThreadSlot();
  for (uint64_t i = 0; i < kLateRunCalls; ++i) CountAllocation();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.slots.push_back(slot);
}

// Late threads on two keys, one made before this counter's first slot (and
// so, in a counter that makes a key of its own on its first slot, before
// that key) and one made after: a key destructor that arms the counter's
// exit hook meets it later in the same round of destructors, or in the next.
void LateThreads(LateRun& r) {
  pthread_key_t early;
  const bool have_key =
      pthread_key_create(&early, &CountLateThenRecordSlot) == 0;
  const uint64_t before = TotalAllocations();
  pthread_key_t key = early;
  for (int round = 0; round < kLateRounds && have_key; ++round) {
    RunAndTotal(r, before, [&] { pthread_setspecific(key, &r); });
    RunAndTotal(r, before, [&] { CountingThread(r); });
    if (round == 0 && pthread_key_create(&key, &CountLateThenRecordSlot) != 0) {
      key = early;
    }
  }
  std::lock_guard<std::mutex> lock(r.mutex);
  r.done = true;
  r.changed.notify_all();
}

// A late run in a fresh process: `threads` on a driver thread, given
// kLateRunDeadlineSeconds. Records each total ("total_<k>", k the thread
// joined) and how many threads had the slot of the thread before them; or
// fails with where the run stopped.
void RunLate(alloclab::FreshCall& call, void (*threads)(LateRun&)) {
  auto run = std::make_shared<LateRun>();
  std::thread driver([run, threads] { threads(*run); });
  std::unique_lock<std::mutex> lock(run->mutex);
  if (!run->changed.wait_for(lock,
                             std::chrono::seconds(kLateRunDeadlineSeconds),
                             [&] { return run->done; })) {
    call.Fail(absl::StrCat(
        run->joined ? "TotalAllocations() did not return"
                    : "a thread did not end (stuck in CountAllocation() or "
                      "ThisThreadSlot()?)",
        " within ", kLateRunDeadlineSeconds, " s, at thread ", run->thread,
        " of ", 2 * kLateRounds, " (odd: one whose only counts are made in a ",
        "pthread key destructor; even: one that counts ", kLateRunCalls,
        "): a slot left in the registry by a late thread, taken in again by ",
        "the next thread on the same storage?"));
    driver.detach();  // stuck; the fresh process ends with the report
    return;
  }
  lock.unlock();
  driver.join();
  for (size_t k = 0; k < run->totals.size(); ++k) {
    call.Record(absl::StrCat("total_", k + 1),
                static_cast<double>(run->totals[k]));
  }
  int reused = 0;
  for (size_t k = 1; k < run->slots.size(); ++k) {
    reused += run->slots[k] == run->slots[k - 1] ? 1 : 0;
  }
  call.Record("reused", reused);
}

// The totals of a late run, each after a thread was joined: odd threads
// counted kLateCounts late (`when`), even ones kLateRunCalls as they ran.
void ExpectLateTotals(const alloclab::FreshCallResult& r, const char* when) {
  std::map<std::string, double> v = r.values;
  std::printf("%.0f of %d threads had the slot of the thread before them\n",
              v["reused"], 2 * kLateRounds - 1);
  uint64_t wanted = 0;
  for (int k = 1; k <= 2 * kLateRounds; ++k) {
    const bool late = k % 2 == 1;
    wanted += late ? kLateCounts : kLateRunCalls;
    EXPECT_EQ(v[absl::StrCat("total_", k)], static_cast<double>(wanted))
        << "promises 2 and 3: TotalAllocations() is exact after join, and "
        << "keeps the counts of exited threads; threads run one after "
        << "another, each joined before the next, alternately counting "
        << kLateCounts << " only " << when << " and " << kLateRunCalls
        << " as it runs; after thread " << k << " ("
        << (late ? "a late one" : "a counting one") << ")";
  }
}

void LateFirstCountCall(alloclab::FreshCall& call) {
  RunLate(call, &LateThreads);
}
ALLOCLAB_FRESH_CALL("counter_contention_late_first_count", LateFirstCountCall);

TEST(CounterTest, ALateFirstCountLeavesNothingBehind) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("counter_contention_late_first_count");
  ASSERT_TRUE(r.ok())
      << "promise 3, and task.h: CountAllocation() is called \"at any point "
      << "of [a thread's] life (also while it exits)\", also for the first "
      << "time: " << r.status();
  ExpectLateTotals(*r,
                   "in a pthread key destructor (its first count made after "
                   "its thread_locals were destroyed)");
}

// The latest a first count can come: in the last round of a thread's key
// destructors. glibc runs the destructors of the keys a thread has set in
// rounds, each round in key order, and a destructor that sets a key again
// has it run in a later round, but only up to PTHREAD_DESTRUCTOR_ITERATIONS
// rounds; then the thread ends with whatever is still set. A key made after
// the counter's own, set again in each round until the last, first counts
// there: the counter's key, set by that count, comes earlier in the order,
// and its destructor never runs. A counter that retires slots in its key's
// destructor never retires this one; it must keep it, with its count, and
// never take it in again.
pthread_key_t g_last_round_key;
int g_last_round_values[PTHREAD_DESTRUCTOR_ITERATIONS + 1];  // by round
LateRun* g_last_round_run = nullptr;

// The destructor of g_last_round_key, called with its round's value: sets
// the key again for the next round, and in the last counts, then records
// the slot.
void CountInLastRound(void* value) {
  const long round = static_cast<int*>(value) - g_last_round_values;
  if (round < PTHREAD_DESTRUCTOR_ITERATIONS) {
    pthread_setspecific(g_last_round_key, &g_last_round_values[round + 1]);
    return;
  }
  CountLateThenRecordSlot(g_last_round_run);
}

// A late thread whose only counts are in its last round of key destructors,
// then a counting thread, kLateRounds times. The counter's own key is made
// first: this driver thread sets its slot up before it makes its key.
void LastRoundThreads(LateRun& r) {
  static_cast<void>(ThisThreadSlot());
  g_last_round_run = &r;
  const bool have_key =
      pthread_key_create(&g_last_round_key, &CountInLastRound) == 0;
  const uint64_t before = TotalAllocations();
  for (int round = 0; round < kLateRounds && have_key; ++round) {
    RunAndTotal(r, before, [] {
      pthread_setspecific(g_last_round_key, &g_last_round_values[1]);
    });
    RunAndTotal(r, before, [&] { CountingThread(r); });
  }
  std::lock_guard<std::mutex> lock(r.mutex);
  r.done = true;
  r.changed.notify_all();
}

void LastRoundCall(alloclab::FreshCall& call) {
  RunLate(call, &LastRoundThreads);
}
ALLOCLAB_FRESH_CALL("counter_contention_last_round", LastRoundCall);

TEST(CounterTest, ALastRoundFirstCountLeavesNothingBehind) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer's runtime ends its record of a thread in "
                  "the last round of the thread's key destructors (its own "
                  "key, made first, sets itself again until then): code "
                  "that runs in that round after it faults";
#endif
  absl::StatusOr<alloclab::FreshCallResult> r =
      alloclab::RunFreshCall("counter_contention_last_round");
  ASSERT_TRUE(r.ok())
      << "promises 2 and 3, and task.h: CountAllocation() is called \"at any "
      << "point of [a thread's] life (also while it exits)\", also for the "
      << "first time in the last round (of " << PTHREAD_DESTRUCTOR_ITERATIONS
      << ") of a thread's pthread key destructors, from a key made after the "
      << "counter's, where a key the counter sets then never has its "
      << "destructor run: " << r.status();
  ExpectLateTotals(*r,
                   "in the last round of its pthread key destructors (after "
                   "which no destructor of a key it sets runs)");
}

TEST(CounterTest, SlotsOfLiveThreadsAreInDistinctCacheLines) {
  constexpr int kThreads = 8;
  std::vector<uintptr_t> slots(kThreads + 1);
  std::latch recorded(kThreads + 1);
  std::vector<std::thread> team;
  for (int t = 0; t < kThreads; ++t) {
    team.emplace_back([&, t] {
      slots[static_cast<size_t>(t)] =
          reinterpret_cast<uintptr_t>(ThisThreadSlot());
      recorded.arrive_and_wait();  // all alive while the slots are compared
    });
  }
  slots[kThreads] = reinterpret_cast<uintptr_t>(ThisThreadSlot());
  recorded.arrive_and_wait();
  for (std::thread& t : team) t.join();
  // The line of this machine where sysfs (or sysconf) says it is longer
  // than kCacheLineBytes: two slots in one real line share it.
  const absl::StatusOr<alloclab::CacheLine> probed = alloclab::ReadCacheLine();
  const size_t line =
      probed.ok() ? std::max(kCacheLineBytes, probed->bytes) : kCacheLineBytes;
  std::set<uintptr_t> lines;
  for (uintptr_t slot : slots) lines.insert(slot / line);
  EXPECT_EQ(lines.size(), slots.size())
      << "promise 4: slots of different threads are never in one cache "
      << "line; the slots of " << slots.size() << " live threads are in only "
      << lines.size() << " cache lines of " << line
      << " bytes: threads in one line write one shared line";
}

// Promise 1 on every field, not only the slots' addresses: no other thread
// may write a cache line that a thread's count writes. A registry's links,
// its state or a lock beside the count, written by every thread that
// registers or exits next to this one, make the line move between cores as
// surely as two counts in it would. The lines a count writes are found by
// looking: the lines around the slot (kLookedAtLines either side) are read
// before and after the thread counts, while it stands still. Then, while it
// stands still again, other threads do everything a counter's registry
// does: start, count, exit beside it (one with its first count in a pthread
// key destructor), and read the total; every line the count wrote must be
// as it was. The lines are read through /proc/self/mem, so that a line not
// mapped is skipped rather than a fault, and reading another thread's
// memory is no data race of the suite's.
constexpr int kLookedAtLines = 8;
constexpr int kNeighbourThreads = 8;

// The bytes of `lines` cache lines from `first` (a line's address); a line
// that cannot be read is left empty.
std::vector<std::string> ReadLines(uintptr_t first, int lines) {
  std::vector<std::string> out(static_cast<size_t>(lines));
  const int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  for (int i = 0; i < lines; ++i) {
    std::string bytes(kCacheLineBytes, '\0');
    const off_t at = static_cast<off_t>(first + i * kCacheLineBytes);
    if (pread(fd, bytes.data(), bytes.size(), at) ==
        static_cast<ssize_t>(bytes.size())) {
      out[static_cast<size_t>(i)] = std::move(bytes);
    }
  }
  close(fd);
  return out;
}

// Threads that do, beside a thread standing still, what a registry sees:
// each registers and counts, all alive at once, then they exit one by one
// (each also counting from a pthread key destructor as it exits), with the
// total read between; last, a thread whose only counts are in such a
// destructor. `look()` is called after each of these moments: a link
// written as a neighbour comes may be written back as it goes.
template <typename Look>
void RegistryTraffic(Look look) {
  pthread_key_t key;
  const bool have_key = pthread_key_create(&key, &CountLate) == 0;
  static int non_null = 1;
  std::latch registered(kNeighbourThreads);
  std::vector<std::thread> neighbours;
  // All made before the first neighbour starts: a push_back while one runs
  // would move the vector it reads (a data race, and a read of freed memory).
  std::vector<std::unique_ptr<std::latch>> may_exit;
  for (int t = 0; t < kNeighbourThreads; ++t) {
    may_exit.push_back(std::make_unique<std::latch>(1));
  }
  for (int t = 0; t < kNeighbourThreads; ++t) {
    neighbours.emplace_back([&, t] {
      ThisThreadSlot();
      for (int i = 0; i < 100; ++i) CountAllocation();
      if (have_key) pthread_setspecific(key, &non_null);
      registered.count_down();
      may_exit[static_cast<size_t>(t)]->wait();
    });
  }
  registered.wait();
  look();
  for (int t = 0; t < kNeighbourThreads; ++t) {
    static_cast<void>(TotalAllocations());
    may_exit[static_cast<size_t>(t)]->count_down();
    neighbours[static_cast<size_t>(t)].join();
    look();
  }
  if (have_key) {
    std::thread([&] { pthread_setspecific(key, &non_null); }).join();
    pthread_key_delete(key);
  }
  static_cast<void>(TotalAllocations());
  look();
}

// Waits until thread `tid` of this process is asleep (state S in
// /proc/self/task/<tid>/stat: blocked in the kernel, its memory as it
// left it until it wakes).
void WaitUntilAsleep(pid_t tid) {
  const std::string path = absl::StrCat("/proc/self/task/", tid, "/stat");
  for (;;) {
    std::string stat(512, '\0');
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;  // no procfs: the lines are read as they are
    const ssize_t n = read(fd, stat.data(), stat.size());
    close(fd);
    // "<tid> (<name>) <state> ...": the name may hold spaces and parens.
    const size_t paren = stat.rfind(')', n > 0 ? static_cast<size_t>(n) : 0);
    if (n <= 0 || paren == std::string::npos) return;
    if (stat.size() > paren + 2 && stat[paren + 2] == 'S') return;
    sched_yield();
  }
}

TEST(CounterTest, NoOtherThreadWritesALineACountWrites) {
  // The watched thread: it sets its slot up, then counts when told to, and
  // otherwise waits, blocked (its waits write nothing while it is blocked).
  std::atomic<int> step{0};
  std::atomic<uintptr_t> slot{0};
  std::atomic<pid_t> tid{0};
  std::thread watched([&] {
    slot.store(reinterpret_cast<uintptr_t>(ThisThreadSlot()));
    tid.store(static_cast<pid_t>(gettid()));
    CountAllocation();
    step.store(1);
    step.notify_all();
    step.wait(1);  // 2: count
    for (int i = 0; i < 1000; ++i) CountAllocation();
    step.store(3);
    step.notify_all();
    step.wait(3);  // 4: exit
  });
  step.wait(0);
  const uintptr_t first =
      (slot.load() / kCacheLineBytes - kLookedAtLines) * kCacheLineBytes;
  constexpr int kLines = 2 * kLookedAtLines + 1;
  WaitUntilAsleep(tid.load());
  const std::vector<std::string> idle = ReadLines(first, kLines);
  step.store(2);
  step.notify_all();
  step.wait(2);
  WaitUntilAsleep(tid.load());
  const std::vector<std::string> counted = ReadLines(first, kLines);
  std::vector<std::vector<std::string>> seen;  // at each moment of traffic
  RegistryTraffic([&] { seen.push_back(ReadLines(first, kLines)); });
  step.store(4);
  step.notify_all();
  watched.join();

  std::string written;  // the lines the count wrote, by offset from the slot's
  std::string changed;  // those of them another thread changed
  for (int i = 0; i < kLines; ++i) {
    const size_t k = static_cast<size_t>(i);
    if (idle[k].empty() || idle[k] == counted[k]) continue;
    const std::string where = absl::StrCat(i - kLookedAtLines);
    absl::StrAppend(&written, written.empty() ? "" : ", ", where);
    for (const std::vector<std::string>& after : seen) {
      if (after[k] != counted[k]) {
        absl::StrAppend(&changed, changed.empty() ? "" : ", ", where);
        break;
      }
    }
  }
  std::printf("counting wrote the lines at %s (0: the slot's)\n",
              written.c_str());
  ASSERT_FALSE(written.empty())
      << "1000 counts changed no line around ThisThreadSlot() (tested by "
      << "CounterTest.ASlotIsWhatCountAllocationWrites)";
  EXPECT_TRUE(changed.empty())
      << "promise 1: the fast path writes no cache line that another thread "
      << "writes; a thread's counts wrote the cache lines at " << written
      << " (counted in lines of " << kCacheLineBytes << " bytes from its "
      << "slot's line, 0), and while it stood still, other threads "
         "registering, counting "
      << "and exiting beside it and reading the total changed those at "
      << changed << ": a registry's links or state beside the count?";
}

// The 8 bytes at a slot, read without tearing where they are aligned (a
// slot another thread also writes, in a counter that shares one, is then
// no data race of the suite's).
uint64_t ReadSlot(const void* slot) {
  uint64_t value = 0;
  if (reinterpret_cast<uintptr_t>(slot) % alignof(uint64_t) == 0) {
    return __atomic_load_n(static_cast<const uint64_t*>(slot),
                           __ATOMIC_RELAXED);
  }
  std::memcpy(&value, slot, sizeof(value));
  return value;
}

// More live threads than a fixed table holds: a counter with a few slots
// and an overflow counter for the rest, or stripes picked by thread id
// modulo N, gives two live threads one slot as soon as there are more
// threads than slots and overflow counters (kLiveThreads and the main
// thread: every table up to 1100 slots, the 256 of the experiment's
// per_thread_padded (labs/counter_contention/counters.h) and a table of
// 1024, a round number a learner might pick, among them), and a
// table picked by thread id gives two threads one slot whenever their ids
// are N apart: kChurnThreads more threads start and exit one by one while
// the others stay alive, and thread ids rise with each new thread, so
// they meet every live thread's residue modulo any N up to kChurnThreads.
constexpr int kLiveThreads = 1100;
constexpr int kChurnThreads = 1024;

TEST(CounterTest, SlotsOf1100LiveThreadsAreTheirOwn) {
  struct Seen {
    uintptr_t line = 0;
    bool written = false;  // the slot changed when the thread counted
  };
  std::vector<Seen> seen(kLiveThreads + 1);
  const uint64_t before = TotalAllocations();
  std::latch recorded(kLiveThreads + 1);
  std::latch release(1);
  std::vector<std::thread> team;
  team.reserve(kLiveThreads);
  for (int t = 0; t < kLiveThreads; ++t) {
    team.emplace_back([&, t] {
      const void* slot = ThisThreadSlot();
      const uint64_t old_value = ReadSlot(slot);
      for (int i = 0; i <= t; ++i) CountAllocation();  // t + 1 counts
      seen[static_cast<size_t>(t)] = {
          .line = reinterpret_cast<uintptr_t>(slot) / kCacheLineBytes,
          .written = ReadSlot(slot) != old_value};
      recorded.count_down();
      release.wait();  // alive until every slot has been compared
    });
  }
  const void* main_slot = ThisThreadSlot();
  seen[kLiveThreads] = {
      .line = reinterpret_cast<uintptr_t>(main_slot) / kCacheLineBytes,
      .written = true};
  recorded.count_down();
  recorded.wait();

  std::map<uintptr_t, int> owner;  // cache line -> first thread in it
  std::string shared;
  int unwritten = 0;
  for (int t = 0; t <= kLiveThreads; ++t) {
    const Seen& s = seen[static_cast<size_t>(t)];
    if (!s.written) ++unwritten;
    auto [it, inserted] = owner.emplace(s.line, t);
    if (!inserted && shared.empty()) {
      shared = "threads " + std::to_string(it->second) + " and " +
               std::to_string(t) + " (" + std::to_string(kLiveThreads) +
               " is the main thread)";
    }
  }
  // One by one, while the others live: each new thread's slot must be in a
  // line of no live thread.
  std::string churned;
  for (int c = 0; c < kChurnThreads && churned.empty(); ++c) {
    uintptr_t line = 0;
    std::thread([&line] {
      line = reinterpret_cast<uintptr_t>(ThisThreadSlot()) / kCacheLineBytes;
    }).join();
    auto it = owner.find(line);
    if (it != owner.end()) {
      churned = "thread " + std::to_string(c + 1) + " of those started " +
                "after them shares a line with live thread " +
                std::to_string(it->second);
    }
  }
  release.count_down();
  for (std::thread& t : team) t.join();

  EXPECT_EQ(owner.size(), seen.size())
      << "promises 1 and 4: each thread counts in a slot of its own, and "
      << "slots owned by different threads are never in one cache line; "
      << kLiveThreads + 1 << " threads alive at once have their slots in "
      << "only " << owner.size() << " cache lines of " << kCacheLineBytes
      << " bytes, first " << shared << ": more live threads than the "
      << "counter has slots (a fixed table, an overflow counter, stripes by "
      << "thread id modulo a constant?)";
  EXPECT_TRUE(churned.empty())
      << "promises 1 and 4: each thread counts in a slot of its own; while "
      << kLiveThreads + 1 << " threads lived, " << churned
      << " (slots picked by thread id modulo a constant?)";
  EXPECT_EQ(unwritten, 0)
      << "ThisThreadSlot() must be the memory CountAllocation() writes; for "
      << unwritten << " of " << kLiveThreads << " live threads, counting "
      << "did not change the 8 bytes there";
  const uint64_t wanted = uint64_t{kLiveThreads} * (kLiveThreads + 1) / 2;
  EXPECT_EQ(TotalAllocations() - before, wanted)
      << "promise 2: TotalAllocations() is exact once the threads are "
      << "joined; " << kLiveThreads << " threads alive at once counted 1, "
      << "2, ..., " << kLiveThreads << " times";
}

TEST(CounterTest, ASlotIsWhatCountAllocationWrites) {
  const void* slot = ThisThreadSlot();
  EXPECT_EQ(ThisThreadSlot(), slot)
      << "ThisThreadSlot(): a thread's slot must stay put";
  uint64_t before = 0;
  std::memcpy(&before, slot, sizeof(before));
  CountAllocation();
  uint64_t after = 0;
  std::memcpy(&after, slot, sizeof(after));
  EXPECT_NE(after, before)
      << "ThisThreadSlot() must be the memory CountAllocation() writes; "
         "CountAllocation() did not change the 8 bytes there";
}

// Through the counting allocator: one count per allocation, whichever door
// it came through. (The C functions are counted in every build but
// ThreadSanitizer's: common/instruments/alloc_counter.h.)
TEST(CounterTest, CountsEveryAllocationForm) {
  static void* (*volatile c_malloc)(size_t) = &malloc;
  static void* (*volatile c_calloc)(size_t, size_t) = &calloc;
  static void* (*volatile c_realloc)(void*, size_t) = &realloc;
  static void* (*volatile c_aligned_alloc)(size_t, size_t) = &aligned_alloc;
  static void (*volatile c_free)(void*) = &free;
  const uint64_t c = alloclab::CountsMallocFamily() ? 1 : 0;
  PluggedIn plugged;
  auto counted = [](auto fn) {
    const uint64_t before = TotalAllocations();
    fn();
    return TotalAllocations() - before;
  };
  EXPECT_EQ(counted([] {
              int* p = new int(1);
              alloclab::Escape(p);
              delete p;
            }),
            1u)
      << "one count per allocation, through the counting allocator: new";
  EXPECT_EQ(counted([] {
              std::string s(100, 'x');
              alloclab::Escape(s.data());
            }),
            1u)
      << "one count per allocation, through the counting allocator: "
      << "std::string of 100 chars";
  EXPECT_EQ(counted([] {
              void* p = ::operator new (64, std::align_val_t{64});
              alloclab::Escape(p);
              ::operator delete (p, std::align_val_t{64});
            }),
            1u)
      << "one count per allocation, through the counting allocator: "
      << "aligned operator new";
  EXPECT_EQ(counted([] { c_free(c_malloc(24)); }), c)
      << "one count per allocation, through the counting allocator: malloc";
  EXPECT_EQ(counted([] { c_free(c_calloc(3, 8)); }), c)
      << "one count per allocation, through the counting allocator: calloc";
  EXPECT_EQ(counted([] { c_free(c_realloc(nullptr, 40)); }), c)
      << "one count per allocation, through the counting allocator: "
      << "realloc(NULL)";
  EXPECT_EQ(counted([] { c_free(c_aligned_alloc(64, 128)); }), c)
      << "one count per allocation, through the counting allocator: "
      << "aligned_alloc";
  EXPECT_EQ(counted([] { c_free(strdup("counted inside libc")); }), c)
      << "one count per allocation, through the counting allocator: strdup";
}

TEST(CounterTest, CountsAllocationsOfThreadsThroughTheAllocator) {
  constexpr int kThreads = 8;
  constexpr uint64_t kCalls = 10'000;
  PluggedIn plugged;
  const uint64_t counted = CountedOnThreads(kThreads, [](int) {
    for (uint64_t i = 0; i < kCalls; ++i) {
      std::string s(40, static_cast<char>('a' + i % 26));
      alloclab::Escape(s.data());
    }
  });
  EXPECT_EQ(counted, kThreads * kCalls)
      << "promise 2, through the counting allocator: " << kThreads
      << " threads of " << kCalls << " std::string allocations each, joined, "
      << "must count exactly " << kThreads * kCalls;
}

}  // namespace
}  // namespace counter_contention
