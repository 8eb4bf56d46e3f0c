// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The counter's counts are exact, so every test asserts an exact number:
// one per operator new call of every form, none in kOff, and totals that
// still add up after the counting threads have exited.

#include "common/alloc_counter.h"

#include <pthread.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <latch>
#include <new>
#include <string>
#include <thread>
#include <vector>

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
};

template <typename Fn>
Counted Count(Fn fn) {
  const uint64_t thread_before = ThreadAllocations();
  AllocationScope scope;
  fn();
  return {scope.Count(), ThreadAllocations() - thread_before};
}

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
    {"new T", [] {
       int* p = new int(1);
       Keep(p);
       delete p;
     }},
    {"new T[]", [] {
       int* p = new int[10];
       Keep(p);
       delete[] p;
     }},
    {"new (nothrow) T", [] {
       int* p = new (std::nothrow) int(1);
       Keep(p);
       delete p;
     }},
    {"new (nothrow) T[]", [] {
       int* p = new (std::nothrow) int[10];
       Keep(p);
       delete[] p;
     }},
    {"new aligned T", [] {
       OverAligned* p = new OverAligned;
       Keep(p);
       delete p;
     }},
    {"new aligned T[]", [] {
       OverAligned* p = new OverAligned[3];
       Keep(p);
       delete[] p;
     }},
    {"new (nothrow) aligned T", [] {
       OverAligned* p = new (std::nothrow) OverAligned;
       Keep(p);
       delete p;
     }},
    {"new (nothrow) aligned T[]", [] {
       OverAligned* p = new (std::nothrow) OverAligned[3];
       Keep(p);
       delete[] p;
     }},
    {"operator new + sized delete", [] {
       void* p = ::operator new(24);
       Keep(p);
       ::operator delete(p, 24);
     }},
    {"operator new[] + sized delete[]", [] {
       void* p = ::operator new[](24);
       Keep(p);
       ::operator delete[](p, 24);
     }},
    {"operator new(align) + sized aligned delete", [] {
       void* p = ::operator new(24, std::align_val_t{64});
       Keep(p);
       ::operator delete(p, 24, std::align_val_t{64});
     }},
    {"operator new[](align) + sized aligned delete[]", [] {
       void* p = ::operator new[](24, std::align_val_t{64});
       Keep(p);
       ::operator delete[](p, 24, std::align_val_t{64});
     }},
    {"operator new(align, nothrow) + delete(align, nothrow)", [] {
       void* p = ::operator new(24, std::align_val_t{64}, std::nothrow);
       Keep(p);
       ::operator delete(p, std::align_val_t{64}, std::nothrow);
     }},
    {"operator new[](align, nothrow) + delete[](align, nothrow)", [] {
       void* p = ::operator new[](24, std::align_val_t{64}, std::nothrow);
       Keep(p);
       ::operator delete[](p, std::align_val_t{64}, std::nothrow);
     }},
    {"operator new(nothrow) + delete(nothrow)", [] {
       void* p = ::operator new(24, std::nothrow);
       Keep(p);
       ::operator delete(p, std::nothrow);
     }},
    {"operator new[](nothrow) + delete[](nothrow)", [] {
       void* p = ::operator new[](24, std::nothrow);
       Keep(p);
       ::operator delete[](p, std::nothrow);
     }},
    {"std::string of 100 chars", [] {
       std::string s(100, 'x');
       Keep(s.data());
     }},
    {"std::vector::reserve", [] {
       std::vector<int> v;
       v.reserve(1000);
       Keep(v.data());
     }},
};

class FormTest : public AllocCounterTest,
                 public ::testing::WithParamInterface<Form> {};

TEST_P(FormTest, CountedOnceInEachCountingMode) {
  for (CountingMode mode : {CountingMode::kPerThread, CountingMode::kShared}) {
    SetCountingMode(mode);
    const Counted c = Count(GetParam().fn);
    EXPECT_EQ(c.total, 1u) << CountingModeName(mode);
    EXPECT_EQ(c.thread, mode == CountingMode::kPerThread ? 1u : 0u)
        << CountingModeName(mode);
  }
}

