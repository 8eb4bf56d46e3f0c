// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: task.h
// -----------------------------------------------------------------------------
//
// Lab allocator_design, your task: an allocator of your own design, the one
// the course has argued for. The seven labs before this one measured what an
// allocator costs (a call, a system call, a first-touch fault, a shared cache
// line, memory kept or given back); here you decide those costs yourself.
//
// You implement the functions below. The lab supplies the rest, once:
//
//   - the C ABI (labs/allocator_design/shim.cc): malloc, free, calloc,
//     realloc, posix_memalign, aligned_alloc, memalign, valloc, pvalloc and
//     malloc_usable_size, errno on failure, the pthread_atfork() handlers,
//     all built on these functions. Built into a shared library
//     (`:libyours.so`) it replaces glibc's malloc in any program through
//     LD_PRELOAD: lab jemalloc_adoption's workloads run on it;
//   - the page source (pages.h): the only way your allocator gets memory
//     from the kernel and gives it back, counted, and the clock your decay
//     reads;
//   - the thread-exit hook (thread_exit.h): ThreadExit() runs when a thread
//     that armed it exits;
//   - the lock (lock.h): a mutex that never allocates, which the suite can
//     watch.
//
// Rules of the game. Your allocator *is* malloc: it must not call malloc,
// new, or anything that may (no std::vector or std::string; absl::Mutex may
// allocate: use lock.h's Lock). It gets memory only from pages.h: every
// block, and all metadata that grows with use (span descriptors, page-map
// leaves); fixed state of a known size (a page-map root in .bss, the
// thread-local caches) may be static, at most kMaxStaticBytes of it in
// .data and .bss and kMaxThreadLocalBytes per thread. It may run before
// main() and before any constructor of yours: initialise lazily, from
// constant-initialised state. Thread-local state must be plain data (no
// constructors or destructors), with
// `__attribute__((tls_model("initial-exec")))`, because a preloaded library's
// dynamic TLS can itself call malloc. Every lock it takes is a lock.h Lock, so
// that the suite can stop a thread inside each of your critical sections.
//
// What the suite checks (tests/allocator_design/: task_test.cc the
// Validator tests, a file per promise the Design tests), two parts:
//
//   Validator* tests: every block is aligned, no two live blocks overlap, a
//   block's bytes survive until it is freed, a zeroed request reads as
//   zeroes even when its memory was used before (by a block of any size,
//   freed by any thread, at any time before), all of it at every size next
//   to a class edge or threshold
//   (+-1, +-16) and every alignment up to 1 MiB, and in random sequences of
//   calls from several threads (a fixed seed and budget, printed on
//   failure: rerun the test to replay it), Allocate(0) is a unique block,
//   impossible sizes fail without overflowing, a refused map gives nullptr
//   (never a crash, never memory from elsewhere; also when it is one map
//   of a call, after others succeeded: the counters stay exact, no lock
//   stays held) and blocks come again once the page source maps, every mmap,
//   munmap, madvise and brk a round of calls makes is the page source's
//   (counted by ptrace), the storage your objects reserve (.data, .bss,
//   thread-local sections: read from the objects themselves) is within its
//   bounds, Free() leaves errno alone, thousands of threads may allocate and
//   exit, any thread may free any block, a forked child may allocate (even
//   while another thread waits inside the allocator for the page source, or
//   holds any of its locks) and keeps what it inherited, and ReadCounters()
//   says what the page source counted (Counters, below; to the byte while
//   nothing was released). The starter passes them all.
//
//   Design* tests: the promises below, as counts the suite takes itself
//   (the page source's maps and unmaps, the locks it sees taken, the
//   blocks it has live), beside your Counters. The starter keeps 3 and 4
//   and breaks 1, 2, 5 and 6.
//
//   1. The fast path is private. After a warm-up, a thread that allocates
//      and frees blocks of sizes it has used before, of any size up to
//      256 KiB (above, a block may be a mapping of its own, under a shared
//      lock) at the default alignment (`alignment` at most kMinAlignment;
//      a larger alignment may cost a lock), and frees only blocks it
//      allocated (or leaves them to another thread: promise 4's producer),
//      makes no system call, and rarely meets another thread,
//      however its allocations and frees are grouped: it takes a lock
//      (lock.h), or touches a list that other threads write (each a
//      central visit, Counters below), at most once every
//      kOpsPerCentralVisit calls; for blocks larger than
//      kBytesPerCentralVisit / kOpsPerCentralVisit (8 KiB), at most once
//      per kBytesPerCentralVisit bytes of the blocks it allocates and frees
//      (the sizes asked for). So 80 calls on blocks of 64 bytes may make 5
//      visits, and 80 on blocks of 64 KiB may make 40. A thread that frees
//      blocks other threads allocated (promise 4's consumer) is not held to
//      this count: it can reuse what it frees only by allocating it, and
//      every byte it does not reuse must go back to where it came from,
//      how many at a time being bounded by what it may keep (promise 4).
//      Another thread stopped inside the allocator never stops it: no lock
//      is held while the page source maps (a thread that waits there for
//      the kernel would stop every thread that needs its lock).
//   2. Idle memory goes back. Once every block is freed and kDecayNs has
//      passed on the page source's clock (NowNs()), the thread that next makes
//      kDecayCheckOps calls (any calls: Allocate() and Free() of blocks of any
//      size, alignment or kind, allocations alone too; Free(nullptr) need not
//      count) leaves at most kIdleHeldBytes held, beside the largest block over
//      256 KiB that those calls allocate (a mapping of its own, which they may
//      keep for their next call), whether the thread that freed the blocks has
//      exited or runs on (is itself the one that makes those calls), whether it
//      only freed, and however often it looked at the clock in between: idle
//      time counts from the free. Blocks that a thread still running allocated
//      may wait for that thread instead (a design whose pages only their owner
//      collects cannot reach them): they go back once it, too, has made
//      kDecayCheckOps calls after kDecayNs has passed, or has exited. Blocks
//      that other threads allocated may not wait for the thread that freed
//      them, whatever it keeps of them for its own use (a thread that frees
//      and then calls no more never empties a cache of its own). When k
//      threads that have not exited have each made kDecayCheckOps calls after
//      kDecayNs passed (at the same time or one after another), at most
//      kIdleHeldBytes + (k - 1) x kIdleThreadBytes stay held in all: the more
//      is for the blocks their calls use (a span or a region of each thread's;
//      each one's largest block over 256 KiB counts beside, as for one thread),
//      never for memory freed before kDecayNs passed, and a thread that has not
//      made such calls adds nothing. In a forked child, ForkChild() (below)
//      says what may stay.
//   3. Thread exit gives back. Threads that allocate, free and exit leave at
//      most kThreadChurnHeldBytes held after each exit, beside the blocks
//      still live, however many there were, when at most
//      kThreadChurnLiveBytes of blocks up to 256 KiB were live at once (all
//      threads' together; larger blocks, any amount).
//      Past that, the memory their frees emptied is promise 2's: it may
//      stay held until the decay.
//   4. Producer and consumer stay bounded. When one thread allocates what
//      another frees (lab jemalloc_adoption's msgsend), with at most a few
//      hundred KiB of messages live at once, small or large, the bytes held
//      stay at most kMessagePassingHeldBytes.
//   5. Memory is used. On each fixed trace of traces.h, the peak of the
//      bytes requested and live, divided by the peak of the bytes held, is
//      at least kMinUtilization.
//   6. Threads keep to their own cache lines. A block is live in the
//      thread that allocated it, from Allocate() until Free(). Of two
//      threads that both run and each free only blocks they allocated
//      themselves, no cache line holds bytes of live blocks of both: not
//      even the last bytes of one thread's block beside the first of the
//      other's, at any size and alignment. The line is kOwnLineBytes
//      (128), or the machine's coherency line when that is larger (the
//      largest of its caches', as common/machine/cpu_facts.h reads it: 64
//      bytes on x86-64, 128 on Apple silicon): the suite judges 128-byte
//      lines on every machine, so a design that assumes 64 fails here, not
//      only on a Mac. A block freed by
//      another thread than the one that allocated it is that thread's to
//      reuse (promise 4's consumer may reuse it), and so is its line: the
//      promise is for the lines where no block was freed that way. The blocks
//      of a thread that has exited are nobody's: they share lines with anyone.
//      Lab counter_contention measured why: two threads that write one line
//      take turns owning it, and run no faster on two cores than on one.
//
// How you meet them is yours to design. The chapter
// (docs/labs/allocator_design.md) discusses the parts designs are made of
// after you have made yours, and the experiment puts your allocator in lab
// jemalloc_adoption's table beside glibc, jemalloc, tcmalloc and mimalloc,
// judged by that lab's own rule.
//
// `bazel test //tests/allocator_design:starter_test` checks your task.cc.
//
// Example:
//
//   void* p = allocator_design::Allocate(100, 64, /*zero=*/true);
//   // p != nullptr, p % 64 == 0, p[0..99] == 0,
//   // allocator_design::UsableSize(p) >= 100
//   allocator_design::Free(p);
//   allocator_design::Counters c = allocator_design::ReadCounters();
//   // c.bytes_held: what the allocator has from the kernel right now.

