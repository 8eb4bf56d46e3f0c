// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "tools/doctor.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "common/harness/child_run.h"
#include "common/harness/internal/launch.h"
#include "common/instruments/faults.h"
#include "common/instruments/syscalls.h"
#include "common/machine/allocator_probe.h"
#include "common/machine/cpu_facts.h"
#include "common/machine/topology.h"
#include "common/machine/vm_facts.h"

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

namespace alloclab {
namespace {

// The allocators lab jemalloc_adoption compares with glibc's.
constexpr const char* kPreloadedAllocators[] = {"jemalloc", "tcmalloc",
                                                "mimalloc"};

// Opens a counter of `type`/`config` on this thread, user mode only (what
// an unprivileged process may ask for at perf_event_paranoid=2), and closes
// it: the answer is whether the kernel allows it.
absl::Status TryPerfCounter(uint32_t type, uint64_t config,
                            std::optional<int> paranoid) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = type;
  attr.config = config;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) {
    const int err = errno;
    return absl::ErrnoToStatus(err, PerfErrorMeaning(err, paranoid));
  }
  close(static_cast<int>(fd));
  return absl::OkStatus();
}

// The first line of `path`, whitespace stripped; nullopt when unreadable.
std::optional<std::string> ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return std::string(absl::StripAsciiWhitespace(line));
}

bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

// The runtime a /proc/1/cgroup line names: Docker's "/docker/<id>" or
// "docker-<id>.scope", Podman's "libpod-", Kubernetes' "kubepods", LXC's
// "/lxc/". Empty when none (with cgroup namespaces, as Docker makes on
// cgroup v2, every line is "0::/" and names nothing).
std::string RuntimeInCgroup(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StrContains(line, "kubepods")) return "kubernetes";
    if (absl::StrContains(line, "libpod")) return "podman";
    if (absl::StrContains(line, "/docker") ||
        absl::StrContains(line, "docker-")) {
      return "docker";
    }
    if (absl::StrContains(line, "/lxc")) return "lxc";
  }
  return "";
}

// Where /etc/hostname is mounted from, when it is a mount of its own (a
// runtime's file, bind-mounted into the container: Docker's
// .../containers/<id>/hostname); "" when it is not. mountinfo's fifth field
// is the mount point, its fourth the path within the source filesystem.
std::string HostnameMountSource(const std::string& mountinfo) {
  std::ifstream in(mountinfo);
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> fields =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (fields.size() > 4 && fields[4] == "/etc/hostname") return fields[3];
  }
  return "";
}

// The CPU quota in CPUs: cgroup v2's cpu.max ("150000 100000"; "max" is
// none), else cgroup v1's cpu.cfs_quota_us over cpu.cfs_period_us (-1 is
// none).
std::optional<double> ReadCpuQuota(const std::string& cgroup) {
  if (std::optional<std::string> max = ReadLine(cgroup + "/cpu.max")) {
    const std::vector<std::string> parts =
        absl::StrSplit(*max, ' ', absl::SkipEmpty());
    double quota = 0, period = 0;
    if (parts.size() == 2 && absl::SimpleAtod(parts[0], &quota) &&
        absl::SimpleAtod(parts[1], &period) && period > 0) {
      return quota / period;
    }
    return std::nullopt;  // "max": no quota
  }
  for (const char* dir : {"/cpu", "/cpu,cpuacct"}) {
    const std::string base = cgroup + dir;
    absl::StatusOr<int> quota = ReadIntFile(base + "/cpu.cfs_quota_us");
    absl::StatusOr<int> period = ReadIntFile(base + "/cpu.cfs_period_us");
    if (quota.ok() && period.ok()) {
      if (*quota <= 0 || *period <= 0) return std::nullopt;
      return static_cast<double>(*quota) / *period;
    }
  }
  return std::nullopt;
}

// The CPUs the cgroup's cpuset allows: v2's cpuset.cpus.effective, else
// v1's cpuset/cpuset.effective_cpus or cpuset/cpuset.cpus.
std::string ReadCpuset(const std::string& cgroup) {
  for (const char* file :
       {"/cpuset.cpus.effective", "/cpuset/cpuset.effective_cpus",
        "/cpuset/cpuset.cpus"}) {
    std::optional<std::string> cpus = ReadLine(cgroup + file);
    if (cpus.has_value() && !cpus->empty()) return *cpus;
  }
  return "";
}

// Whether perf_event_open's status is a refusal (EPERM, EACCES), not a
// missing counter or a probe not run.
bool IsRefusal(const absl::Status& status) {
  return status.code() == absl::StatusCode::kPermissionDenied;
}

}  // namespace

