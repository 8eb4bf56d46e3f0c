// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab counter_contention: the reference solution. Each thread counts in a
// slot of its own, a node aligned to its own cache line and written only by
// its owner with a relaxed atomic load and store (a plain mov on x86-64, no
// locked instruction: no other core ever needs that line; a plain uint64_t
// would be a data race with the reader). A registry of every node ever made,
// touched only when a thread first counts, when it exits and when the total
// is read, lets TotalAllocations() sum them; a thread's exit folds its count
// into a retired total and zeroes its node under the same lock, so a reader
// sees each count exactly once, before or after the move, and totals never
// go down. The retired node waits in a free list for the next thread.
//
// The nodes live in memory of the registry's own (mapped pages, never
// freed), not in the thread's storage; the thread keeps only a pointer to
// its node. So a node is linked once, ever, and a thread's exit that never
// runs costs one node and nothing else: its count stays in it. And exits do
// go missing. The exit is a pthread key's destructor (a thread_local's
// destructor is armed when the thread first touches it, and glibc runs a
// thread's thread_local destructors before its key destructors: a thread
// whose first count comes in a key destructor would arm one that never
// runs), but a key's destructor is not sure to run either. glibc's
// __nptl_deallocate_tsd (nptl/nptl_deallocate_tsd.c, glibc 2.34 to 2.36,
// this course's) runs the destructors of the keys set in rounds, each round
// in key order, and stops after PTHREAD_DESTRUCTOR_ITERATIONS (4) rounds
// whatever is still set: a thread whose first count comes in the last
// round, from the destructor of a key made after this file's, sets this
// file's key too late for it. A node kept in thread-local storage would
// then stay in the registry after the thread is gone, and the next thread,
// given the same storage (glibc reuses a joined thread's stack, its TLS
// with it), would link the same node again: a list that points to itself.

#include "labs/counter_contention/task.h"

#include <pthread.h>
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>

namespace counter_contention {
namespace {

// One thread's count and its place in the registry, alone in a cache line
// (the alignment pads it to a whole one). Only the owner writes the line:
// the thread that makes a node links it, and the thread that retires it
// pushes it on the free list; the next owner only takes it off.
struct alignas(kCacheLineBytes) Node {
  // Atomic only so that TotalAllocations() may read it from another thread.
  std::atomic<uint64_t> count{0};
  Node* next = nullptr;       // in g_nodes, set once when the node is made
  Node* next_free = nullptr;  // in g_free, while the node is there
};

enum class State : unsigned char { kNew, kLive, kRetired };

// What a thread keeps of its slot: trivially destructible and constant
// initialized, valid at any point of the thread's life; the exit key retires
// the node (the main thread's stays live to the end). kRetired also stands
// for a thread that could get no node (no memory for one): it counts in
// g_unslotted.
struct Hold {
  Node* node = nullptr;
  State state = State::kNew;
};

// The registry. Constant-initialized: it works for the allocations a
// program makes before main, too.
constinit std::mutex g_mutex;
constinit Node* g_nodes = nullptr;  // every node ever made; guarded by g_mutex
constinit Node* g_free = nullptr;   // retired nodes; guarded by g_mutex
constinit uint64_t g_retired = 0;   // guarded by g_mutex
// Where nodes are carved from: the rest of the last mapped chunk.
constinit char* g_chunk_next = nullptr;  // guarded by g_mutex
constinit char* g_chunk_end = nullptr;   // guarded by g_mutex
// What threads count without a node: after theirs was retired (allocations
// made by thread-exit code that runs after this file's destructor), or when
// none could be mapped.
constinit std::atomic<uint64_t> g_unslotted{0};

// The key whose destructor retires an exiting thread's node.
constinit pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;
constinit pthread_key_t g_exit_key;

constinit thread_local Hold t_hold;

// Mapped a chunk at a time, so that a node costs no malloc (CountAllocation()
// runs inside it) and sits on a line of its own.
constexpr size_t kChunkBytes = 64 * 1024;
static_assert(kChunkBytes % sizeof(Node) == 0);

// A node for a new owner, g_mutex held: a retired one if there is one, else
// a new one, linked in g_nodes for good. Null if no memory could be mapped.
Node* TakeNode() {
  if (g_free != nullptr) {
    Node* node = g_free;
    g_free = node->next_free;
    node->next_free = nullptr;
    return node;
  }
  if (g_chunk_next == g_chunk_end) {
    void* chunk = mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (chunk == MAP_FAILED) return nullptr;
    g_chunk_next = static_cast<char*>(chunk);
    g_chunk_end = g_chunk_next + kChunkBytes;
  }
  Node* node = new (g_chunk_next) Node;
  g_chunk_next += sizeof(Node);
  node->next = g_nodes;
  g_nodes = node;
  return node;
}

// Takes the calling thread's live node from it, g_mutex held: zeroes the
// node, puts it in the free list and returns the count it held.
uint64_t Release(Hold& h) {
  Node& node = *h.node;
  const uint64_t count = node.count.load(std::memory_order_relaxed);
  node.count.store(0, std::memory_order_relaxed);
  node.next_free = g_free;
  g_free = &node;
  h.node = nullptr;
  h.state = State::kRetired;
  return count;
}

// The exit key's destructor, on the exiting thread: moves its node's count
// into the retired total and frees the node, in one step under the lock.
void Retire(void* arg) {
  Hold& h = t_hold;
  if (h.state != State::kLive || h.node != arg) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_retired += Release(h);
}

void CreateExitKey() {
  // Fails only in a process that already holds PTHREAD_KEYS_MAX keys: its
  // threads' nodes would never be freed, so stop rather than leak one per
  // thread.
  if (pthread_key_create(&g_exit_key, &Retire) != 0) std::abort();
}

// Has Retire() called for the node when its thread exits. Neither call
// allocates for the first 32 keys of a process (glibc keeps them in the
// thread's descriptor); an allocation past those finds the node live.
void ArmExit(Node* node) {
  pthread_once(&g_exit_key_once, &CreateExitKey);
  pthread_setspecific(g_exit_key, node);
}

// Gives the calling thread a node, and its node a place in the thread's
// exit.
void Register(Hold& h) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    h.node = TakeNode();
    h.state = h.node != nullptr ? State::kLive : State::kRetired;
  }
  if (h.node != nullptr) ArmExit(h.node);
}

// One more in the owner's node.
void Add(Node& node) {
  node.count.store(node.count.load(std::memory_order_relaxed) + 1,
                   std::memory_order_relaxed);
}

}  // namespace

void CountAllocation() {
  Hold& h = t_hold;
  if (h.state == State::kLive) [[likely]] {
    Add(*h.node);
    return;
  }
  if (h.state == State::kNew) Register(h);
  if (h.state == State::kLive) {
    Add(*h.node);
    return;
  }
  g_unslotted.fetch_add(1, std::memory_order_relaxed);
}

uint64_t TotalAllocations() {
  uint64_t total = g_unslotted.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_mutex);
  total += g_retired;
  for (const Node* node = g_nodes; node != nullptr; node = node->next) {
    total += node->count.load(std::memory_order_relaxed);
  }
  return total;
}

const void* ThisThreadSlot() {
  Hold& h = t_hold;
  if (h.state == State::kNew) Register(h);
  if (h.state == State::kLive) return &h.node->count;
  return &g_unslotted;
}

}  // namespace counter_contention
