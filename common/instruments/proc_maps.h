// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// -----------------------------------------------------------------------------
// File: proc_maps.h
// -----------------------------------------------------------------------------
//
// The mappings of this process, as the kernel lists them in /proc/self/maps:
// one line a mapping, its address range first and its name (a file's path,
// "[heap]", "[stack]", or nothing for anonymous memory) last. Lab
// first_call's suite sums the bytes mapped outside the brk heap; lab
// allocator_design's experiment finds where the brk heap starts.
//
// The reader streams the file through one fixed buffer and allocates
// nothing of its own beyond stdio's: a program that measures its own
// mappings can read them without adding one.
//
// Example:
//
//   int64_t bytes = 0;
//   absl::Status read = alloclab::ForEachMapping(
//       [&](const alloclab::Mapping& m) {
//         if (m.name != "[heap]") bytes += m.end - m.start;
//       });
//   // read.ok(): `bytes` counts every mapping but the brk heap.

#ifndef ALLOCLAB_COMMON_INSTRUMENTS_PROC_MAPS_H_
#define ALLOCLAB_COMMON_INSTRUMENTS_PROC_MAPS_H_

#include <cstdint>
#include <optional>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace alloclab {

// Mapping
//
// One line of /proc/self/maps: the range [start, end) and the name, empty
// for anonymous memory. `name` points into the reader's buffer: it is valid
// only during the callback.
struct Mapping {
  uintptr_t start = 0;
  uintptr_t end = 0;
  absl::string_view name;
};

// ParseMapping()
//
// One line of the file ("start-end perms offset dev inode   name", the
// trailing newline allowed), or nullopt where it does not start with a
// hexadecimal range.
std::optional<Mapping> ParseMapping(absl::string_view line);

// ForEachMapping()
//
// Calls `fn` for each mapping of this process, in the file's order (by
// address). A line too long for the reader's buffer (a path of more than
// 4000 bytes) is passed over. The error carries errno's code when the file
// cannot be opened.
absl::Status ForEachMapping(absl::FunctionRef<void(const Mapping&)> fn);

}  // namespace alloclab

#endif  // ALLOCLAB_COMMON_INSTRUMENTS_PROC_MAPS_H_
