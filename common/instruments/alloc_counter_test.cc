// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The counter's counts are exact, so every test asserts an exact number:
// one per call of every allocation form (operator new and the C functions),
// one per deallocation, none in kOff, and totals that still add up after the
// counting threads have exited. Under a sanitizer the C functions are
// counted differently or not at all (alloc_counter.h says how): the tests
// expect exactly that there.

#include "common/instruments/alloc_counter.h"

#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <latch>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "common/harness/fresh_process.h"
#include "gtest/gtest.h"

// The sanitizers report a failed allocation as an error and stop, where
// malloc returns null. The nothrow tests need malloc's behaviour, so sanitized
// builds of this test ask for it.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
#endif
#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_options() {
  return "allocator_may_return_null=1";
}
#endif

namespace alloclab {
namespace {

// Escapes pointers, so that the optimizer cannot pair a new with its delete
// and drop both (GCC does at -O2). Per thread: the tests' threads would
// otherwise race on it.
thread_local void* volatile t_sink = nullptr;
void Keep(void* p) { t_sink = p; }

// Too large for any address space, so malloc fails without trying.
const volatile size_t kHugeSize = size_t{1} << 62;

// Restores the mode after each test, whatever the test set.
class AllocCounterTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = GetCountingMode(); }
  void TearDown() override { SetCountingMode(saved_); }

 private:
  CountingMode saved_ = CountingMode::kPerThread;
};

// What one call of `fn` counted: process-wide and on this thread.
struct Counted {
  uint64_t total;
  uint64_t thread;
  uint64_t deallocations;
};

template <typename Fn>
Counted Count(Fn fn) {
  const uint64_t thread_before = ThreadAllocations();
  AllocationScope scope;
  fn();
  return {scope.Count(), ThreadAllocations() - thread_before,
          scope.Deallocations()};
}

// What a C allocation function counts in this build: 1, or 0 under
// ThreadSanitizer; and what a C call that fails counts: 1, or 0 under any
// sanitizer.
const uint64_t kC = CountsMallocFamily() ? 1 : 0;
const uint64_t kFailedC = CountsFailedMallocCalls() ? 1 : 0;

struct alignas(256) OverAligned {
  char bytes[256];
};

// One row per form of operator new: `fn` makes exactly one call to it and
// frees the memory with the matching delete.
struct Form {
  const char* name;
  void (*fn)();
};

const Form kForms[] = {
    {"new T",
     [] {
       int* p = new int(1);
       Keep(p);
       delete p;
     }},
    {"new T[]",
     [] {
       int* p = new int[10];
       Keep(p);
       delete[] p;
     }},
    {"new (nothrow) T",
     [] {
       int* p = new (std::nothrow) int(1);
       Keep(p);
       delete p;
     }},
    {"new (nothrow) T[]",
     [] {
       int* p = new (std::nothrow) int[10];
       Keep(p);
       delete[] p;
     }},
    {"new aligned T",
     [] {
       OverAligned* p = new OverAligned;
       Keep(p);
       delete p;
     }},
    {"new aligned T[]",
     [] {
       OverAligned* p = new OverAligned[3];
       Keep(p);
       delete[] p;
     }},
    {"new (nothrow) aligned T",
     [] {
       OverAligned* p = new (std::nothrow) OverAligned;
       Keep(p);
       delete p;
     }},
    {"new (nothrow) aligned T[]",
     [] {
       OverAligned* p = new (std::nothrow) OverAligned[3];
       Keep(p);
       delete[] p;
     }},
    {"operator new + sized delete",
     [] {
       void* p = ::operator new(24);
       Keep(p);
       ::operator delete(p, 24);
     }},
    {"operator new[] + sized delete[]",
     [] {
       void* p = ::operator new[](24);
       Keep(p);
       ::operator delete[](p, 24);
     }},
    {"operator new(align) + sized aligned delete",
     [] {
       void* p = ::operator new (24, std::align_val_t{64});
       Keep(p);
       ::operator delete (p, 24, std::align_val_t{64});
     }},
    {"operator new[](align) + sized aligned delete[]",
     [] {
       void* p = ::operator new[](24, std::align_val_t{64});
       Keep(p);
       ::operator delete[](p, 24, std::align_val_t{64});
     }},
    {"operator new(align, nothrow) + delete(align, nothrow)",
     [] {
       void* p = ::operator new (24, std::align_val_t{64}, std::nothrow);
       Keep(p);
       ::operator delete (p, std::align_val_t{64}, std::nothrow);
     }},
    {"operator new[](align, nothrow) + delete[](align, nothrow)",
     [] {
       void* p = ::operator new[](24, std::align_val_t{64}, std::nothrow);
       Keep(p);
       ::operator delete[](p, std::align_val_t{64}, std::nothrow);
     }},
    {"operator new(nothrow) + delete(nothrow)",
     [] {
       void* p = ::operator new(24, std::nothrow);
       Keep(p);
       ::operator delete(p, std::nothrow);
     }},
    {"operator new[](nothrow) + delete[](nothrow)",
     [] {
       void* p = ::operator new[](24, std::nothrow);
       Keep(p);
       ::operator delete[](p, std::nothrow);
     }},
    {"std::string of 100 chars",
     [] {
       std::string s(100, 'x');
       Keep(s.data());
     }},
    {"std::vector::reserve",
     [] {
       std::vector<int> v;
       v.reserve(1000);
       Keep(v.data());
     }},
};

