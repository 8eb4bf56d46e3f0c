// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: base_pages.h
// -----------------------------------------------------------------------------
//
// Asking the kernel for base pages, so that one page fault is one page. A
// lab that counts faults to count pages ("256 KiB takes 64 faults") is only
// right where a fault maps one base page. Transparent huge pages break that
// in two ways: THP "always" maps 2 MiB on one fault, and on kernels 6.8+
// multi-size THP (mTHP) can map 16 KiB to 1 MiB folios of ordinary
// mappings (vm_facts.h reports which sizes are enabled). Two ways to opt
// out, neither of which changes a machine setting:
//
//   - per mapping, `AdviseBasePages()`: madvise(MADV_NOHUGEPAGE), for memory
//     the lab maps itself;
//   - per process, `DisableThpForProcess()`: prctl(PR_SET_THP_DISABLE),
//     which also covers memory the lab does not map itself (glibc's malloc
//     mmaps a 256 KiB block, or grows its heap, on the lab's behalf). The
//     setting is inherited by fork and kept across execve, so fresh
//     processes (fresh_process.h) have it too. Link
//     `//common/machine:base_pages_for_process` to set it before main() runs.
//
// A process that wants huge pages on purpose (first_call's hugepage row)
// must not use the per-process switch: it overrides MADV_HUGEPAGE.
//
// Example:
//
//   void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
//                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
//   absl::Status s = alloclab::AdviseBasePages(p, bytes);

#ifndef ALLOCLAB_COMMON_MACHINE_BASE_PAGES_H_
#define ALLOCLAB_COMMON_MACHINE_BASE_PAGES_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace alloclab {

// AdviseBasePages()
//
// madvise(MADV_NOHUGEPAGE) on [addr, addr + bytes), `addr` page-aligned.
// OK on a kernel built without THP (EINVAL while /sys has no
// transparent_hugepage): base pages are all there is. Otherwise the error
// names errno.
absl::Status AdviseBasePages(void* addr, size_t bytes);

// DisableThpForProcess()
//
// prctl(PR_SET_THP_DISABLE, 1): no THP of any size for this process and
// its children from now on (mappings made before keep the folios they
// have). The error names errno (EINVAL: a kernel before 3.15, which has no
// mTHP either).
absl::Status DisableThpForProcess();

// ThpDisabledForProcess()
//
// prctl(PR_GET_THP_DISABLE): whether the switch above is on.
absl::StatusOr<bool> ThpDisabledForProcess();

// BasePagesForProcessStatus()
//
// What `//common/machine:base_pages_for_process` got when it switched THP off
// before main(); FailedPrecondition when that target is not linked in.
absl::Status BasePagesForProcessStatus();

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_BASE_PAGES_H_