absl::StatusOr<int> ReadIntFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::string text;
  std::getline(in, text);
  int value = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " holds '", text, "', not a number"));
  }
  return value;
}

std::string PerfErrorMeaning(int err, std::optional<int> paranoid) {
  const std::string setting =
      paranoid.has_value() ? absl::StrCat("perf_event_paranoid=", *paranoid)
                           : std::string("perf_event_paranoid unreadable");
  switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      return "this machine exposes no such counter (a VM without a virtual "
             "PMU, or a CPU the kernel does not know)";
    case EACCES:
    case EPERM:
      return absl::StrCat("refused (", setting,
                          "; a seccomp filter or container can refuse it too)");
    case ENOSYS:
      return "this kernel has no perf_event_open";
    default:
      return absl::StrCat("refused: ", std::strerror(err), " (", setting, ")");
  }
}

PerfFacts ProbePerf(const ProbeRoots& roots) {
  PerfFacts perf;
  absl::StatusOr<int> paranoid = ReadIntFile(
      absl::StrCat(roots.proc_root, "/sys/kernel/perf_event_paranoid"));
  if (paranoid.ok()) perf.paranoid = *paranoid;
  if (!roots.live_probes) {
    perf.software = absl::UnknownError("not probed");
    perf.hardware = absl::UnknownError("not probed");
    return perf;
  }
  // The page-fault counter the labs use, through the labs' own instrument.
  absl::StatusOr<FaultCounter> faults =
      FaultCounter::Create(FaultScope::kThread, FaultSource::kPerfEvent);
  perf.software = faults.status();
  perf.hardware = TryPerfCounter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
                                 perf.paranoid);
  return perf;
}

PtraceFacts ProbePtrace(const ProbeRoots& roots) {
  PtraceFacts facts;
  absl::StatusOr<int> scope = ReadIntFile(
      absl::StrCat(roots.proc_root, "/sys/kernel/yama/ptrace_scope"));
  if (scope.ok()) facts.yama_scope = *scope;
  if (!roots.live_probes) {
    facts.traced_child = absl::UnknownError("not probed");
    return facts;
  }
  // The syscall counter itself, on a forked child that does nothing.
  absl::StatusOr<SyscallCounts> counts = CountSyscallsInChild([] {});
  facts.traced_child = counts.status();
  return facts;
}

PreloadFacts ProbePreload(const ProbeRoots& roots,
                          const std::vector<AllocatorFact>& allocators) {
  PreloadFacts facts;
  for (const AllocatorFact& a : allocators) {
    if (!a.library.ok()) continue;
    facts.allocator = a.name;
    facts.library = *a.library;
    break;
  }
  if (facts.library.empty()) {
    facts.served = absl::FailedPreconditionError(
        "no allocator library is installed to try a preload with");
    return facts;
  }
  if (!roots.live_probes) return facts;  // "not probed"
  std::string program = roots.which_malloc;
  if (program.empty()) {
    absl::StatusOr<std::string> found =
        FindRunfile("common/machine/which_malloc");
    if (!found.ok()) {
      facts.served = found.status();
      return facts;
    }
    program = *found;
  }
  ChildCommand command;
  command.argv = {program};
  command.env = {{"LD_PRELOAD", facts.library}};
  absl::StatusOr<ChildRun> run = RunChild(command);
  if (!run.ok()) {
    facts.served = run.status();
    return facts;
  }
  absl::StatusOr<MallocProvider> provider = ParseProviderLine(run->stdout_text);
  if (!provider.ok()) {
    facts.served = provider.status();
  } else if (provider->allocator == facts.allocator) {
    facts.served = absl::OkStatus();
  } else {
    // ld.so's own words say why, where it gave any ("cannot be
    // preloaded ... ignored").
    std::string loader = std::string(absl::StripAsciiWhitespace(
        run->stderr_text.substr(0, run->stderr_text.find('\n'))));
    facts.served = absl::FailedPreconditionError(absl::StrCat(
        "with LD_PRELOAD=", facts.library, " malloc was served by ",
        provider->allocator, " (", provider->path, ")",
        loader.empty() ? "" : absl::StrCat(": ", loader)));
  }
  return facts;
}