// The C functions, each called once and its block freed once. They are
// called through volatile pointers: GCC knows malloc and may otherwise drop
// a pair whose pointer nothing reads, or turn malloc+memset into calloc.
void* (*volatile c_malloc)(size_t) = &malloc;
void* (*volatile c_calloc)(size_t, size_t) = &calloc;
void* (*volatile c_realloc)(void*, size_t) = &realloc;
void* (*volatile c_reallocarray)(void*, size_t, size_t) = &reallocarray;
void (*volatile c_free)(void*) = &free;
int (*volatile c_posix_memalign)(void**, size_t, size_t) = &posix_memalign;
void* (*volatile c_aligned_alloc)(size_t, size_t) = &aligned_alloc;
void* (*volatile c_memalign)(size_t, size_t) = &memalign;
void* (*volatile c_valloc)(size_t) = &valloc;
void* (*volatile c_pvalloc)(size_t) = &pvalloc;

const Form kCForms[] = {
    {"malloc", [] { c_free(c_malloc(24)); }},
    {"malloc 0", [] { c_free(c_malloc(0)); }},
    {"calloc", [] { c_free(c_calloc(10, 8)); }},
    {"realloc NULL", [] { c_free(c_realloc(nullptr, 40)); }},
    {"reallocarray NULL", [] { c_free(c_reallocarray(nullptr, 5, 8)); }},
    {"posix_memalign",
     [] {
       void* p = nullptr;
       ASSERT_EQ(c_posix_memalign(&p, 64, 100), 0);
       c_free(p);
     }},
    {"aligned_alloc", [] { c_free(c_aligned_alloc(64, 128)); }},
    {"memalign", [] { c_free(c_memalign(128, 100)); }},
    {"valloc", [] { c_free(c_valloc(100)); }},
    {"pvalloc", [] { c_free(c_pvalloc(100)); }},
    {"strdup", [] { c_free(strdup("made by malloc inside libc")); }},
};

// A test name from a form's description.
std::string FormName(const ::testing::TestParamInfo<Form>& info) {
  std::string name;
  for (const char* c = info.param.name; *c; ++c) {
    if (std::isalnum(static_cast<unsigned char>(*c))) name += *c;
  }
  return name + "_" + std::to_string(info.index);
}

class FormTest : public AllocCounterTest,
                 public ::testing::WithParamInterface<Form> {};

TEST_P(FormTest, CountedOnceInEachCountingMode) {
  for (CountingMode mode : {CountingMode::kPerThread, CountingMode::kShared}) {
    SetCountingMode(mode);
    const Counted c = Count(GetParam().fn);
    EXPECT_EQ(c.total, 1u) << CountingModeName(mode);
    EXPECT_EQ(c.thread, mode == CountingMode::kPerThread ? 1u : 0u)
        << CountingModeName(mode);
    EXPECT_EQ(c.deallocations, 1u) << CountingModeName(mode);
  }
}

