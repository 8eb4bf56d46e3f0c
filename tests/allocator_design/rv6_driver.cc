// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: rv6_driver.cc
// -----------------------------------------------------------------------------
//
// Review rv6's drivers: one small scenario per promise a wrong allocator of
// RV6_MUTATIONS and RV6_THREAD_OWNED_PAGES_MUTATIONS (BUILD) breaks, run
// against that allocator or against the correct designs (rv6_reference_driver,
// rv6_segregated_fit_driver, rv6_thread_owned_pages_driver). Each prints its
// figures and exits 1 when the promise is broken, 0 when kept.
//
// The scenarios: traces (promise 5: every trace of traces.h replayed in a
// fresh fork of a process that never used the allocator, its utilization
// printed; rv6_map_releases_one_span,
// rv6_owned_pages_map_releases_one_span), size_to_size [up|down]
// [least|class] [window KiB] (promise 4: a producer and a consumer of
// messages of each class above 2 KiB in turn, 800 of each, at most the
// window live; rv6_owned_pages_spares_capped_by_blocks, and thread_owned_pages
// itself with a window of 300 KiB or more), handed_then_freed (promise 3:
// rv6_owned_pages_abandoned_free_not_armed), allocate_as_they_exit (promise
// 3: rv6_owned_pages_exit_resets_lists_only), shared_lines (promise 6:
// rv6_segfit_exact_bin_ignores_owner), static_growth (the rules, metadata
// that grows with use from pages.h: rv6_descriptors_from_static_pool) and
// large_refusal (a refused map, the counters exact:
// rv6_owned_pages_large_refusal_not_returned). Two more wrong allocators
// tried, a reference whose chunks double while twice them fit in what is
// held and one whose trim on reuse counts only a batch's first released
// span, kept every promise here and are not in BUILD.
//
// Example:
//
//   bazel run //tests/allocator_design:rv6_reference_driver -- traces
//   // traces: phases live peak 16860221 held peak 30932992 utilization
//   //   0.545 (bound 0.50): kept

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/thread_exit.h"
#include "labs/allocator_design/traces.h"