TEST_P(FormTest, NotCountedWhenOff) {
  SetCountingMode(CountingMode::kOff);
  const Counted c = Count(GetParam().fn);
  EXPECT_EQ(c.total, 0u);
  EXPECT_EQ(c.thread, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllForms, FormTest, ::testing::ValuesIn(kForms),
                         [](const ::testing::TestParamInfo<Form>& info) {
                           std::string name;
                           for (const char* c = info.param.name; *c; ++c) {
                             if (std::isalnum(static_cast<unsigned char>(*c))) {
                               name += *c;
                             }
                           }
                           return name + "_" + std::to_string(info.index);
                         });

TEST_F(AllocCounterTest, ReplacementIsInUse) {
  SetCountingMode(CountingMode::kShared);
  const Counted c = Count([] {
    int* p = new int(1);
    Keep(p);
    delete p;
  });
  ASSERT_EQ(c.total, 1u)
      << "this program's operator new is not alloc_counter's: another "
         "definition (a sanitizer runtime, a shared library loaded first) "
         "came first in the symbol search order";
}

TEST_F(AllocCounterTest, DeleteCountsNothing) {
  void* p = ::operator new(8);
  Keep(p);
  const Counted c = Count([p] { ::operator delete(p); });
  EXPECT_EQ(c.total, 0u);
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
    p = ::operator new(kHugeSize, std::align_val_t{64}, std::nothrow);
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
        void* p = aligned ? ::operator new(kHugeSize, std::align_val_t{64})
                          : ::operator new(kHugeSize);
        Keep(p);
      } catch (const std::bad_alloc&) {
        threw = true;
      }
    });
    EXPECT_TRUE(threw) << "aligned=" << aligned;
    // The exception object itself comes from __cxa_allocate_exception, not
    // operator new, so the failed call is the only one.
    EXPECT_EQ(c.total, 1u) << "aligned=" << aligned;
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

  std::latch start(kThreads + 1);
  std::vector<uint64_t> seen(kThreads, ~uint64_t{0});
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      const uint64_t before = ThreadAllocations();
      for (int i = 0; i < kPerThread; ++i) {
        int* p = new int(i);
        Keep(p);
        delete p;
      }
      seen[t] = ThreadAllocations() - before;
    });
  }
  // Thread creation allocates (std::thread's state) before this point.
  AllocationScope scope;
  start.arrive_and_wait();
  for (std::thread& t : threads) t.join();
  const uint64_t counted = scope.Count();

  EXPECT_EQ(counted, uint64_t{kThreads} * kPerThread);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(seen[t], mode == CountingMode::kPerThread ? kPerThread : 0)
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
    }
  });
  t.join();
  EXPECT_EQ(scope.Count(), 0u);
}

// Allocations made while a thread is exiting: in a thread_local destructor
// (which runs before the counter retires the thread) and in a pthread key
// destructor created after the counter's own (which runs after it).
struct AllocatesOnExit {
  ~AllocatesOnExit() {
    int* p = new int(7);
    Keep(p);
    delete p;
  }
};

void AllocateInKeyDestructor(void*) {
  int* p = new int(8);
  Keep(p);
  delete p;
}

TEST_F(AllocCounterTest, CountsAllocationsMadeDuringThreadExit) {
  SetCountingMode(CountingMode::kPerThread);
  pthread_key_t key;
  ASSERT_EQ(pthread_key_create(&key, &AllocateInKeyDestructor), 0);
  std::latch ready(2);
  std::thread t([&] {
    thread_local AllocatesOnExit on_exit;
    Keep(&on_exit);
    pthread_setspecific(key, reinterpret_cast<void*>(1));
    ready.arrive_and_wait();
  });
  AllocationScope scope;
  ready.arrive_and_wait();
  t.join();
  const uint64_t counted = scope.Count();
  pthread_key_delete(key);
  EXPECT_EQ(counted, 2u);
}

TEST_F(AllocCounterTest, ManyShortThreadsAddUp) {
  // Threads that start and exit one after another reuse each other's stacks
  // and thread-local storage: every record must start at zero and be
  // retired exactly once.
  SetCountingMode(CountingMode::kPerThread);
  AllocationScope scope;
  for (int t = 0; t < 50; ++t) {
    std::thread th([] {
      for (int i = 0; i < 10; ++i) {
        int* p = new int(i);
        Keep(p);
        delete p;
      }
    });
    th.join();
  }
  // Plus one allocation per std::thread for its state, made by this thread.
  EXPECT_EQ(scope.Count(), 50u * (10u + 1u));
}

TEST_F(AllocCounterTest, CounterCostRestoresTheMode) {
  SetCountingMode(CountingMode::kShared);
  const double per_thread = CounterCostNs(CountingMode::kPerThread);
  EXPECT_EQ(GetCountingMode(), CountingMode::kShared);
  SetCountingMode(CountingMode::kOff);
  const double shared = CounterCostNs(CountingMode::kShared);
  EXPECT_EQ(GetCountingMode(), CountingMode::kOff);
  std::printf("counter cost per new+delete pair: per_thread %.2f ns, "
              "shared %.2f ns\n", per_thread, shared);
  // Differences of medians: any sign, but real numbers.
  EXPECT_TRUE(std::isfinite(per_thread)) << per_thread;
  EXPECT_TRUE(std::isfinite(shared)) << shared;
  // Against itself the difference measures only noise.
  EXPECT_TRUE(std::isfinite(CounterCostNs(CountingMode::kOff)));
}

}  // namespace
}  // namespace alloclab