TEST_P(FormTest, NotCountedWhenOff) {
  SetCountingMode(CountingMode::kOff);
  const Counted c = Count(GetParam().fn);
  EXPECT_EQ(c.total, 0u);
  EXPECT_EQ(c.thread, 0u);
  EXPECT_EQ(c.deallocations, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllForms, FormTest, ::testing::ValuesIn(kForms),
                         FormName);

class CFormTest : public AllocCounterTest,
                  public ::testing::WithParamInterface<Form> {};

TEST_P(CFormTest, CountedOnceInEachCountingMode) {
  for (CountingMode mode : {CountingMode::kPerThread, CountingMode::kShared}) {
    SetCountingMode(mode);
    const Counted c = Count(GetParam().fn);
    EXPECT_EQ(c.total, kC) << CountingModeName(mode);
    EXPECT_EQ(c.thread, mode == CountingMode::kPerThread ? kC : 0u)
        << CountingModeName(mode);
    EXPECT_EQ(c.deallocations, kC) << CountingModeName(mode);
  }
}

TEST_P(CFormTest, NotCountedWhenOff) {
  SetCountingMode(CountingMode::kOff);
  const Counted c = Count(GetParam().fn);
  EXPECT_EQ(c.total, 0u);
  EXPECT_EQ(c.deallocations, 0u);
}

INSTANTIATE_TEST_SUITE_P(CFunctions, CFormTest, ::testing::ValuesIn(kCForms),
                         FormName);

TEST_F(AllocCounterTest, SaysWhetherMallocIsCounted) {
  const std::string note = MallocCountingNote();
  std::printf("%s\n", note.c_str());
#if defined(__SANITIZE_THREAD__)
  EXPECT_FALSE(CountsMallocFamily());
  EXPECT_NE(note.find("not counted: ThreadSanitizer"), std::string::npos)
      << note;
#elif defined(__SANITIZE_ADDRESS__)
  EXPECT_TRUE(CountsMallocFamily()) << note;
  EXPECT_FALSE(CountsFailedMallocCalls());
  EXPECT_NE(note.find("sanitizer runtime's hooks"), std::string::npos) << note;
#else
  EXPECT_TRUE(CountsMallocFamily()) << note;
  EXPECT_TRUE(CountsFailedMallocCalls());
  // No allocator is preloaded into this test: glibc serves malloc.
  EXPECT_NE(note.find("forwarded to libc.so"), std::string::npos) << note;
#endif
}

// realloc's cases, as alloc_counter.h defines them.
TEST_F(AllocCounterTest, ReallocCountsByWhatHappenedToTheBlocks) {
  SetCountingMode(CountingMode::kPerThread);
  void* p = nullptr;
  Counted c = Count([&] { p = c_realloc(nullptr, 32); });  // malloc(32)
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(c.total, kC);
  EXPECT_EQ(c.deallocations, 0u);

  c = Count([&] { p = c_realloc(p, 4000); });  // a resize: 1 + 1
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(c.total, kC);
  EXPECT_EQ(c.deallocations, kC);

  void* q = reinterpret_cast<void*>(1);
  c = Count([&] { q = c_realloc(p, kHugeSize); });  // fails: p untouched
  EXPECT_EQ(q, nullptr);
  EXPECT_EQ(c.total, kFailedC);
  EXPECT_EQ(c.deallocations, 0u);

  c = Count([&] { q = c_reallocarray(p, kHugeSize, 16); });  // overflows
  EXPECT_EQ(q, nullptr);
  EXPECT_EQ(c.total, kFailedC);
  EXPECT_EQ(c.deallocations, 0u);

  // Size 0: glibc frees p and returns null (a deallocation); an allocator
  // that returns a minimal block instead counts a resize.
  c = Count([&] { q = c_realloc(p, 0); });
  if (q == nullptr) {
    EXPECT_EQ(c.total, 0u);
    EXPECT_EQ(c.deallocations, kC);
  } else {
    EXPECT_EQ(c.total, kC);
    EXPECT_EQ(c.deallocations, kC);
    c_free(q);
  }
}

TEST_F(AllocCounterTest, AllocationsMinusDeallocationsAreTheLiveBlocks) {
  SetCountingMode(CountingMode::kShared);
  AllocationScope scope;
  void* a = c_malloc(16);       // live: a
  void* b = ::operator new(8);  // a b
  void* c = c_calloc(2, 8);     // a b c
  a = c_realloc(a, 1000);       // a' b c
  c_free(c);                    // a' b
  int* d = new int[4];          // a' b d
  Keep(d);
  EXPECT_EQ(scope.Count() - scope.Deallocations(), 2 + kC);
  c_free(a);
  ::operator delete(b);
  delete[] d;
  EXPECT_EQ(scope.Count(), 2 + 3 * kC);
  EXPECT_EQ(scope.Deallocations(), scope.Count());
}

TEST_F(AllocCounterTest, DeleteCountsADeallocationOnly) {
  SetCountingMode(CountingMode::kPerThread);
  void* p = ::operator new(8);
  Keep(p);
  Counted c = Count([p] { ::operator delete(p); });
  EXPECT_EQ(c.total, 0u);
  EXPECT_EQ(c.deallocations, 1u);
  // Null frees nothing and counts nothing.
  c = Count([] {
    ::operator delete(nullptr);
    c_free(nullptr);
  });
  EXPECT_EQ(c.total, 0u);
  EXPECT_EQ(c.deallocations, 0u);
}

TEST_F(AllocCounterTest, ZeroBytesGiveDistinctPointers) {
  void* a = ::operator new(0);
  void* b = ::operator new(0);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(b, nullptr);
  EXPECT_NE(a, b);
  ::operator delete(a);
  ::operator delete(b);
}

TEST_F(AllocCounterTest, AlignedFormsAlign) {
  for (size_t align : {size_t{1}, size_t{2}, size_t{16}, size_t{64},
                       size_t{4096}, size_t{1} << 16}) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{24}, size_t{5000}}) {
      const std::align_val_t a{align};
      void* p1 = ::operator new(size, a);
      void* p2 = ::operator new[](size, a);
      void* p3 = ::operator new(size, a, std::nothrow);
      void* p4 = ::operator new[](size, a, std::nothrow);
      for (void* p : {p1, p2, p3, p4}) {
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u)
            << "align " << align << " size " << size;
      }
      ::operator delete(p1, a);
      ::operator delete[](p2, a);
      ::operator delete(p3, a);
      ::operator delete[](p4, a);
    }
  }
  OverAligned* o = new OverAligned;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(o) % alignof(OverAligned), 0u);
  delete o;
}

