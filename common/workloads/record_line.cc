// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/workloads/record_line.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

namespace alloclab {

void AppendRecord(uint64_t id, std::string& out) {
  absl::StrAppend(&out, "id=", id, " name=user", id % 1000,
                  " score=", id * 7 % 101);
}

std::string FormatRecordNew(uint64_t id) {
  std::string line;
  AppendRecord(id, line);
  return line;
}

}  // namespace alloclab