namespace allocator_design {
namespace {

#include "tests/allocator_design/review_driver.h"

// Promise 5: each trace replayed in a child of its own (this process never
// used the allocator), its utilization printed; broken when any is below
// kMinUtilization.
int AllTraces() {
  const char* names[] = {"small_live", "phases", "mixed", "large", "python"};
  int verdict = 0;
  for (const char* name : names) {
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      std::optional<Trace> trace = BuildTrace(name);
      if (!trace.has_value()) _exit(2);
      absl::StatusOr<TraceResult> r = ReplayTrace(*trace);
      if (!r.ok()) {
        printf("traces: %s failed: %s\n", name,
               std::string(r.status().message()).c_str());
        _exit(2);
      }
      const bool kept = r->utilization >= kMinUtilization;
      printf(
          "traces: %s live peak %llu held peak %llu utilization %.3f "
          "(bound %.2f): %s\n",
          name, static_cast<unsigned long long>(r->peak_live_bytes),
          static_cast<unsigned long long>(r->peak_held_bytes), r->utilization,
          kMinUtilization, kept ? "kept" : "BROKEN");
      fflush(stdout);
      _exit(kept ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) verdict = 1;
  }
  return verdict;
}

// The class sizes of internal/size_classes.h above 2 KiB, each one's least
// size (the class below's + 1): 16 bytes apart to 128, then four a doubling.
std::vector<size_t> LeastSizesAbove2KiB() {
  std::vector<size_t> sizes;
  size_t below = 2048;
  for (size_t base = 2048; base < (size_t{256} << 10); base *= 2) {
    for (size_t k = 1; k <= 4; ++k) {
      sizes.push_back(below + 1);
      below = base + k * (base / 4);
    }
  }
  return sizes;
}

// Promise 4: a producer allocates `kPerSize` messages of each size in turn
// (least first), a consumer frees them, at most kWindowBytes live at once;
// the most bytes held, read by the producer after each message.
int SizeToSize(bool down, bool class_size, size_t window_kib) {
  constexpr size_t kPerSize = 800;
  const size_t kWindowBytes = window_kib << 10;
  constexpr size_t kRing = 1024;
  std::vector<void*> ring(kRing, nullptr);
  std::atomic<size_t> head{0};  // produced
  std::atomic<size_t> tail{0};  // consumed
  std::atomic<size_t> live_bytes{0};
  std::atomic<bool> done{false};
  std::vector<size_t> sizes = LeastSizesAbove2KiB();
  if (class_size) {
    for (size_t i = 0; i + 1 < sizes.size(); ++i) sizes[i] = sizes[i + 1] - 1;
    sizes.back() = size_t{256} << 10;
  }
  if (down) std::reverse(sizes.begin(), sizes.end());
  std::vector<size_t> size_of(kRing, 0);
  uint64_t most = 0;
  std::thread consumer([&] {
    for (;;) {
      const size_t t = tail.load();
      if (t == head.load()) {
        if (done.load() && t == head.load()) break;
        continue;
      }
      Free(ring[t % kRing]);
      live_bytes.fetch_sub(size_of[t % kRing]);
      tail.store(t + 1);
    }
  });
  std::thread producer([&] {
    for (size_t size : sizes) {
      for (size_t i = 0; i < kPerSize; ++i) {
        while (live_bytes.load() + size > kWindowBytes ||
               head.load() - tail.load() >= kRing) {
        }
        const size_t h = head.load();
        ring[h % kRing] = Allocate(size, 16, false);
        size_of[h % kRing] = size;
        live_bytes.fetch_add(size);
        head.store(h + 1);
        const uint64_t held = Held();
        if (held > most) most = held;
      }
      if (getenv("RV6_VERBOSE") != nullptr) {
        fprintf(stderr, "size %zu: held %llu, most %llu\n", size,
                static_cast<unsigned long long>(Held()),
                static_cast<unsigned long long>(most));
      }
    }
    done.store(true);
  });
  producer.join();
  consumer.join();
  return Verdict("size_to_size", most, kMessagePassingHeldBytes,
                 "most bytes held");
}

// Resident pages of this executable's .bss (the allocator is linked in), by
// mincore(2): static storage touched.
extern "C" char __bss_start;
extern "C" char _end;
uint64_t ResidentStaticPages() {
  const uintptr_t page = PageSize();
  const uintptr_t start =
      reinterpret_cast<uintptr_t>(&__bss_start) & ~(page - 1);
  const uintptr_t end =
      (reinterpret_cast<uintptr_t>(&_end) + page - 1) & ~(page - 1);
  std::vector<unsigned char> vec((end - start) / page);
  if (mincore(reinterpret_cast<void*>(start), end - start, vec.data()) != 0) {
    return 0;
  }
  uint64_t n = 0;
  for (unsigned char v : vec) n += v & 1;
  return n;
}

// The rules (memory only from pages.h, metadata that grows with use too):
// 16,384 blocks of 16 KiB (4,096 spans of 64 KiB, 256 MiB of addresses, never
// written) allocated and freed; the pages of static storage touched meanwhile
// must not grow with them (a page-map root touches a page per 512 GiB).
int StaticGrowth() {
  constexpr size_t kBlocks = 16384;
  std::vector<void*> blocks(kBlocks);
  Free(Allocate(16 << 10, 16, false));  // set up: the first span and leaf
  const uint64_t before = ResidentStaticPages();
  for (void*& p : blocks) p = Allocate(16 << 10, 16, false);
  const uint64_t after = ResidentStaticPages();
  for (void* p : blocks) Free(p);
  printf("static_growth: resident .bss pages %llu before, %llu after\n",
         static_cast<unsigned long long>(before),
         static_cast<unsigned long long>(after));
  return Verdict("static_growth", after - before, 4,
                 "pages of static storage touched by 4,096 more spans");
}

// A refused map after another of the same call succeeded: the first large
// block's mapping succeeds, its metadata piece (the second map of the call,
// in a process that has mapped none) is refused. The counters must still say
// what the page source counted: returned == unmapped + released, held ==
// mapped - returned.
alignas(internal::ScopedMapRefusal) unsigned char refusal_room[sizeof(
    internal::ScopedMapRefusal)];
std::atomic<int> maps_seen{0};
void RefuseFromTheSecond() {
  if (maps_seen.fetch_add(1) == 1)
    new (refusal_room) internal::ScopedMapRefusal();
}
int LargeRefusal() {
  internal::SetMapObserver(&RefuseFromTheSecond);
  void* p = Allocate(300 << 10, 16, false);
  internal::SetMapObserver(nullptr);
  if (maps_seen.load() >= 2) {
    reinterpret_cast<internal::ScopedMapRefusal*>(refusal_room)
        ->~ScopedMapRefusal();
  }
  if (p != nullptr) Free(p);
  const PageSourceCounts pc = ReadPageSourceCounts();
  const Counters c = ReadCounters();
  const uint64_t given_back = pc.bytes_unmapped + pc.bytes_released;
  const uint64_t off = c.bytes_returned > given_back
                           ? c.bytes_returned - given_back
                           : given_back - c.bytes_returned;
  printf(
      "large_refusal: %d maps, block %s, returned %llu, page source "
      "unmapped + released %llu, held %llu, mapped %llu\n",
      maps_seen.load(), p == nullptr ? "refused" : "given",
      static_cast<unsigned long long>(c.bytes_returned),
      static_cast<unsigned long long>(given_back),
      static_cast<unsigned long long>(c.bytes_held),
      static_cast<unsigned long long>(pc.bytes_mapped));
  return Verdict("large_refusal", off, 0,
                 "bytes between bytes_returned and the page source's count");
}

// Promise 3: 64 producers each allocate a block of 256 KiB and exit with it
// out (their spans abandoned); then 64 consumers, which allocate nothing,
// each free one and exit. The clock stands still.
int HandedThenFreed() {
  internal::ScopedFakeClock clock;
  constexpr int kThreads = 64;
  std::vector<void*> blocks(kThreads, nullptr);
  for (int t = 0; t < kThreads; ++t) {
    std::thread([&, t] { blocks[t] = Allocate(256 << 10, 16, false); }).join();
  }
  for (int t = 0; t < kThreads; ++t) {
    std::thread([&, t] { Free(blocks[t]); }).join();
  }
  return Verdict("handed_then_freed", Held(), kThreadChurnHeldBytes,
                 "bytes held once every thread exited");
}

// Promise 6: thread A allocates 256 blocks of 64 bytes and frees every other
// one (its cache drains what it cannot hold), and stays; then thread B
// allocates 256 blocks of 64 bytes. The lines B's blocks share with A's live
// ones are counted.
int SharedLines() {
  constexpr int kBlocks = 256;
  constexpr size_t kSize = 64;
  std::vector<void*> a_blocks(kBlocks), b_blocks(kBlocks);
  std::atomic<int> step{0};
  std::thread a([&] {
    for (void*& p : a_blocks) p = Allocate(kSize, 0, false);
    for (int i = 0; i < kBlocks; i += 2) Free(a_blocks[i]);
    step = 1;
    while (step.load() != 2) {
    }
    for (int i = 1; i < kBlocks; i += 2) Free(a_blocks[i]);
  });
  while (step.load() != 1) {
  }
  uint64_t shared = 0;
  std::thread([&] {
    for (void*& p : b_blocks) p = Allocate(kSize, 0, false);
    std::vector<uintptr_t> lines;
    for (int i = 1; i < kBlocks; i += 2) {
      const uintptr_t p = reinterpret_cast<uintptr_t>(a_blocks[i]);
      for (uintptr_t l = p / kLine; l <= (p + kSize - 1) / kLine; ++l) {
        lines.push_back(l);
      }
    }
    std::sort(lines.begin(), lines.end());
    for (void* q : b_blocks) {
      const uintptr_t p = reinterpret_cast<uintptr_t>(q);
      for (uintptr_t l = p / kLine; l <= (p + kSize - 1) / kLine; ++l) {
        if (std::binary_search(lines.begin(), lines.end(), l)) ++shared;
      }
    }
    step = 2;
    for (void* q : b_blocks) Free(q);
  }).join();
  a.join();
  return Verdict("shared_lines", shared, 0,
                 "lines of B's blocks holding bytes of A's live ones");
}

// Promise 3, a thread that allocates again after its ThreadExit() (another
// pthread key's destructor, run after the allocator's): 16 threads each
// allocate once, and as they exit, in that destructor, allocate and free a
// block of each of five sizes (64 bytes to 256 KiB). The clock stands still.
pthread_key_t late_key;
void AllocateAsExiting(void*) {
  for (size_t size : {size_t{64}, size_t{1} << 10, size_t{8} << 10,
                      size_t{64} << 10, size_t{256} << 10}) {
    Free(Allocate(size, 0, false));
  }
}
int AllocateAsTheyExit() {
  internal::ScopedFakeClock clock;
  Free(Allocate(64, 0, false));  // the allocator's key first: its hook runs
  pthread_key_create(&late_key, &AllocateAsExiting);  // before this one
  for (int t = 0; t < 16; ++t) {
    std::thread([] {
      Free(Allocate(64, 0, false));
      pthread_setspecific(late_key, &late_key);
    }).join();
  }
  return Verdict("allocate_as_they_exit", Held(), kThreadChurnHeldBytes,
                 "bytes held once every thread exited");
}

}  // namespace
}  // namespace allocator_design

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: %s "
            "traces|size_to_size|static_growth|large_refusal|handed_then_freed|"
            "shared_lines\n",
            argv[0]);
    return 2;
  }
  const char* s = argv[1];
  if (strcmp(s, "traces") == 0) return allocator_design::AllTraces();
  if (strcmp(s, "size_to_size") == 0) {
    return allocator_design::SizeToSize(
        argc > 2 && strcmp(argv[2], "down") == 0,
        argc > 3 && strcmp(argv[3], "class") == 0,
        argc > 4 ? static_cast<size_t>(atoi(argv[4])) : 256);
  }
  if (strcmp(s, "handed_then_freed") == 0) {
    return allocator_design::HandedThenFreed();
  }
  if (strcmp(s, "allocate_as_they_exit") == 0) {
    return allocator_design::AllocateAsTheyExit();
  }
  if (strcmp(s, "shared_lines") == 0) return allocator_design::SharedLines();
  if (strcmp(s, "static_growth") == 0) return allocator_design::StaticGrowth();
  if (strcmp(s, "large_refusal") == 0) return allocator_design::LargeRefusal();
  fprintf(stderr, "no scenario %s\n", s);
  return 2;
}