TEST_F(AllocCounterTest, FailedNothrowIsNullAndCountedOnce) {
  SetCountingMode(CountingMode::kPerThread);
  void* p = reinterpret_cast<void*>(1);
  Counted c = Count([&] { p = ::operator new(kHugeSize, std::nothrow); });
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(c.total, 1u);  // a call was made; it is counted like any other
  EXPECT_EQ(c.thread, 1u);

  c = Count([&] { p = ::operator new[](kHugeSize, std::nothrow); });
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(c.total, 1u);

  c = Count([&] {
    p = ::operator new (kHugeSize, std::align_val_t{64}, std::nothrow);
  });
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(c.total, 1u);

  // And the counter still works afterwards.
  c = Count([] {
    int* q = new int(3);
    Keep(q);
    delete q;
  });
  EXPECT_EQ(c.total, 1u);
}

TEST_F(AllocCounterTest, FailedThrowingFormThrowsBadAlloc) {
  SetCountingMode(CountingMode::kShared);
  for (bool aligned : {false, true}) {
    bool threw = false;
    const Counted c = Count([&] {
      try {
        void* p = aligned ? ::operator new (kHugeSize, std::align_val_t{64})
                          : ::operator new(kHugeSize);
        Keep(p);
      } catch (const std::bad_alloc&) {
        threw = true;
      }
    });
    EXPECT_TRUE(threw) << "aligned=" << aligned;
    // The failed call, plus the exception object: __cxa_allocate_exception
    // takes it from malloc (counted where malloc is), not operator new.
    EXPECT_EQ(c.total, 1u + kC) << "aligned=" << aligned;
  }
}

