// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// counts_malloc: whether //common/instruments:alloc_counter counts the C
// allocation functions in this build, as a condition for tools/xfail.py
// (lab_tests' known_bad_only_if): a known-bad that allocates with malloc can
// only be caught where malloc is counted. Prints the counter's note on one line
// and exits 0 where malloc is counted, 1 where it is not (ThreadSanitizer).

#include <iostream>

#include "common/instruments/alloc_counter.h"

int main() {
  std::cout << alloclab::MallocCountingNote() << std::endl;
  return alloclab::CountsMallocFamily() ? 0 : 1;
}
