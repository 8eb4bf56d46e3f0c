// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/topology.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/subprocess.h"
#include "common/machine/sys_file.h"

namespace alloclab {
namespace {

using internal::ReadSysFile;

// Above any CPU id a Linux kernel can have (NR_CPUS tops out at 8192 on
// x86-64 and 4096 on arm64): a larger number is a typo, and "0-999999999"
// must not become a billion-entry vector.
constexpr int kMaxCpuId = 65535;

// A CPU number: decimal digits only (no sign, no spaces), within range.
bool ParseCpuId(absl::string_view text, int* id) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(text, id) && *id <= kMaxCpuId;
}

// An integer file of topology/. Ids are signed: some arm64 firmware leaves
// physical_package_id at -1.
absl::StatusOr<int> ReadIntFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadSysFile(path);
  if (!text.ok()) return text.status();
  int value = 0;
  if (!absl::SimpleAtoi(*text, &value)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: expected an integer, found \"%s\"", path,
                        absl::CHexEscape(*text)));
  }
  return value;
}

absl::StatusOr<std::vector<int>> ReadCpuListFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadSysFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<int>> cpus = ParseCpuList(*text);
  if (!cpus.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", cpus.status().message()));
  }
  return cpus;
}

// The CPUs of `online` whose cpu<N>/cpu_capacity is below the largest;
// empty where any CPU lacks the file (x86 kernels) or all are equal.
absl::StatusOr<std::vector<int>> SlowerByCapacity(
    const std::string& cpu_dir, const std::vector<int>& online) {
  std::vector<std::pair<int, int>> capacities;  // (cpu, capacity)
  for (int id : online) {
    const std::string file = absl::StrCat(cpu_dir, "/cpu", id, "/cpu_capacity");
    if (access(file.c_str(), F_OK) != 0) return std::vector<int>();
    absl::StatusOr<int> capacity = ReadIntFile(file);
    if (!capacity.ok()) return capacity.status();
    capacities.emplace_back(id, *capacity);
  }
  int largest = 0;
  for (const auto& [id, capacity] : capacities) {
    largest = std::max(largest, capacity);
  }
  std::vector<int> slower;
  for (const auto& [id, capacity] : capacities) {
    if (capacity < largest) slower.push_back(id);
  }
  return slower;
}

}  // namespace

absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view text) {
  const absl::string_view list = absl::StripAsciiWhitespace(text);
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cpu list \"%s\": %s", absl::CHexEscape(text), why));
  };
  if (list.empty()) return bad("empty");
  std::set<int> cpus;
  for (absl::string_view part : absl::StrSplit(list, ',')) {
    if (part.empty()) {
      return bad("an empty entry (two commas in a row, or one at an end)");
    }
    const std::vector<absl::string_view> ends = absl::StrSplit(part, '-');
    int lo = 0;
    int hi = 0;
    if (ends.size() == 1) {
      if (!ParseCpuId(part, &lo)) {
        return bad(absl::StrFormat("\"%s\" is not a CPU number (0 to %d)",
                                   absl::CHexEscape(part), kMaxCpuId));
      }
      hi = lo;
    } else if (ends.size() == 2 && ParseCpuId(ends[0], &lo) &&
               ParseCpuId(ends[1], &hi)) {
      if (hi < lo) {
        return bad(absl::StrFormat("range \"%s\" runs backwards", part));
      }
    } else {
      return bad(absl::StrFormat(
          "\"%s\" is not a CPU number or a range like 4-7 (0 to %d)",
          absl::CHexEscape(part), kMaxCpuId));
    }
    for (int cpu = lo; cpu <= hi; ++cpu) cpus.insert(cpu);
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    absl::StrAppend(&out, sorted[i]);
    if (j > i) absl::StrAppend(&out, "-", sorted[j]);
    i = j + 1;
  }
  return out;
}

int Topology::physical_cores() const {
  std::set<std::pair<int, int>> cores;
  for (const Cpu& cpu : cpus) cores.emplace(cpu.package_id, cpu.core_id);
  return static_cast<int>(cores.size());
}