ContainerFacts ProbeContainer(const ProbeRoots& roots) {
  ContainerFacts facts;
  const std::string hostname_source =
      HostnameMountSource(absl::StrCat(roots.proc_root, "/self/mountinfo"));
  if (FileExists(absl::StrCat(roots.fs_root, "/.dockerenv"))) {
    facts.runtime = "docker";
    facts.evidence = "/.dockerenv";
  } else if (FileExists(absl::StrCat(roots.fs_root, "/run/.containerenv"))) {
    facts.runtime = "podman";
    facts.evidence = "/run/.containerenv";
  } else if (std::string runtime =
                 RuntimeInCgroup(absl::StrCat(roots.proc_root, "/1/cgroup"));
             !runtime.empty()) {
    facts.runtime = runtime;
    facts.evidence = absl::StrCat("/proc/1/cgroup names ", runtime);
  } else if (!hostname_source.empty()) {
    facts.runtime = "a container";
    facts.evidence =
        absl::StrCat("/etc/hostname is mounted from ", hostname_source);
  }
  std::ifstream status(absl::StrCat(roots.proc_root, "/self/status"));
  std::string line;
  while (std::getline(status, line)) {
    int mode = 0;
    absl::string_view rest = line;
    if (absl::ConsumePrefix(&rest, "Seccomp:") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(rest), &mode)) {
      facts.seccomp = mode;
      break;
    }
  }
  const std::string cgroup = absl::StrCat(roots.sys_root, "/fs/cgroup");
  facts.cpuset = ReadCpuset(cgroup);
  facts.cpu_quota = ReadCpuQuota(cgroup);
  return facts;
}

std::vector<std::string> ContainerAdvice(const MachineFacts& facts) {
  std::vector<std::string> advice;
  const ContainerFacts& c = facts.container;
  if (c.runtime.empty()) return advice;
  const bool filtered = c.seccomp.value_or(0) == 2;
  if (IsRefusal(facts.perf.software)) {
    // Not a loss for the labs: FaultSource::kAuto reads getrusage, which
    // the kernel counts where it counts the perf events (mm_account_fault).
    advice.push_back(absl::StrCat(
        "perf_event_open is refused",
        filtered ? " (a seccomp filter: Docker's default profile refuses it)"
                 : "",
        ": the labs count each thread's page faults with getrusage instead, "
        "the same count; no flag is needed"));
  }
  if (!facts.ptrace.traced_child.ok() &&
      facts.ptrace.traced_child.code() != absl::StatusCode::kUnknown) {
    advice.push_back(
        "ptrace is refused: every lab that counts system calls (under "
        "ptrace) shows them as n/a; add --cap-add=SYS_PTRACE");
  }
  if (c.cpu_quota.has_value()) {
    advice.push_back(absl::StrCat(
        "a CPU quota of ", FormatCpus(*c.cpu_quota),
        " CPUs (docker run --cpus): time on any CPU, not a core of its own, "
        "so threads meant to run at once are throttled by turns; drop --cpus "
        "and give whole CPUs with --cpuset-cpus (e.g. --cpuset-cpus=0-1)"));
  }
  if (facts.topology.ok() && !c.cpuset.empty()) {
    absl::StatusOr<std::vector<int>> allowed = ParseCpuList(c.cpuset);
    if (allowed.ok() &&
        static_cast<int>(allowed->size()) < facts.topology->logical_cpus()) {
      advice.push_back(absl::StrFormat(
          "its cpuset allows CPUs %s of this machine's %d: the labs pin "
          "threads to those only (--cpus=LIST must name them); "
          "--cpuset-cpus chooses them",
          c.cpuset, facts.topology->logical_cpus()));
    }
  }
  if (advice.empty()) {
    advice.push_back("nothing the labs use is restricted here");
  }
  return advice;
}

CpuFacts ProbeCpu(const ProbeRoots& roots) {
  CpuFacts cpu;
  cpu.architecture = Architecture();
  cpu.page_bytes = ReadKernelPageBytes(roots.proc_root);
  // A /proc without smaps (some sandboxes): this process's own page size
  // answers for this machine, never for a fixture.
  if (!cpu.page_bytes.ok() && roots.live_probes) cpu.page_bytes = PageBytes();
  cpu.cache_line = ReadCacheLine(roots.sys_root);
  cpu.clocksource = ReadClocksource(roots.sys_root);
  return cpu;
}

std::string RenderCpuFacts(const CpuFacts& cpu) {
  std::string page;
  if (!cpu.page_bytes.ok()) {
    page =
        absl::StrCat("page size n/a (", cpu.page_bytes.status().message(), ")");
  } else if (*cpu.page_bytes % 1024 == 0) {
    page = absl::StrCat(*cpu.page_bytes / 1024, " KiB pages");
  } else {
    page = absl::StrCat(*cpu.page_bytes, "-byte pages");
  }
  std::string line = DescribeCacheLine(cpu.cache_line);
  if (cpu.cache_line.ok())
    absl::StrAppend(&line, " (", cpu.cache_line->source, ")");
  std::string clock;
  if (!cpu.clocksource.ok()) {
    clock = absl::StrCat("clock source n/a (",
                         cpu.clocksource.status().message(), ")");
  } else {
    // arm64 counts time with its generic timer: there is no TSC to read.
    clock =
        absl::StrCat("clock source ", *cpu.clocksource,
                     *cpu.clocksource == "arch_sys_counter" ? " (no TSC)" : "");
  }
  return absl::StrCat("machine:      ", cpu.architecture, ", ", page, ", ",
                      line, ", ", clock);
}

