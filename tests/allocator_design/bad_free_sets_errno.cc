// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Free() clears errno first, "so that a failure of giving pages
// back shows", as the strtoul(3) idiom teaches. The program that called
// free() between a failed write() and its perror() now prints "Success".
// The reference does the rest. The suite must reject it.

#include <cerrno>

#include "labs/allocator_design/task.h"

// The reference, with its Free() renamed out of the way.
#define Free ReferenceFree
#include "solutions/allocator_design/task.cc"
#undef Free

namespace allocator_design {

void Free(void* block) {
  errno = 0;
  ReferenceFree(block);
}

}  // namespace allocator_design