int Topology::packages() const {
  std::set<int> packages;
  for (const Cpu& cpu : cpus) packages.insert(cpu.package_id);
  return static_cast<int>(packages.size());
}

std::vector<int> Topology::Ids() const {
  std::vector<int> ids;
  for (const Cpu& cpu : cpus) ids.push_back(cpu.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int> Topology::OnePerCore() const {
  // core_id alone repeats across packages: a core is the pair.
  std::set<std::pair<int, int>> seen;
  std::vector<Cpu> by_id = cpus;
  std::sort(by_id.begin(), by_id.end(),
            [](const Cpu& a, const Cpu& b) { return a.id < b.id; });
  std::vector<int> chosen;
  for (const Cpu& cpu : by_id) {
    if (seen.emplace(cpu.package_id, cpu.core_id).second) {
      chosen.push_back(cpu.id);
    }
  }
  return chosen;
}

std::vector<int> Topology::SpreadAcrossCores(
    const std::vector<int>& wanted) const {
  // Each core's CPUs among `wanted`, by id; cores by their lowest such CPU.
  std::vector<Cpu> by_id = cpus;
  std::sort(by_id.begin(), by_id.end(),
            [](const Cpu& a, const Cpu& b) { return a.id < b.id; });
  std::vector<std::pair<int, int>> keys;
  std::vector<std::vector<int>> cores;
  size_t total = 0;
  for (const Cpu& cpu : by_id) {
    if (std::find(wanted.begin(), wanted.end(), cpu.id) == wanted.end()) {
      continue;
    }
    const std::pair<int, int> key(cpu.package_id, cpu.core_id);
    const auto at = std::find(keys.begin(), keys.end(), key);
    if (at == keys.end()) {
      keys.push_back(key);
      cores.push_back({cpu.id});
    } else {
      cores[static_cast<size_t>(at - keys.begin())].push_back(cpu.id);
    }
    ++total;
  }
  std::vector<int> order;
  for (size_t round = 0; order.size() < total; ++round) {
    for (const std::vector<int>& core : cores) {
      if (round < core.size()) order.push_back(core[round]);
    }
  }
  return order;
}

int Topology::CoresOf(const std::vector<int>& ids) const {
  std::set<std::pair<int, int>> cores;
  for (const Cpu& cpu : cpus) {
    if (std::find(ids.begin(), ids.end(), cpu.id) != ids.end()) {
      cores.emplace(cpu.package_id, cpu.core_id);
    }
  }
  return static_cast<int>(cores.size());
}

absl::StatusOr<Topology> ReadTopology(absl::string_view sys_root) {
  const std::string cpu_dir = absl::StrCat(sys_root, "/devices/system/cpu");
  absl::StatusOr<std::vector<int>> online =
      ReadCpuListFile(cpu_dir + "/online");
  if (!online.ok()) return online.status();

  Topology topology;
  for (int id : *online) {
    const std::string dir = absl::StrCat(cpu_dir, "/cpu", id, "/topology/");
    Cpu cpu;
    cpu.id = id;
    absl::StatusOr<int> core = ReadIntFile(dir + "core_id");
    if (!core.ok()) return core.status();
    absl::StatusOr<int> package = ReadIntFile(dir + "physical_package_id");
    if (!package.ok()) return package.status();
    absl::StatusOr<std::vector<int>> siblings =
        ReadCpuListFile(dir + "thread_siblings_list");
    if (!siblings.ok()) return siblings.status();
    if (!std::binary_search(siblings->begin(), siblings->end(), id)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%sthread_siblings_list: \"%s\" does not include CPU %d itself", dir,
          FormatCpuList(*siblings), id));
    }
    if (access((dir + "cluster_id").c_str(), F_OK) == 0) {
      absl::StatusOr<int> cluster = ReadIntFile(dir + "cluster_id");
      if (!cluster.ok()) return cluster.status();
      cpu.cluster_id = *cluster;
    }
    cpu.core_id = *core;
    cpu.package_id = *package;
    cpu.siblings = *std::move(siblings);
    topology.cpus.push_back(std::move(cpu));
  }
  // A hybrid CPU's E-cores; the file is absent on every other machine.
  const std::string atom = absl::StrCat(sys_root, "/devices/cpu_atom/cpus");
  if (access(atom.c_str(), F_OK) == 0) {
    absl::StatusOr<std::vector<int>> efficiency = ReadCpuListFile(atom);
    if (!efficiency.ok()) return efficiency.status();
    topology.efficiency_cpus = *std::move(efficiency);
    return topology;
  }
  // arm64 marks its slower cores by capacity (1024 for the fastest).
  absl::StatusOr<std::vector<int>> slower = SlowerByCapacity(cpu_dir, *online);
  if (!slower.ok()) return slower.status();
  topology.efficiency_cpus = *std::move(slower);
  return topology;
}