MachineFacts GatherFacts(const ProbeRoots& roots) {
  MachineFacts facts;
  facts.topology = ReadTopology(roots.sys_root);
  facts.cpu = ProbeCpu(roots);
  facts.perf = ProbePerf(roots);
  facts.ptrace = ProbePtrace(roots);

  if (roots.live_probes) {
    const ZeroPageProbe zero_page = ProbeZeroPage();
    facts.zero_page = DescribeZeroPage(zero_page);
    if (zero_page.answer != ZeroPage::kUnknown && !zero_page.reason.empty()) {
      absl::StrAppend(&facts.zero_page, " (", zero_page.reason, ")");
    }
    if (zero_page.answer != ZeroPage::kUnknown) {
      facts.zero_page_shared = zero_page.answer == ZeroPage::kShared;
    }
  } else {
    facts.zero_page = "zero page not probed";
  }
  const absl::StatusOr<ThpSettings> thp = ReadThpSettings(roots.sys_root);
  facts.thp = DescribeThp(thp);
  if (thp.ok()) {
    for (const ThpSize& size : thp->MultiSize()) {
      facts.mthp_sizes.push_back(absl::StrCat(size.bytes / 1024, " KiB"));
    }
  }

#ifdef __GLIBC__
  facts.libc = absl::StrCat("glibc ", gnu_get_libc_version());
#else
  facts.libc = "not glibc";
#endif

  std::string path = roots.path;
  if (path.empty()) {
    const char* env = std::getenv("PATH");
    path = env != nullptr ? env : "";
  }
  facts.musl_gcc = internal::FindOnPath("musl-gcc", path);

  const LibrarySearch search = roots.library_search.has_value()
                                   ? *roots.library_search
                                   : DefaultLibrarySearch();
  for (const char* name : kPreloadedAllocators) {
    AllocatorFact fact{name, absl::UnknownError("not probed")};
    absl::StatusOr<LocatedAllocator> located = LocateAllocator(name, search);
    if (located.ok()) {
      fact.library = located->path;
    } else {
      fact.library = located.status();
    }
    facts.allocators.push_back(std::move(fact));
  }
  facts.preload = ProbePreload(roots, facts.allocators);
  facts.container = ProbeContainer(roots);
  // Runs musl's loader and reads dpkg's status: this machine's, not a
  // fixture's.
  if (roots.live_probes) facts.versions = SoftwareVersions();
  return facts;
}

std::vector<LabVerdict> JudgeLabs(const MachineFacts& facts) {
  std::vector<LabVerdict> labs;
  for (const LabRule& rule : LabRules()) {
    LabVerdict v;
    if (rule.judge == nullptr) {
      v = {"", Verdict::kNo,
           absl::StrCat("the lab has no verdict: labs/", rule.lab,
                        "/doctor_rule.h is missing"),
           "docs/adding_a_lab.md, section 8"};
    } else {
      v = rule.judge(facts);
    }
    v.lab = rule.lab;
    labs.push_back(std::move(v));
  }
  return labs;
}

// RenderPerf()
//
// The fact sheet's perf_event line: what perf_event_paranoid allows, and
// whether the software and hardware counters open.
std::string RenderPerf(const PerfFacts& perf) {
  const std::string paranoid =
      perf.paranoid.has_value()
          ? absl::StrCat("perf_event_paranoid=", *perf.paranoid)
          : "perf_event_paranoid unreadable";
  return absl::StrCat(
      "perf_event:   ", paranoid, "; software page-fault counter ",
      perf.software.ok() ? "yes"
                         : absl::StrCat("no (", perf.software.message(), ")"),
      "; hardware cycle counter ",
      perf.hardware.ok() ? "yes"
                         : absl::StrCat("no (", perf.hardware.message(), ")"));
}

