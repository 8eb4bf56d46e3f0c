// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/cpu_facts.h"

#include <dirent.h>
#include <errno.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/harness/internal/subprocess.h"
#include "common/machine/sys_file.h"
#include "common/machine/topology.h"

namespace alloclab {
namespace {

using internal::ReadSysFile;

// The index<N> directories of one CPU's cache/ (empty when it has none).
std::vector<std::string> CacheIndexDirs(const std::string& cache_dir) {
  std::vector<std::string> dirs;
  DIR* d = opendir(cache_dir.c_str());
  if (d == nullptr) return dirs;
  while (const dirent* entry = readdir(d)) {
    if (absl::StartsWith(entry->d_name, "index")) {
      dirs.push_back(absl::StrCat(cache_dir, "/", entry->d_name));
    }
  }
  closedir(d);
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

bool PlausibleLine(size_t bytes) {
  return bytes >= 16 && bytes <= 1024 && (bytes & (bytes - 1)) == 0;
}

}  // namespace

std::string Architecture() {
  struct utsname names;
  if (uname(&names) != 0) {
    return absl::StrCat("unknown (uname: ", internal::ErrnoText(errno), ")");
  }
  return names.machine;
}

absl::StatusOr<CacheLine> ReadCacheLine(absl::string_view sys_root) {
  const std::string cpu_dir = absl::StrCat(sys_root, "/devices/system/cpu");
  absl::StatusOr<std::string> online_text = ReadSysFile(cpu_dir + "/online");
  if (!online_text.ok()) return online_text.status();
  absl::StatusOr<std::vector<int>> online = ParseCpuList(*online_text);
  if (!online.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(cpu_dir, "/online: ", online.status().message()));
  }
  CacheLine line;
  for (int cpu : *online) {
    for (const std::string& index :
         CacheIndexDirs(absl::StrCat(cpu_dir, "/cpu", cpu, "/cache"))) {
      // An instruction cache's line is no line two threads' data share.
      absl::StatusOr<std::string> type = ReadSysFile(index + "/type");
      if (type.ok() && *type == "Instruction") continue;
      const std::string file = index + "/coherency_line_size";
      absl::StatusOr<std::string> text = ReadSysFile(file);
      // Some firmware leaves the size out of a level; the others tell.
      if (!text.ok()) continue;
      size_t bytes = 0;
      if (!absl::SimpleAtoi(*text, &bytes) || !PlausibleLine(bytes)) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ": \"", *text,
                         "\" is not a line size (a power of two, 16 to 1024)"));
      }
      line.bytes = std::max(line.bytes, bytes);
      line.source = "sysfs";
    }
  }
  if (line.bytes > 0) return line;
  const std::string where =
      absl::StrCat("no coherency_line_size under ", cpu_dir, "/cpu*/cache/");
  if (sys_root != "/sys") return absl::NotFoundError(where);
  const long bytes = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  if (bytes > 0 && PlausibleLine(static_cast<size_t>(bytes))) {
    line.bytes = static_cast<size_t>(bytes);
    line.source = "sysconf";
    return line;
  }
  return absl::NotFoundError(absl::StrCat(
      where, ", and sysconf(_SC_LEVEL1_DCACHE_LINESIZE) says ", bytes));
}

std::string DescribeCacheLine(const absl::StatusOr<CacheLine>& line) {
  if (!line.ok()) {
    return absl::StrCat("cache line n/a (", line.status().message(), ")");
  }
  return absl::StrCat(line->bytes, "-byte cache lines");
}

absl::StatusOr<size_t> ReadKernelPageBytes(absl::string_view proc_root) {
  const std::string file = absl::StrCat(proc_root, "/self/smaps");
  absl::StatusOr<std::string> smaps = ReadSysFile(file);
  if (!smaps.ok()) return smaps.status();
  for (absl::string_view row : absl::StrSplit(*smaps, '\n')) {
    if (!absl::ConsumePrefix(&row, "KernelPageSize:")) continue;
    row = absl::StripAsciiWhitespace(row);
    size_t kib = 0;
    if (!absl::ConsumeSuffix(&row, "kB") ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(row), &kib) || kib == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ": KernelPageSize is not \"<N> kB\""));
    }
    return kib * 1024;
  }
  return absl::NotFoundError(absl::StrCat(file, ": no KernelPageSize line"));
}

absl::StatusOr<std::string> ReadClocksource(absl::string_view sys_root) {
  return ReadSysFile(absl::StrCat(
      sys_root,
      "/devices/system/clocksource/clocksource0/current_clocksource"));
}

}  // namespace alloclab
