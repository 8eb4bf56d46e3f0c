// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: sys_file.h
// -----------------------------------------------------------------------------
//
// Reading one small file of /sys or /proc, for the instruments that describe
// the machine (topology.h, vm_facts.h). Internal to common/.
//
// Example:
//
//   absl::StatusOr<std::string> mode = alloclab::internal::ReadSysFile(
//       "/sys/kernel/mm/transparent_hugepage/enabled");
//   // *mode == "always [madvise] never"

#ifndef ALLOCLAB_COMMON_MACHINE_SYS_FILE_H_
#define ALLOCLAB_COMMON_MACHINE_SYS_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace alloclab {
namespace internal {

// ReadSysFile()
//
// The file's contents, surrounding whitespace (the kernel's newline)
// removed. The error carries errno's code (NotFound for ENOENT) and names
// the path.
absl::StatusOr<std::string> ReadSysFile(const std::string& path);

}  // namespace internal
}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_MACHINE_SYS_FILE_H_
