// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/smt_siblings/placement_check.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/machine/topology.h"

namespace smt_siblings {
namespace {

bool Contains(const std::vector<int>& list, int cpu) {
  return std::find(list.begin(), list.end(), cpu) != list.end();
}

// The online CPU `id`, or nullptr.
const alloclab::Cpu* FindCpu(const alloclab::Topology& topology, int id) {
  for (const alloclab::Cpu& cpu : topology.cpus) {
    if (cpu.id == id) return &cpu;
  }
  return nullptr;
}

}  // namespace

std::optional<Misplacement> CheckPlacement(const alloclab::Topology& topology,
                                           const std::vector<int>& usable,
                                           absl::string_view row,
                                           const std::vector<int>& cpus) {
  if (cpus.empty()) {
    return Misplacement{"no CPU",
                        absl::StrCat(row,
                                     " is misplaced: your task.cc chose "
                                     "no CPU for it")};
  }
  const std::string chose =
      absl::StrCat(row, " is misplaced: your task.cc chose ",
                   cpus.front() == cpus.back() ? "CPU " : "CPUs ",
                   alloclab::FormatCpuList(cpus), ", but ");
  for (int cpu : cpus) {
    if (!Contains(usable, cpu) || FindCpu(topology, cpu) == nullptr) {
      return Misplacement{"not allowed",
                          absl::StrCat(chose, "CPU ", cpu,
                                       " is not one of the CPUs it may use (",
                                       alloclab::FormatCpuList(usable), ")")};
    }
  }
  if (cpus.size() != 2) return std::nullopt;
  // Siblings by /sys, and a core by (package, core_id) too: a core_id
  // alone repeats on every socket.
  const alloclab::Cpu& a = *FindCpu(topology, cpus[0]);
  const alloclab::Cpu& b = *FindCpu(topology, cpus[1]);
  const bool siblings = a.id != b.id && Contains(a.siblings, b.id);
  const bool one_core =
      a.id == b.id || siblings ||
      (a.package_id == b.package_id && a.core_id == b.core_id);
  if (row == "smt_siblings" && !siblings) {
    return Misplacement{
        "not siblings",
        absl::StrCat(chose, "/sys lists CPU ", a.id, "'s thread siblings as ",
                     alloclab::FormatCpuList(a.siblings),
                     ": its two threads ran on two cores, as in "
                     "distinct_cores, and shared none")};
  }
  if (row == "distinct_cores" && one_core) {
    return Misplacement{
        "one core",
        absl::StrCat(chose, "they are on one core (package ", a.package_id,
                     ", core ", a.core_id, "): the row's threads shared it")};
  }
  return std::nullopt;
}

}  // namespace smt_siblings