// RenderContainer()
//
// The fact sheet's container lines: the runtime and what it allows, and
// the advice for it; one line when no container is found.
std::vector<std::string> RenderContainer(const MachineFacts& f) {
  std::vector<std::string> lines;
  if (f.container.runtime.empty()) {
    lines.push_back(
        "container:    none found (no /.dockerenv, /run/.containerenv, "
        "runtime in /proc/1/cgroup or mount on /etc/hostname)");
  } else {
    const ContainerFacts& c = f.container;
    lines.push_back(absl::StrCat(
        "container:    ", c.runtime, " (", c.evidence, "); seccomp ",
        !c.seccomp.has_value() ? "unknown"
        : *c.seccomp == 2      ? "filter on"
        : *c.seccomp == 1      ? "strict"
                               : "off",
        "; cpuset ", c.cpuset.empty() ? "unknown" : c.cpuset, "; ",
        c.cpu_quota.has_value()
            ? absl::StrCat("CPU quota ", FormatCpus(*c.cpu_quota), " CPUs")
            : "no CPU quota"));
    for (const std::string& advice : ContainerAdvice(f)) {
      lines.push_back(absl::StrCat("              ", advice));
    }
  }
  return lines;
}

// RenderVersions()
//
// The fact sheet's versions line and each version's note; none when no
// version was read.
std::vector<std::string> RenderVersions(
    const std::vector<SoftwareVersion>& versions_read) {
  std::vector<std::string> lines;
  if (!versions_read.empty()) {
    std::vector<std::string> versions;
    for (const SoftwareVersion& v : versions_read) {
      versions.push_back(absl::StrCat(v.name, " ", v.version));
    }
    lines.push_back(
        absl::StrCat("versions:     ", absl::StrJoin(versions, ", ")));
    for (const std::string& note : VersionNotes(versions_read)) {
      lines.push_back(absl::StrCat("              ", note));
    }
  }
  return lines;
}

std::string RenderFacts(const MachineFacts& f) {
  std::vector<std::string> lines;
  if (f.topology.ok()) {
    lines.push_back(absl::StrFormat(
        "CPUs:         %d logical on %d cores, %s", f.topology->logical_cpus(),
        f.topology->physical_cores(), f.topology->smt() ? "SMT on" : "no SMT"));
  } else {
    lines.push_back(
        absl::StrCat("CPUs:         unknown: ", f.topology.status().message()));
  }
  lines.push_back(RenderCpuFacts(f.cpu));
  lines.push_back(RenderPerf(f.perf));
  lines.push_back(absl::StrCat(
      "ptrace:       ",
      f.ptrace.traced_child.ok()
          ? "allowed (traced a forked child's system calls)"
          : absl::StrCat("refused: ", f.ptrace.traced_child.message()),
      f.ptrace.yama_scope.has_value()
          ? absl::StrCat("; Yama ptrace_scope=", *f.ptrace.yama_scope)
          : std::string("; no Yama")));
  lines.push_back(absl::StrCat("zero page:    ", f.zero_page));
  lines.push_back(absl::StrCat("THP:          ", f.thp));
  lines.push_back(absl::StrCat("libc:         ", f.libc));
  lines.push_back(absl::StrCat(
      "musl-gcc:     ",
      f.musl_gcc.ok()
          ? *f.musl_gcc
          : absl::StrCat("missing: ", f.musl_gcc.status().message())));
  for (const AllocatorFact& a : f.allocators) {
    lines.push_back(absl::StrFormat(
        "%-13s %s", absl::StrCat(a.name, ":"),
        a.library.ok()
            ? *a.library
            : absl::StrCat("missing: ", a.library.status().message())));
  }
  lines.push_back(absl::StrCat(
      "LD_PRELOAD:   ",
      f.preload.served.ok()
          ? absl::StrCat("takes (", f.preload.allocator,
                         " served a child's malloc)")
          : absl::StrCat(f.preload.library.empty() ? "not tried: " : "",
                         f.preload.served.message())));
  for (std::string& line : RenderContainer(f)) lines.push_back(std::move(line));
  for (std::string& line : RenderVersions(f.versions)) {
    lines.push_back(std::move(line));
  }
  return absl::StrCat(absl::StrJoin(lines, "\n"), "\n");
}

std::string RenderVerdicts(const std::vector<LabVerdict>& verdicts) {
  std::string out;
  for (size_t i = 0; i < verdicts.size(); ++i) {
    const LabVerdict& v = verdicts[i];
    const char* word = v.verdict == Verdict::kYes      ? "yes"
                       : v.verdict == Verdict::kPartly ? "partly"
                                                       : "no";
    absl::StrAppendFormat(&out, "%zu %-19s %-7s %s\n", i + 1, v.lab, word,
                          v.why);
    if (!v.fix.empty()) absl::StrAppend(&out, "    fix: ", v.fix, "\n");
  }
  return out;
}

}  // namespace alloclab
