// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: "a seqlock: exits are rare, so an exiting thread makes the
// sequence count odd, folds its slot into the retired total, clears and
// unlists the slot, and makes it even again; a reader waits for an even
// count and sums the retired total and the listed slots, taking no lock".
// The exit is right: while it folds, the count is odd, and a reader that
// reads an even count before and after sees no half-done fold. But this
// reader checks only before. A reader that has read the retired total when
// a thread exits whole, and reads the slots after, finds the count in
// neither place: the total goes down (promise 2). The window is in the
// reader, not in the exit, so the suite's stepped exit (every reading made
// while the exiting thread stands still, hence whole between two of its
// instructions) never sees it; its stepped read (the reader stopped at
// every instruction of its call while a thread exits) does, on every run.

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>

#include "labs/counter_contention/task.h"

namespace counter_contention {
namespace {

// A thread's slot, alone in its cache line. Slots are never freed (a reader
// may be walking them): a thread that exits gives its slot back, and a new
// thread takes a free one before it makes another.
struct alignas(kCacheLineBytes) Node {
  std::atomic<uint64_t> count{0};
  std::atomic<bool> live{false};   // counted by readers
  std::atomic<bool> taken{false};  // owned by a thread
  Node* next = nullptr;            // set before the node is listed
};

constinit std::atomic<Node*> g_nodes{nullptr};  // pushed to, never popped
constinit std::atomic<uint64_t> g_seq{0};       // odd while an exit folds
constinit std::atomic<uint64_t> g_retired{0};
// What threads count after their slot was given back.
constinit std::atomic<uint64_t> g_after_exit{0};
// Exits fold one at a time, so that the count is odd exactly while one
// folds.
constinit std::mutex g_exit_mutex;

// A new node, from mmap rather than malloc: this runs inside malloc.
Node* NewNode() {
  void* p = mmap(nullptr, sizeof(Node), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  Node* node = new (p) Node;
  node->taken.store(true, std::memory_order_relaxed);
  Node* head = g_nodes.load(std::memory_order_relaxed);
  do {
    node->next = head;
  } while (!g_nodes.compare_exchange_weak(head, node, std::memory_order_release,
                                          std::memory_order_relaxed));
  return node;
}

// A thread's hold on its node; the destructor folds and gives it back.
struct Hold {
  Node* node = nullptr;
  bool gone = false;
  ~Hold() {
    gone = true;
    if (node == nullptr) return;
    std::lock_guard<std::mutex> lock(g_exit_mutex);
    g_seq.fetch_add(1, std::memory_order_acq_rel);  // odd
    g_retired.fetch_add(node->count.load(std::memory_order_relaxed),
                        std::memory_order_relaxed);
    node->count.store(0, std::memory_order_relaxed);
    node->live.store(false, std::memory_order_relaxed);
    g_seq.fetch_add(1, std::memory_order_release);  // even
    node->taken.store(false, std::memory_order_release);
    node = nullptr;
  }
};

thread_local Hold t_hold;

// The calling thread's node, taken on first use; nullptr once it exits.
Node* Mine() {
  Hold& h = t_hold;
  if (h.node == nullptr && !h.gone) {
    for (Node* n = g_nodes.load(std::memory_order_acquire); n != nullptr;
         n = n->next) {
      bool expected = false;
      if (n->taken.compare_exchange_strong(expected, true,
                                           std::memory_order_acquire)) {
        h.node = n;
        break;
      }
    }
    if (h.node == nullptr) h.node = NewNode();
    if (h.node != nullptr) h.node->live.store(true, std::memory_order_release);
  }
  return h.node;
}

}  // namespace

void CountAllocation() {
  Node* node = Mine();
  if (node == nullptr) {
    g_after_exit.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  node->count.store(node->count.load(std::memory_order_relaxed) + 1,
                    std::memory_order_relaxed);
}

uint64_t TotalAllocations() {
  while (g_seq.load(std::memory_order_acquire) % 2 != 0) {
  }
  uint64_t total = g_after_exit.load(std::memory_order_relaxed) +
                   g_retired.load(std::memory_order_relaxed);
  for (const Node* n = g_nodes.load(std::memory_order_acquire); n != nullptr;
       n = n->next) {
    if (n->live.load(std::memory_order_relaxed)) {
      total += n->count.load(std::memory_order_relaxed);
    }
  }
  // The mistake: g_seq is not read again. Had an exit begun since the read
  // above, the sum would be thrown away and made again.
  return total;
}

const void* ThisThreadSlot() {
  Node* node = Mine();
  return node == nullptr ? static_cast<const void*>(&g_after_exit)
                         : &node->count;
}

}  // namespace counter_contention