TEST_F(AllocCounterTest, NewHandlerIsCalledBeforeGivingUp) {
  static int calls = 0;
  calls = 0;
  std::new_handler previous = std::set_new_handler([] {
    // Give up on the second call: uninstall ourselves.
    if (++calls == 2) std::set_new_handler(nullptr);
  });
  void* p = ::operator new(kHugeSize, std::nothrow);
  std::set_new_handler(previous);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(calls, 2);
}

TEST_F(AllocCounterTest, ModeNames) {
  EXPECT_EQ(CountingModeName(CountingMode::kOff), "off");
  EXPECT_EQ(CountingModeName(CountingMode::kShared), "shared");
  EXPECT_EQ(CountingModeName(CountingMode::kPerThread), "per_thread");
}

TEST_F(AllocCounterTest, ScopeWithNothingInItCountsZero) {
  AllocationScope scope;
  EXPECT_EQ(scope.Count(), 0u);
}

// 4 threads x 10000 allocations, all started together and joined: the
// process-wide count is exact although every thread has exited before it
// is read, and each thread saw its own 10000 (in kPerThread) or none.
class ThreadsTest : public AllocCounterTest,
                    public ::testing::WithParamInterface<CountingMode> {};

TEST_P(ThreadsTest, ExactAfterJoin) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 10000;
  const CountingMode mode = GetParam();
  SetCountingMode(mode);

  std::latch ready(kThreads + 1);
  std::latch go(1);
  std::vector<uint64_t> seen(kThreads, ~uint64_t{0});
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.arrive_and_wait();
      go.wait();
      const uint64_t before = ThreadAllocations();
      for (int i = 0; i < kPerThread; ++i) {
        int* p = new int(i);
        Keep(p);
        delete p;
        c_free(c_malloc(static_cast<size_t>(i % 100)));
      }
      seen[t] = ThreadAllocations() - before;
    });
  }
  // Starting a thread allocates (std::thread's state; under a sanitizer, in
  // the new thread too): all of that is done before the count starts.
  ready.arrive_and_wait();
  AllocationScope scope;
  go.count_down();
  for (std::thread& t : threads) t.join();
  const uint64_t counted = scope.Count();

  EXPECT_EQ(counted, uint64_t{kThreads} * kPerThread * (1 + kC));
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(seen[t],
              mode == CountingMode::kPerThread ? kPerThread * (1 + kC) : 0)
        << "thread " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, ThreadsTest,
                         ::testing::Values(CountingMode::kShared,
                                           CountingMode::kPerThread),
                         [](const ::testing::TestParamInfo<CountingMode>& i) {
                           return std::string(CountingModeName(i.param));
                         });

TEST_F(AllocCounterTest, OffCountsNothingInThreads) {
  SetCountingMode(CountingMode::kOff);
  AllocationScope scope;
  std::thread t([] {
    for (int i = 0; i < 1000; ++i) {
      int* p = new int(i);
      Keep(p);
      delete p;
      c_free(c_malloc(8));
    }
  });
  t.join();
  EXPECT_EQ(scope.Count(), 0u);
  EXPECT_EQ(scope.Deallocations(), 0u);
}

// Allocations made while a thread is exiting: in a thread_local destructor
// (which runs before the counter retires the thread) and in a pthread key
// destructor created after the counter's own (which runs after it).
struct AllocatesOnExit {
  ~AllocatesOnExit() {
    int* p = new int(7);
    Keep(p);
    delete p;
    c_free(c_malloc(7));
  }
};

void AllocateInKeyDestructor(void*) {
  int* p = new int(8);
  Keep(p);
  delete p;
  c_free(c_malloc(8));
}