#ifndef ALLOCLAB_LABS_ALLOCATOR_DESIGN_TASK_H_
#define ALLOCLAB_LABS_ALLOCATOR_DESIGN_TASK_H_

#include <cstddef>
#include <cstdint>

namespace allocator_design {

// kMinAlignment
//
// Every block is aligned to at least this many bytes, as glibc's malloc
// aligns on x86-64 (alignof(max_align_t)).
inline constexpr size_t kMinAlignment = 16;

// kOpsPerCentralVisit
//
// Promise 1: in steady state a thread makes at most one central visit per
// this many Allocate() and Free() calls on blocks of up to
// kBytesPerCentralVisit / kOpsPerCentralVisit bytes.
inline constexpr uint64_t kOpsPerCentralVisit = 16;

// kBytesPerCentralVisit
//
// Promise 1, for blocks larger than kBytesPerCentralVisit /
// kOpsPerCentralVisit (8 KiB): a thread may make one central visit per
// this many bytes of the blocks it allocates and frees (the sizes it asked
// for), which allows more visits than kOpsPerCentralVisit does. Memory a
// thread keeps for itself must stay bounded in bytes (promises 3 and 4),
// so it holds only a few blocks of 256 KiB, and some grouping of the
// calls empties or fills it every few calls: no bounded allocator can keep
// 16 calls to a visit at that size. A visit per 128 KiB moved is within
// reach, and small beside writing the 128 KiB.
inline constexpr uint64_t kBytesPerCentralVisit = 128 << 10;

// kDecayNs
//
// Promise 2: memory idle for this long on the page source's clock goes back
// to the kernel (jemalloc's dirty_decay_ms is 10 s; glibc has no decay).
inline constexpr uint64_t kDecayNs = 1'000'000'000;

// kDecayCheckOps
//
// Promise 2: a thread looks at the clock at least once per this many calls,
// so that no timer thread is needed (jemalloc 5.3.0's decay ticks on its
// slower paths, frees among them: a small free that reaches its arena, a
// thread-cache flush, large allocations and reallocations).
inline constexpr uint64_t kDecayCheckOps = 1024;

// kIdleHeldBytes
//
// Promise 2: what may stay held once everything is freed and decayed:
// metadata, and the few spans of the blocks the checking calls use.
inline constexpr uint64_t kIdleHeldBytes = 4 << 20;

// kIdleThreadBytes
//
// Promise 2, for k threads that have not exited and have each made
// kDecayCheckOps calls after the decay: at most kIdleHeldBytes + (k - 1) x
// kIdleThreadBytes stay held in all, for the blocks their own calls use (a
// region or a few spans of each thread's).
inline constexpr uint64_t kIdleThreadBytes = 1 << 20;

// kThreadChurnHeldBytes
//
// Promise 3: what threads that came and went may leave held.
inline constexpr uint64_t kThreadChurnHeldBytes = 16 << 20;

// kThreadChurnLiveBytes
//
// Promise 3: the most bytes of blocks up to 256 KiB live at once, over all
// threads, for which kThreadChurnHeldBytes bounds what exits leave. A
// thread that frees more leaves spans or regions that its frees emptied,
// which a design may keep until they are idle for kDecayNs (the starter
// keeps every freed block for good): that is promise 2's to bound, not the
// exit's.
inline constexpr uint64_t kThreadChurnLiveBytes = 4 << 20;

// kMessagePassingHeldBytes
//
// Promise 4: the bound on what a producer and a consumer hold, when at most
// a few hundred KiB of messages are live at once.
inline constexpr uint64_t kMessagePassingHeldBytes = 16 << 20;

// kOwnLineBytes
//
// Promise 6: the line two running threads' live blocks may not share, on
// every machine (or the machine's own line, when larger): Apple silicon's
// coherency line, the largest of the machines the course runs on.
inline constexpr size_t kOwnLineBytes = 128;

// kMinUtilization
//
// Promise 5: peak live bytes requested / peak bytes held, on every trace.
inline constexpr double kMinUtilization = 0.5;

// kMaxStaticBytes
//
// The rules: the most static state your objects may reserve in .data and
// .bss (and any writable section of your own naming). Static storage is
// memory held that neither the page source nor ReadCounters() ever counts,
// so it is bounded as what an idle allocator may keep (kIdleHeldBytes,
// promise 2): room for fixed state, never for what grows with use. The
// reference's is a page-map root of 1 MiB (2^17 pointers: 47 bits of
// addresses in 64 KiB units, over leaves of 2^14) and a few KiB of lists
// and locks; this allows a root of twice that (2^18 pointers: the same
// bits in 4 KiB pages, over leaves of 2^17), and as much again for tables
// of its size. A pool of span descriptors or leaves sized for any program
// is more. A small arena (a few KiB for "the calls before the allocator is
// set up") is within it, and breaks the rules all the same: its blocks are
// memory the page source never gave, which the Validator tests catch
// another way (a block while the page source refuses).
inline constexpr uint64_t kMaxStaticBytes = 4 << 20;

// kMaxThreadLocalBytes
//
// The rules: the most thread-local state (.tdata, .tbss) your objects may
// reserve, which every thread has, thousands of them at once. It allows a
// thread cache of arrays, e.g. two magazines of 64 pointers for each of 60
// classes (60 KiB), and the reference's, of lists (under 3 KiB), many
// times over; a per-thread arena or table of per-size statistics is more.
inline constexpr uint64_t kMaxThreadLocalBytes = 64 << 10;

// Allocate()
//
// A block of at least `size` bytes (size 0: a unique block of its own),
// aligned to `alignment`, a power of two, or to kMinAlignment when that is
// larger; `alignment` 0 means kMinAlignment too (the shim's malloc(),
// calloc() and realloc() pass 0). When `zero`, its first `size` bytes read as
// zeroes (memory fresh from the kernel already does; recycled memory does not).
// nullptr when it cannot be had: the page source refuses, or the size is so
// large that rounding it up would overflow. Thread-safe.
void* Allocate(size_t size, size_t alignment, bool zero);

// Free()
//
// Gives back a block from Allocate(), from any thread; nullptr is ignored.
// Leaves errno as it found it, which free() promises and does not check:
// the page source keeps errno, so use nothing else that sets it.
void Free(void* block);

// UsableSize()
//
// How many bytes of `block` (from Allocate(), live) the caller may use: at
// least the size asked for.
size_t UsableSize(const void* block);

// ThreadExit()
//
// Called when a thread that armed the hook (thread_exit.h) exits: whatever
// it holds for itself must go back where other threads can use it.
void ThreadExit();

// ForkPrepare(), ForkParent(), ForkChild()
//
// Around fork(), as pthread_atfork(3) calls them: before, in the parent
// after, and in the child after. A child starts with one thread, the one
// that forked: no lock may be left held by a thread it does not have. It
// is a copy of the parent: the blocks live at the fork are live in it, its
// to read and free, and its counters go on from the parent's. Every block
// the child frees goes back as promise 2 says, the blocks of the parent's
// other threads too: the allowance there for a thread still running is not
// for threads the child does not have. What those threads had freed before
// the fork and kept, for their own reuse or to give back later, may stay
// held in the child, which has no copy of them (glibc 2.36's child handler
// rebuilds its arenas' locks and free list and leaves every other thread's
// tcache as it was).
void ForkPrepare();
void ForkParent();
void ForkChild();

// Counters
//
// What the allocator says of itself, summed over all threads.
//   central_visits  times any thread met the others to take or give back
//                   blocks or memory: took a lock (lock.h) or touched a
//                   list other threads write (one that takes two locks at
//                   once may count once; the suite counts the locks too)
//   bytes_held      bytes from the page source now held: mapped, and not
//                   unmapped or released (pages.h); a released range taken
//                   into use again is held again. Metadata, and memory kept
//                   in any cache, are held.
//   bytes_returned  bytes given back so far: unmapped or released
struct Counters {
  uint64_t central_visits = 0;
  uint64_t bytes_held = 0;
  uint64_t bytes_returned = 0;
};

// ReadCounters()
//
// The counters now, read from any thread while others allocate and free:
// every map, unmap and release of a call that has returned is counted (of
// a call still under way, part of its own at most), and bytes_returned and
// central_visits never go down from one read to the next. Exact when no
// other thread is in the allocator.
Counters ReadCounters();

}  // namespace allocator_design

#endif  // ALLOCLAB_LABS_ALLOCATOR_DESIGN_TASK_H_
