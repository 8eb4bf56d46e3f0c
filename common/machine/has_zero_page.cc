// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// has_zero_page: the zero-page probe (vm_facts.h) as a condition for
// tools/xfail.py (lab_tests' known_bad_only_if). Prints the verdict and its
// reason on one line and exits 0 where a read fault maps the shared zero
// page, 1 where it allocates a page, 2 where the probe cannot tell.

#include <iostream>

#include "common/machine/vm_facts.h"

int main() {
  const alloclab::ZeroPageProbe probe = alloclab::ProbeZeroPage();
  std::cout << alloclab::ZeroPageName(probe.answer) << ": " << probe.reason
            << std::endl;
  switch (probe.answer) {
    case alloclab::ZeroPage::kShared:
      return 0;
    case alloclab::ZeroPage::kNone:
      return 1;
    case alloclab::ZeroPage::kUnknown:
      break;
  }
  return 2;
}