absl::Status ValidateCpus(const Topology& topology,
                          const std::vector<int>& cpus) {
  for (int cpu : cpus) {
    const bool online =
        std::any_of(topology.cpus.begin(), topology.cpus.end(),
                    [cpu](const Cpu& c) { return c.id == cpu; });
    if (!online) {
      std::vector<int> ids;
      for (const Cpu& c : topology.cpus) ids.push_back(c.id);
      return absl::InvalidArgumentError(absl::StrFormat(
          "CPU %d is not online (online CPUs: %s)", cpu, FormatCpuList(ids)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> AllowedCpus() {
  // The kernel's mask may be wider than cpu_set_t's 1024 CPUs: grow until
  // it fits (EINVAL means the set was too small).
  for (size_t count = 1024; count <= static_cast<size_t>(kMaxCpuId) + 1;
       count *= 2) {
    cpu_set_t* set = CPU_ALLOC(count);
    if (set == nullptr) {
      return absl::ResourceExhaustedError("AllowedCpus: CPU_ALLOC failed");
    }
    const size_t size = CPU_ALLOC_SIZE(count);
    CPU_ZERO_S(size, set);
    const int rc = sched_getaffinity(0, size, set);
    const int err = errno;
    if (rc == 0) {
      std::vector<int> cpus;
      for (size_t cpu = 0; cpu < count; ++cpu) {
        if (CPU_ISSET_S(cpu, size, set)) cpus.push_back(static_cast<int>(cpu));
      }
      CPU_FREE(set);
      return cpus;
    }
    CPU_FREE(set);
    if (err != EINVAL) {
      return absl::Status(
          absl::ErrnoToStatusCode(err),
          absl::StrCat("sched_getaffinity: ", internal::ErrnoText(err)));
    }
  }
  return absl::InternalError(
      "sched_getaffinity: the affinity mask does not fit any CPU set size");
}

absl::Status PinCurrentThread(int cpu) {
  if (cpu < 0 || cpu > kMaxCpuId) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot pin to CPU %d: not a CPU id (0 to %d)", cpu, kMaxCpuId));
  }
  // A dynamically sized set: cpu_set_t stops at CPU 1023.
  const size_t count = static_cast<size_t>(cpu) + 1;
  cpu_set_t* set = CPU_ALLOC(count);
  if (set == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot pin to CPU %d: CPU_ALLOC failed", cpu));
  }
  const size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set);
  CPU_SET_S(static_cast<size_t>(cpu), size, set);
  // pid 0: the calling thread, not the whole process.
  const int rc = sched_setaffinity(0, size, set);
  const int err = errno;
  CPU_FREE(set);
  if (rc != 0) {
    return absl::Status(
        absl::ErrnoToStatusCode(err),
        absl::StrFormat("sched_setaffinity(CPU %d): %s (is the CPU online "
                        "and in this process's allowed set?)",
                        cpu, internal::ErrnoText(err)));
  }
  return absl::OkStatus();
}

}  // namespace alloclab
