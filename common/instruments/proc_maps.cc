// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// proc_maps.h's reader: stdio with one buffer on the stack, so that reading
// the list of mappings adds no mapping to it.

#include "common/instruments/proc_maps.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"

namespace alloclab {
namespace {

// Parses a hexadecimal number at the front of `text`, consuming it.
std::optional<uintptr_t> ConsumeHex(absl::string_view& text) {
  uintptr_t value = 0;
  size_t i = 0;
  for (; i < text.size() && absl::ascii_isxdigit(text[i]); ++i) {
    const char c = absl::ascii_tolower(text[i]);
    value =
        value * 16 + static_cast<uintptr_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  if (i == 0) return std::nullopt;
  text.remove_prefix(i);
  return value;
}

// Drops the field at the front of `text` and the blanks after it.
void SkipField(absl::string_view& text) {
  while (!text.empty() && text.front() != ' ') text.remove_prefix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
}

}  // namespace

std::optional<Mapping> ParseMapping(absl::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  Mapping m;
  const std::optional<uintptr_t> start = ConsumeHex(line);
  if (!start.has_value() || line.empty() || line.front() != '-') {
    return std::nullopt;
  }
  line.remove_prefix(1);
  const std::optional<uintptr_t> end = ConsumeHex(line);
  if (!end.has_value()) return std::nullopt;
  m.start = *start;
  m.end = *end;
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  for (int field = 0; field < 4; ++field) SkipField(line);  // perms ... inode
  m.name = line;
  return m;
}

absl::Status ForEachMapping(absl::FunctionRef<void(const Mapping&)> fn) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) {
    return absl::ErrnoToStatus(errno, "opening /proc/self/maps");
  }
  char line[4096];
  bool skipping = false;  // in the rest of a line longer than `line`
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    const size_t length = std::strlen(line);
    const bool ends_line = length > 0 && line[length - 1] == '\n';
    if (skipping) {
      skipping = !ends_line;
      continue;
    }
    if (!ends_line && length == sizeof(line) - 1) {
      skipping = true;  // too long: passed over
      continue;
    }
    const std::optional<Mapping> m =
        ParseMapping(absl::string_view(line, length));
    if (m.has_value()) fn(*m);
  }
  std::fclose(maps);
  return absl::OkStatus();
}

}  // namespace alloclab