TEST_F(AllocCounterTest, CountsAllocationsMadeDuringThreadExit) {
  SetCountingMode(CountingMode::kPerThread);
  pthread_key_t key;
  ASSERT_EQ(pthread_key_create(&key, &AllocateInKeyDestructor), 0);
  // The thread sets up (registering a thread_local destructor callocs) before
  // the scope starts, and exits after it.
  std::latch ready(2);
  std::latch go(1);
  std::thread t([&] {
    thread_local AllocatesOnExit on_exit;
    Keep(&on_exit);
    pthread_setspecific(key, reinterpret_cast<void*>(1));
    ready.arrive_and_wait();
    go.wait();
  });
  ready.arrive_and_wait();
  const uint64_t own_before = ThreadAllocations();
  AllocationScope scope;
  go.count_down();
  t.join();
  const uint64_t counted = scope.Count() - (ThreadAllocations() - own_before);
  pthread_key_delete(key);
  EXPECT_EQ(counted, 2u * (1 + kC));
}

TEST_F(AllocCounterTest, ManyShortThreadsAddUp) {
  // Threads that start and exit one after another reuse each other's stacks
  // and thread-local storage: every record must start at zero and be
  // retired exactly once.
  // Each is counted from when it has started (which allocates, in this
  // thread and under a sanitizer in the new one) until it has exited.
  SetCountingMode(CountingMode::kPerThread);
  uint64_t counted = 0;
  for (int t = 0; t < 50; ++t) {
    std::latch ready(2);
    std::latch go(1);
    std::thread th([&] {
      ready.arrive_and_wait();
      go.wait();
      for (int i = 0; i < 10; ++i) {
        int* p = new int(i);
        Keep(p);
        delete p;
        c_free(c_calloc(1, 32));
      }
    });
    ready.arrive_and_wait();
    AllocationScope scope;
    go.count_down();
    th.join();
    counted += scope.Count();
  }
  EXPECT_EQ(counted, 50u * 10u * (1 + kC));
}

// A thread whose first allocation comes in the last round of its pthread
// key destructors. glibc runs the destructors of the keys a thread has set
// in rounds, each round in key order, and a destructor that sets a key
// again has it run in a later round, but only for
// PTHREAD_DESTRUCTOR_ITERATIONS rounds. A key made after the counter's own,
// set again in each round until the last, allocates there: the counter's
// key, set by that first count, comes earlier in the order and its
// destructor never runs, so the thread's record is never retired. Its
// counts must stay in the totals, and the next threads, given the same
// thread-local storage (glibc reuses a joined thread's stack), must count
// in records of their own. In a fresh process, where the counter's key is
// the first made; the totals are read on a driver thread, and a run that
// does not end within kLastRoundDeadlineSeconds (a bound no correct counter
// comes near: a few thread starts and joins) is reported, not waited for.
constexpr int kLastRoundThreads = 6;  // late and counting, alternately
constexpr int kLastRoundCounts = 10;  // what each counting thread allocates
constexpr int kLastRoundDeadlineSeconds = 20;

pthread_key_t g_last_round_key;
int g_last_round_values[PTHREAD_DESTRUCTOR_ITERATIONS + 1];  // by round

void NewAndDelete() {
  int* p = new int(9);
  Keep(p);
  delete p;
}

// The destructor of g_last_round_key, called with its round's value: sets
// the key again for the next round, and in the last allocates once.
void AllocateInLastRound(void* value) {
  const long round = static_cast<int*>(value) - g_last_round_values;
  if (round < PTHREAD_DESTRUCTOR_ITERATIONS) {
    pthread_setspecific(g_last_round_key, &g_last_round_values[round + 1]);
    return;
  }
  NewAndDelete();
}

// Where the driver stands, for the report of a run that did not end.
struct LastRoundRun {
  std::mutex mutex;
  std::condition_variable changed;
  int thread = 0;       // 1-based
  bool joined = false;  // thread `thread` was joined: totals are read next
  bool done = false;
  uint64_t counted[kLastRoundThreads] = {};  // by each thread, as it ran
};

// A raw pthread, not std::thread: std::thread's start deletes its state on
// the new thread, a first count before the last round.
struct LastRoundThread {
  std::latch ready{2};
  std::latch go{1};
  bool late = false;
};

