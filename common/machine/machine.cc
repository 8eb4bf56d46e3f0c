// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/machine/machine.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/internal/subprocess.h"
#include "common/instruments/effective_clock.h"
#include "common/instruments/faults.h"
#include "common/machine/cpu_facts.h"
#include "common/machine/topology.h"
#include "common/machine/versions.h"
#include "common/machine/vm_facts.h"

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

namespace alloclab {
namespace {

// The value of the first "key : value" line of /proc/cpuinfo whose key is
// `key`, or "".
std::string CpuinfoField(absl::string_view cpuinfo, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(cpuinfo, '\n')) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(line, absl::MaxSplits(':', 1));
    if (absl::StripAsciiWhitespace(kv.first) == key) {
      return std::string(absl::StripAsciiWhitespace(kv.second));
    }
  }
  return "";
}

// x86 names its CPU in "model name"; arm64 kernels often give only the
// implementer and part numbers (or, on older ones, "Hardware").
std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  if (!in) return "unknown CPU (/proc/cpuinfo unreadable)";
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string cpuinfo = buffer.str();
  for (absl::string_view key : {"model name", "Hardware"}) {
    std::string value = CpuinfoField(cpuinfo, key);
    if (!value.empty()) return value;
  }
  const std::string part = CpuinfoField(cpuinfo, "CPU part");
  if (!part.empty()) {
    return absl::StrCat("CPU implementer ",
                        CpuinfoField(cpuinfo, "CPU implementer"), " part ",
                        part);
  }
  return "unknown CPU";
}

std::string Kernel() {
  struct utsname names;
  if (uname(&names) != 0) {
    return absl::StrCat("unknown kernel (uname: ", internal::ErrnoText(errno),
                        ")");
  }
  return absl::StrCat(names.sysname, " ", names.release);
}

std::string Libc() {
#ifdef __GLIBC__
  return absl::StrCat("glibc ", gnu_get_libc_version());
#else
  // musl has no call that reports its version.
  return "not glibc (version unknown)";
#endif
}

std::string Plural(int n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

}  // namespace

MachineInfo DescribeMachine(bool measure_clock,
                            absl::string_view faults_source) {
  MachineInfo machine;
  machine.cpu_model = CpuModel();
  machine.architecture = Architecture();
  absl::StatusOr<Topology> topology = ReadTopology();
  if (topology.ok() && topology->logical_cpus() > 0) {
    machine.logical_cpus = topology->logical_cpus();
    machine.physical_cores = topology->physical_cores();
    machine.smt = topology->smt();
  } else {
    // The CPU count is still known; which of them share a core is not.
    machine.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    machine.topology_note = topology.ok()
                                ? std::string("no online CPU in /sys")
                                : std::string(topology.status().message());
  }
  machine.kernel = Kernel();
  machine.libc = Libc();
  if (measure_clock) {
    absl::StatusOr<double> ghz = MeasureEffectiveGhz();
    if (ghz.ok()) {
      machine.effective_ghz = *ghz;
    } else {
      machine.effective_ghz_note = std::string(ghz.status().message());
    }
  } else {
    // A --quick run: the GHz column of a lab that has one is measured by
    // its own threads, and that is not this line's clock.
    machine.effective_ghz_note =
        "not measured for this line in a quick run; a GHz column, where the "
        "table has one, is its threads' own";
  }
  if (!faults_source.empty()) {
    machine.faults_source = std::string(faults_source);
  } else {
    absl::StatusOr<FaultCounter> faults =
        FaultCounter::Create(FaultScope::kThread);
    machine.faults_source =
        faults.ok()
            ? std::string(faults->source())
            : absl::StrCat("unavailable (", faults.status().message(), ")");
  }
  machine.page_bytes = PageBytes();
  absl::StatusOr<CacheLine> line = ReadCacheLine();
  if (line.ok()) {
    machine.cache_line_bytes = line->bytes;
  } else {
    machine.cache_line_note = std::string(line.status().message());
  }
  machine.zero_page = DescribeZeroPage(ProbeZeroPage());
  machine.thp = DescribeThp(ReadThpSettings());
  double load[3];
  if (getloadavg(load, 3) == 3) machine.load_average.assign(load, load + 3);
  machine.versions = SoftwareVersions();
  return machine;
}

std::string MachineLine(const MachineInfo& machine) {
  std::string cpus =
      Plural(machine.logical_cpus, "logical CPU", "logical CPUs");
  if (machine.physical_cores > 0) {
    absl::StrAppend(&cpus, " on ",
                    Plural(machine.physical_cores, "core", "cores"),
                    machine.smt ? " (SMT)" : " (no SMT)");
  } else {
    absl::StrAppend(
        &cpus, " (cores and SMT unknown: ",
        machine.topology_note.empty() ? "not read" : machine.topology_note,
        ")");
  }
  const std::string clock =
      machine.effective_ghz.has_value()
          ? absl::StrFormat("effective clock %.2f GHz", *machine.effective_ghz)
          : absl::StrCat("effective clock n/a (",
                         machine.effective_ghz_note.empty()
                             ? "not measured"
                             : machine.effective_ghz_note,
                         ")");
  const std::string arch = machine.architecture.empty()
                               ? std::string()
                               : absl::StrCat(" (", machine.architecture, ")");
  std::string line = absl::StrCat(
      "machine: ", machine.cpu_model, arch, ", ", cpus, ", ", machine.kernel,
      ", ", machine.libc, ", ", clock, ", faults from ", machine.faults_source);
  if (machine.page_bytes > 0) {
    absl::StrAppend(&line, ", ",
                    machine.page_bytes % 1024 == 0
                        ? absl::StrCat(machine.page_bytes / 1024, " KiB pages")
                        : absl::StrCat(machine.page_bytes, "-byte pages"));
  }
  if (machine.cache_line_bytes > 0) {
    absl::StrAppend(&line, ", ", machine.cache_line_bytes, "-byte cache lines");
  } else if (!machine.cache_line_note.empty()) {
    absl::StrAppend(&line, ", cache line n/a (", machine.cache_line_note, ")");
  }
  for (const std::string* fact : {&machine.zero_page, &machine.thp}) {
    if (!fact->empty()) absl::StrAppend(&line, ", ", *fact);
  }
  absl::StrAppend(&line, ", load average ",
                  machine.load_average.empty()
                      ? std::string("n/a")
                      : absl::StrFormat("%.2f", machine.load_average[0]));
  std::vector<std::string> versions;
  for (const SoftwareVersion& v : machine.versions) {
    if (v.name != "glibc")
      versions.push_back(absl::StrCat(v.name, " ", v.version));
  }
  if (!versions.empty())
    absl::StrAppend(&line, "; ", absl::StrJoin(versions, ", "));
  return line;
}

}  // namespace alloclab
