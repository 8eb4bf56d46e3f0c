// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: a thread keeps at most one freed block of each class larger
// than kBytesPerCentralVisit / kOpsPerCentralVisit (8 KiB) in its cache
// ("a large block is worth a visit, and a cache of one is cheap in memory").
// A thread that allocates and frees pairs of any size never notices: the
// one block goes out and comes back. But blocks of 16 KiB allocated, and
// then freed, in groups of two or more give back a block on every free
// past the first, a central visit every other call or so where promise 1
// allows one per kBytesPerCentralVisit bytes: one per eight calls. The
// reference does the rest. The suite must reject it.

#include "labs/allocator_design/task.h"

// The reference, with its Free() renamed out of the way.
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Free

namespace allocator_design {

void Free(void* block) {
  constexpr size_t kLarge = kBytesPerCentralVisit / kOpsPerCentralVisit;
  const uintptr_t code = LookupEntry(block) & kClassBits;
  ReferenceFree(block);
  if (code == 0 || kClass.size[code - 1] <= kLarge) return;
  // The mistake: every freed block of the class past the first goes back.
  const int c = static_cast<int>(code - 1);
  ClassCache& cc = tc.classes[c];
  if (cc.list == nullptr || NextOf(cc.list) == nullptr) return;
  void* rest = NextOf(cc.list);
  NextOf(cc.list) = nullptr;
  for (void* b = rest; b != nullptr; b = NextOf(b)) ++cc.room;
  ReturnBlocks(c, rest, nullptr, 0, 0);
}

}  // namespace allocator_design