void* RunLastRoundThread(void* arg) {
  LastRoundThread& t = *static_cast<LastRoundThread*>(arg);
  t.ready.arrive_and_wait();
  t.go.wait();
  if (t.late) {
    pthread_setspecific(g_last_round_key, &g_last_round_values[1]);
  } else {
    for (int i = 0; i < kLastRoundCounts; ++i) NewAndDelete();
  }
  return nullptr;
}

void LastRoundThreads(LastRoundRun& run) {
  for (int k = 0; k < kLastRoundThreads; ++k) {
    LastRoundThread t;
    t.late = k % 2 == 0;
    {
      std::lock_guard<std::mutex> lock(run.mutex);
      run.thread = k + 1;
      run.joined = false;
    }
    pthread_t thread;
    if (pthread_create(&thread, nullptr, &RunLastRoundThread, &t) != 0) break;
    // Counted from when it has started (which allocates, here and under a
    // sanitizer in the new thread) until it has exited.
    t.ready.arrive_and_wait();
    const uint64_t own_before = ThreadAllocations();
    const uint64_t before = TotalAllocations();
    t.go.count_down();
    pthread_join(thread, nullptr);
    {
      std::lock_guard<std::mutex> lock(run.mutex);
      run.joined = true;
    }
    const uint64_t counted = TotalAllocations() - before;
    run.counted[k] = counted - (ThreadAllocations() - own_before);
  }
  std::lock_guard<std::mutex> lock(run.mutex);
  run.done = true;
  run.changed.notify_all();
}

void LastRoundCall(FreshCall& call) {
  SetCountingMode(CountingMode::kPerThread);
  if (pthread_key_create(&g_last_round_key, &AllocateInLastRound) != 0) {
    call.Fail("pthread_key_create failed");
    return;
  }
  auto run = std::make_shared<LastRoundRun>();
  std::thread driver([run] { LastRoundThreads(*run); });
  std::unique_lock<std::mutex> lock(run->mutex);
  if (!run->changed.wait_for(lock,
                             std::chrono::seconds(kLastRoundDeadlineSeconds),
                             [&] { return run->done; })) {
    call.Fail(std::string(run->joined ? "TotalAllocations() did not return"
                                      : "a thread did not end") +
              " within " + std::to_string(kLastRoundDeadlineSeconds) +
              " s, at thread " + std::to_string(run->thread) + " of " +
              std::to_string(kLastRoundThreads) +
              " (odd: one whose only allocation is made in the last round "
              "of its key destructors): its record left in the list, linked "
              "again by the next thread on the same storage?");
    driver.detach();  // stuck; the fresh process ends with the report
    return;
  }
  lock.unlock();
  driver.join();
  for (int k = 0; k < kLastRoundThreads; ++k) {
    call.Record("thread_" + std::to_string(k + 1),
                static_cast<double>(run->counted[k]));
  }
}
ALLOCLAB_FRESH_CALL("alloc_counter_last_round", LastRoundCall);

TEST_F(AllocCounterTest, AFirstAllocationInTheLastRoundOfKeyDestructors) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer's runtime ends its record of a thread in "
                  "the last round of the thread's key destructors (its own "
                  "key, made first, sets itself again until then): code "
                  "that runs in that round after it faults";
#endif
  absl::StatusOr<FreshCallResult> r = RunFreshCall("alloc_counter_last_round");
  ASSERT_TRUE(r.ok()) << r.status();
  for (int k = 1; k <= kLastRoundThreads; ++k) {
    const bool late = k % 2 == 1;
    EXPECT_EQ(r->values["thread_" + std::to_string(k)],
              late ? 1 : kLastRoundCounts)
        << "TotalAllocations() stays exact after threads exit; thread " << k
        << (late ? " allocated once, in the last round of its pthread key "
                   "destructors"
                 : " allocated " + std::to_string(kLastRoundCounts) +
                       " times, after a thread that first allocated in the "
                       "last round of its key destructors");
  }
}

