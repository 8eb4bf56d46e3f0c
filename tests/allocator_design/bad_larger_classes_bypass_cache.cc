// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: the classes above 4 KiB have no thread cache, "they are rare,
// and a cache of them would hold megabytes a thread": each of their blocks
// is taken from and given back to its class's central list, a lock and a
// central visit on every call. Promise 1 is for every size a thread has
// used before, to 256 KiB; the suite's fast-path sizes stopped at 3000
// bytes. Here the thread's cache of such a class is given back after every
// Free(), which is what no cache at all costs. The reference does the
// rest. The suite must reject it.

#include <cstdint>

#include "labs/allocator_design/task.h"

// The reference, with its Free() renamed out of the way.
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Free

namespace allocator_design {

void Free(void* block) {
  const uintptr_t code = LookupEntry(block) & kClassBits;
  ReferenceFree(block);
  if (code == 0 || kClass.size[code - 1] <= 4096) return;
  // The mistake: straight back to the central list.
  const int c = static_cast<int>(code - 1);
  ClassCache& cc = tc.classes[c];
  if (cc.list == nullptr && cc.run_left == 0) return;
  ReturnBlocks(c, cc.list, cc.run, cc.run_left, 0);
  cc.list = nullptr;
  cc.room = cc.limit;
  cc.run = nullptr;
  cc.run_left = 0;
}

}  // namespace allocator_design