// A custom counter for the plug-in tests: one atomic, plus a switch that
// makes count() allocate, as a careless counter might.
std::atomic<uint64_t> g_custom_count{0};
std::atomic<bool> g_custom_allocates{false};
const AllocationCounter kTestCounter = {
    .count =
        [] {
          g_custom_count.fetch_add(1, std::memory_order_relaxed);
          if (g_custom_allocates.load(std::memory_order_relaxed)) {
            int* p = new int(1);
            Keep(p);
            delete p;
          }
        },
    .total = [] { return g_custom_count.load(std::memory_order_relaxed); },
};

TEST_F(AllocCounterTest, CustomCounterSeesEveryForm) {
  UseCustomCounter(kTestCounter);
  EXPECT_EQ(GetCountingMode(), CountingMode::kCustom);
  for (const Form& form : kForms) {
    const uint64_t before = g_custom_count.load();
    const Counted c = Count(form.fn);
    EXPECT_EQ(g_custom_count.load() - before, 1u) << form.name;
    EXPECT_EQ(c.total, 1u) << form.name;
    EXPECT_EQ(c.thread, 0u) << form.name;
    EXPECT_EQ(c.deallocations, 1u) << form.name;
  }
  for (const Form& form : kCForms) {
    const uint64_t before = g_custom_count.load();
    const Counted c = Count(form.fn);
    EXPECT_EQ(g_custom_count.load() - before, kC) << form.name;
    EXPECT_EQ(c.total, kC) << form.name;
  }
}

TEST_F(AllocCounterTest, CustomCounterThatAllocatesDoesNotRecurse) {
  UseCustomCounter(kTestCounter);
  g_custom_allocates = true;
  const uint64_t before = g_custom_count.load();
  const Counted c = Count([] {
    int* p = new int(2);
    Keep(p);
    delete p;
  });
  g_custom_allocates = false;
  // The counted new, by the custom counter; the new inside count(), by this
  // thread's record.
  EXPECT_EQ(g_custom_count.load() - before, 1u);
  EXPECT_EQ(c.thread, 1u);
  EXPECT_EQ(c.total, 2u);
}

TEST_F(AllocCounterTest, CustomCounterCountsThreadsThatExited) {
  UseCustomCounter(kTestCounter);
  // The threads start (which allocates) before the count starts, and exit
  // before it is read.
  std::latch started(5);
  std::latch go(1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      started.arrive_and_wait();
      go.wait();
      for (int i = 0; i < 1000; ++i) c_free(c_malloc(16));
      for (int i = 0; i < 1000; ++i) {
        int* p = new int(i);
        Keep(p);
        delete p;
      }
    });
  }
  started.arrive_and_wait();
  const uint64_t before = g_custom_count.load();
  go.count_down();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(g_custom_count.load() - before, 4u * 1000u * (1 + kC));
}

// Allocations before main: this object's constructor runs among the
// program's dynamic initializers, before GoogleTest exists.
struct CountedAtStartup {
  uint64_t thread_counted;
  CountedAtStartup() {
    const uint64_t before = ThreadAllocations();
    c_free(c_malloc(100));
    int* p = new int(5);
    Keep(p);
    delete p;
    thread_counted = ThreadAllocations() - before;
  }
};
const CountedAtStartup g_at_startup;

TEST_F(AllocCounterTest, CountsBeforeMain) {
  EXPECT_EQ(g_at_startup.thread_counted, 1 + kC);
}

TEST_F(AllocCounterTest, CounterCostRestoresTheMode) {
  SetCountingMode(CountingMode::kShared);
  const double per_thread = CounterCostNs(CountingMode::kPerThread);
  EXPECT_EQ(GetCountingMode(), CountingMode::kShared);
  SetCountingMode(CountingMode::kOff);
  const double shared = CounterCostNs(CountingMode::kShared);
  EXPECT_EQ(GetCountingMode(), CountingMode::kOff);
  std::printf(
      "counter cost per new+delete pair: per_thread %.2f ns, "
      "shared %.2f ns\n",
      per_thread, shared);
  // No test of the costs' values: they are differences of two timings, of
  // any sign, which every experiment reports in its JSON's instruments.
}

}  // namespace
}  // namespace alloclab
