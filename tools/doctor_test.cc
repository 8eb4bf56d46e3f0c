// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The doctor's probes on fixture trees (tools/testdata/doctor: a one-core
// SMT machine with mTHP sizes, perf_event_paranoid=3, Yama ptrace_scope=2,
// only jemalloc installed, musl-gcc on a PATH of its own; and
// tools/testdata/doctor_container: three containers' marks, seccomp modes,
// cpusets and CPU quotas) and in forked children whose seccomp filter
// refuses ptrace or perf_event_open, as a container would; and the
// verdicts on machines this one is not.

#include "tools/doctor.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/instruments/refuse_syscall.h"
#include "common/machine/allocator_probe.h"
#include "common/machine/cpu_facts.h"
#include "common/machine/topology.h"
#include "common/machine/topology_fixtures.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

namespace alloclab {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kFixture[] = "tools/testdata/doctor";
constexpr char kContainers[] = "tools/testdata/doctor_container";
// The course's labs, one a line, in course order: labs.txt, which the root
// BUILD writes from labs.bzl's LABS, the one list.
constexpr char kLabsTxt[] = "labs.txt";

ProbeRoots FixtureRoots() {
  ProbeRoots roots;
  roots.fs_root = kFixture;
  roots.sys_root = absl::StrCat(kFixture, "/sys");
  roots.proc_root = absl::StrCat(kFixture, "/proc");
  roots.path = absl::StrCat("/nonexistent:", kFixture, "/bin");
  roots.library_search = LibrarySearch{"", {absl::StrCat(kFixture, "/lib")}};
  roots.live_probes = false;
  return roots;
}

// Makes system call `nr` fail with `err` in this process from now on, as a
// container's seccomp profile does (common/instruments/refuse_syscall.h). For
// forked children only.
void RefuseSyscall(long nr, int err) {
  if (!alloclab::RefuseSyscall({.nr = nr, .error = err}).ok()) _exit(99);
}

TEST(ReadIntFileTest, ReadsANumberAndSaysWhatIsWrong) {
  EXPECT_EQ(*ReadIntFile(
                absl::StrCat(kFixture, "/proc/sys/kernel/perf_event_paranoid")),
            3);
  EXPECT_EQ(ReadIntFile("/nonexistent/file").status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<int> garbled = ReadIntFile(
      absl::StrCat(kFixture, "/sys/kernel/mm/transparent_hugepage/enabled"));
  EXPECT_THAT(garbled.status().message(), HasSubstr("not a number"));
}

TEST(PerfErrorMeaningTest, TellsAMissingCounterFromARefusal) {
  EXPECT_THAT(PerfErrorMeaning(ENOENT, 2),
              HasSubstr("exposes no such counter"));
  EXPECT_THAT(PerfErrorMeaning(EACCES, 3),
              AllOf(HasSubstr("refused"), HasSubstr("perf_event_paranoid=3")));
  EXPECT_THAT(PerfErrorMeaning(EPERM, std::nullopt),
              HasSubstr("perf_event_paranoid unreadable"));
}

TEST(GatherFactsTest, ReadsEveryFileProbeFromTheFixtureTree) {
  const MachineFacts facts = GatherFacts(FixtureRoots());
  ASSERT_TRUE(facts.topology.ok()) << facts.topology.status();
  EXPECT_EQ(facts.topology->logical_cpus(), 2);
  EXPECT_EQ(facts.topology->physical_cores(), 1);
  EXPECT_EQ(facts.perf.paranoid, 3);
  EXPECT_EQ(facts.ptrace.yama_scope, 2);
  EXPECT_THAT(facts.thp, HasSubstr("THP madvise"));
  EXPECT_EQ(facts.mthp_sizes, std::vector<std::string>{"16 KiB"});
  EXPECT_EQ(*facts.musl_gcc, absl::StrCat(kFixture, "/bin/musl-gcc"));
  ASSERT_EQ(facts.allocators.size(), 3u);
  EXPECT_EQ(*facts.allocators[0].library,
            absl::StrCat(kFixture, "/lib/libjemalloc.so.2"));
  // The missing ones name their Debian package.
  EXPECT_THAT(facts.allocators[1].library.status().message(),
              HasSubstr("apt-get install"));
  EXPECT_THAT(facts.allocators[2].library.status().message(),
              HasSubstr("apt-get install"));

  const std::string text = RenderFacts(facts);
  EXPECT_THAT(text, HasSubstr("CPUs:         2 logical on 1 cores, SMT on\n"));
  EXPECT_THAT(text, HasSubstr("perf_event:   perf_event_paranoid=3;"));
  EXPECT_THAT(text, HasSubstr("; Yama ptrace_scope=2\n"));
  EXPECT_THAT(text, HasSubstr("tcmalloc:     missing: "));
  // No container's mark in the tree: none is claimed.
  EXPECT_EQ(facts.container.runtime, "");
  EXPECT_THAT(text, HasSubstr("container:    none found"));
}

// The roots of container fixture `name`: its /, /proc and /sys.
ProbeRoots ContainerRoots(const std::string& name) {
  ProbeRoots roots;
  roots.fs_root = absl::StrCat(kContainers, "/", name);
  roots.proc_root = absl::StrCat(roots.fs_root, "/proc");
  roots.sys_root = absl::StrCat(roots.fs_root, "/sys");
  roots.live_probes = false;
  return roots;
}

TEST(ProbeContainerTest, DockerOnCgroupV2WithAQuota) {
  const ContainerFacts c = ProbeContainer(ContainerRoots("docker_v2"));
  EXPECT_EQ(c.runtime, "docker");
  EXPECT_EQ(c.evidence, "/.dockerenv");
  EXPECT_EQ(c.seccomp, 2);
  EXPECT_EQ(c.cpuset, "0");
  EXPECT_EQ(c.cpu_quota, 1.5);  // cpu.max: 150000 of every 100000 us
}

TEST(ProbeContainerTest, KubernetesOnCgroupV1ByItsCgroupNames) {
  const ContainerFacts c = ProbeContainer(ContainerRoots("kubepods_v1"));
  EXPECT_EQ(c.runtime, "kubernetes");
  EXPECT_EQ(c.evidence, "/proc/1/cgroup names kubernetes");
  EXPECT_EQ(c.seccomp, 0);
  EXPECT_EQ(c.cpuset, "0-3");
  EXPECT_EQ(c.cpu_quota, 0.5);  // cfs_quota_us 50000 of cfs_period_us 100000
}

TEST(ProbeContainerTest, AMountedHostnameIsAContainerAndMaxIsNoQuota) {
  const ContainerFacts c = ProbeContainer(ContainerRoots("hostname_mount"));
  EXPECT_EQ(c.runtime, "a container");
  EXPECT_THAT(c.evidence,
              HasSubstr("/etc/hostname is mounted from /var/lib/containers/"
                        "storage/overlay-containers/7c1d/userdata/hostname"));
  EXPECT_EQ(c.seccomp, 2);
  EXPECT_EQ(c.cpuset, "");
  EXPECT_FALSE(c.cpu_quota.has_value());
}

TEST(GatherFactsTest, MissingFilesAreSaidNotGuessed) {
  ProbeRoots roots = FixtureRoots();
  roots.sys_root = "/nonexistent";
  roots.proc_root = "/nonexistent";
  roots.path = "/nonexistent";
  const MachineFacts facts = GatherFacts(roots);
  EXPECT_FALSE(facts.topology.ok());
  EXPECT_FALSE(facts.perf.paranoid.has_value());
  EXPECT_FALSE(facts.ptrace.yama_scope.has_value());
  const std::string text = RenderFacts(facts);
  EXPECT_THAT(text, HasSubstr("CPUs:         unknown: "));
  EXPECT_THAT(text, HasSubstr("perf_event_paranoid unreadable"));
  EXPECT_THAT(text, HasSubstr("; no Yama"));
  EXPECT_THAT(text,
              HasSubstr("musl-gcc:     missing: musl-gcc is not on PATH"));
  EXPECT_THAT(text, HasSubstr(", page size n/a (cannot read /nonexistent/"));
  EXPECT_THAT(text, HasSubstr(", cache line n/a (cannot read /nonexistent/"));
  EXPECT_THAT(text, HasSubstr(", clock source n/a (cannot read /nonexistent/"));
}

// The arm64 machines learners have, from their fixtures: the doctor names
// the architecture (this binary's), the page size, the cache line and the
// clock, and the M2's efficiency cluster under Asahi Linux.
TEST(GatherFactsTest, Arm64MachinesNameTheirPagesLinesAndClock) {
  struct Shape {
    const char* machine;
    const char* sizes;
  };
  for (const Shape& shape :
       {Shape{"asahi_m2",
              ", 16 KiB pages, 128-byte cache lines (sysfs), clock source "
              "arch_sys_counter (no TSC)"},
        Shape{"graviton3_vm",
              ", 64 KiB pages, 64-byte cache lines (sysfs), clock source "
              "arch_sys_counter (no TSC)"}}) {
    SCOPED_TRACE(shape.machine);
    ProbeRoots roots = FixtureRoots();
    roots.sys_root = TopologyFixtureRoot(shape.machine);
    roots.proc_root = TopologyFixtureProcRoot(shape.machine);
    const MachineFacts facts = GatherFacts(roots);
    EXPECT_THAT(RenderFacts(facts),
                HasSubstr(absl::StrCat("\nmachine:      ", Architecture(),
                                       shape.sizes, "\n")));
  }
}

TEST(ProbeTest, CpuFactsOfThisMachine) {
  const CpuFacts cpu = ProbeCpu(ProbeRoots());
  EXPECT_EQ(cpu.architecture, Architecture());
  ASSERT_TRUE(cpu.page_bytes.ok()) << cpu.page_bytes.status();
  EXPECT_EQ(*cpu.page_bytes, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_THAT(
      RenderCpuFacts(cpu),
      HasSubstr(absl::StrCat("machine:      ", cpu.architecture, ", ")));
}

TEST(ProbeTest, LiveProbesAnswerOnThisMachine) {
  ProbeRoots roots;
  const MachineFacts facts = GatherFacts(roots);
  // Whatever this machine allows, each probe answered, with a reason when no.
  EXPECT_NE(facts.perf.software.code(), absl::StatusCode::kUnknown);
  EXPECT_NE(facts.perf.hardware.code(), absl::StatusCode::kUnknown);
  EXPECT_NE(facts.ptrace.traced_child.code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(facts.zero_page, Not(HasSubstr("not probed")));
  EXPECT_EQ(facts.zero_page_shared.has_value(),
            facts.zero_page.find("unknown") == std::string::npos);
#ifdef __GLIBC__
  EXPECT_EQ(facts.libc, absl::StrCat("glibc ", gnu_get_libc_version()));
#endif
  EXPECT_NE(facts.preload.served.code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(
      RenderVerdicts(JudgeLabs(facts)),
      AllOf(HasSubstr("7 jemalloc_adoption"), HasSubstr("8 allocator_design")));
}

TEST(ProbeTest, AnInstalledAllocatorPreloadedServesMalloc) {
  if (kSanitizerServesMalloc != nullptr) GTEST_SKIP() << kSanitizerServesMalloc;
  const MachineFacts facts = GatherFacts(ProbeRoots());
  if (facts.preload.library.empty()) {
    // No allocator installed: the probe says so instead of guessing.
    EXPECT_THAT(facts.preload.served.message(),
                HasSubstr("no allocator library"));
    return;
  }
  EXPECT_TRUE(facts.preload.served.ok())
      << facts.preload.allocator << " at " << facts.preload.library << ": "
      << facts.preload.served;
  EXPECT_THAT(RenderFacts(facts),
              HasSubstr(absl::StrCat("LD_PRELOAD:   takes (",
                                     facts.preload.allocator)));
}

TEST(ProbeTest, APreloadTheLoaderIgnoresIsReportedWithItsWords) {
  // ld.so cannot open the file: it warns and the program runs on its own
  // malloc, which is exactly the silent failure the probe exists for.
  const PreloadFacts preload = ProbePreload(
      ProbeRoots(),
      {{"jemalloc", std::string("/nonexistent/libjemalloc.so.2")}});
  EXPECT_EQ(preload.allocator, "jemalloc");
  EXPECT_EQ(preload.served.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(preload.served.message(),
              AllOf(HasSubstr("with LD_PRELOAD=/nonexistent/libjemalloc.so.2 "
                              "malloc was served by "),
                    HasSubstr("cannot be preloaded")));
}

TEST(ProbeTest, NoLibraryToPreloadIsSaidNotGuessed) {
  const PreloadFacts preload =
      ProbePreload(ProbeRoots(), {{"jemalloc", absl::NotFoundError("gone")}});
  EXPECT_TRUE(preload.library.empty());
  EXPECT_THAT(preload.served.message(), HasSubstr("no allocator library"));
}

TEST(ProbeDeathTest, PtraceRefusedInAChildIsReportedWithItsReason) {
  EXPECT_EXIT(
      {
        RefuseSyscall(SYS_ptrace, EPERM);
        const PtraceFacts facts = ProbePtrace(ProbeRoots());
        if (facts.traced_child.ok()) _exit(1);
        MachineFacts machine;
        machine.libc = "glibc 2.36";
        machine.ptrace = facts;
        const std::string text = RenderVerdicts(JudgeLabs(machine));
        if (text.find("2 mmap_threshold      partly") == std::string::npos)
          _exit(2);
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ProbeDeathTest, PerfRefusedInAChildIsReportedAsARefusal) {
  EXPECT_EXIT(
      {
        RefuseSyscall(SYS_perf_event_open, EACCES);
        const PerfFacts facts = ProbePerf(ProbeRoots());
        if (facts.software.ok() || facts.hardware.ok()) _exit(1);
        if (std::string(facts.hardware.message()).find("refused") ==
            std::string::npos)
          _exit(2);
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ProbeDeathTest, NoCounterInAChildIsReportedAsMissing) {
  EXPECT_EXIT(
      {
        RefuseSyscall(SYS_perf_event_open, ENOENT);
        const PerfFacts facts = ProbePerf(ProbeRoots());
        if (facts.hardware.ok()) _exit(1);
        if (std::string(facts.hardware.message()).find("no such counter") ==
            std::string::npos) {
          _exit(2);
        }
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A machine like the reference machine's teaching lab: facts set by hand.
MachineFacts HandMadeFacts(int cpus, int cores) {
  MachineFacts facts;
  Topology topology;
  for (int i = 0; i < cpus; ++i) {
    Cpu cpu;
    cpu.id = i;
    cpu.core_id = i % cores;
    topology.cpus.push_back(cpu);
  }
  facts.topology = topology;
  facts.libc = "glibc 2.36";
  facts.zero_page = "no zero page";
  facts.zero_page_shared = false;
  facts.musl_gcc = std::string("/usr/bin/musl-gcc");
  for (const char* name : {"jemalloc", "tcmalloc", "mimalloc"}) {
    facts.allocators.push_back(
        {name, absl::StrCat("/usr/lib/lib", name, ".so")});
  }
  facts.preload = {"jemalloc", "/usr/lib/libjemalloc.so", absl::OkStatus()};
  return facts;
}

const LabVerdict& Find(const std::vector<LabVerdict>& verdicts,
                       const std::string& lab) {
  for (const LabVerdict& v : verdicts) {
    if (v.lab == lab) return v;
  }
  static const LabVerdict* none =
      new LabVerdict{"missing", Verdict::kNo, "", ""};
  return *none;
}

// The labs of labs.bzl, in course order.
std::vector<std::string> CourseLabs() {
  std::vector<std::string> labs;
  std::ifstream in(kLabsTxt);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) labs.push_back(line);
  }
  return labs;
}

TEST(JudgeLabsTest, OneVerdictPerLabInCourseOrder) {
  const std::vector<std::string> labs = CourseLabs();
  ASSERT_FALSE(labs.empty()) << "no lab in " << kLabsTxt;
  std::vector<std::string> judged;
  for (const LabVerdict& v : JudgeLabs(HandMadeFacts(2, 2))) {
    judged.push_back(v.lab);
  }
  EXPECT_EQ(judged, labs);
}

// Every lab of labs.bzl has its verdict in its own package: a lab without
// labs/<lab>/doctor_rule.h fails here, by its name.
TEST(JudgeLabsTest, EveryLabHasItsOwnRule) {
  const std::vector<std::string> labs = CourseLabs();
  ASSERT_FALSE(labs.empty()) << "no lab in " << kLabsTxt;
  for (const LabRule& rule : LabRules()) {
    EXPECT_NE(rule.judge, nullptr)
        << "lab " << rule.lab << " has no verdict for the doctor: write labs/"
        << rule.lab << "/doctor_rule.h and doctor_rule.cc, its " << rule.lab
        << "::DoctorVerdict() (docs/adding_a_lab.md, section 8)";
  }
}

TEST(JudgeLabsTest, AllocatorDesignNeedsAPreloadThatTakes) {
  MachineFacts facts = HandMadeFacts(2, 2);
  LabVerdict v = Find(JudgeLabs(facts), "allocator_design");
  EXPECT_EQ(v.verdict, Verdict::kYes);
  EXPECT_THAT(v.why, AllOf(HasSubstr("a preload takes here (jemalloc"),
                           HasSubstr("ptrace counts system calls")));
  EXPECT_EQ(v.fix, "");
  // The loader ignored the preload: the learner's row cannot be verified.
  facts.preload.served = absl::FailedPreconditionError(
      "with LD_PRELOAD=/usr/lib/libjemalloc.so malloc was served by glibc");
  v = Find(JudgeLabs(facts), "allocator_design");
  EXPECT_EQ(v.verdict, Verdict::kNo);
  EXPECT_THAT(v.why, AllOf(HasSubstr("served by glibc"),
                           HasSubstr("refused as unverified")));
  EXPECT_THAT(v.fix, HasSubstr("LD_PRELOAD"));
  // Never probed (no live probes): not a verdict against the machine.
  facts.preload.served = absl::UnknownError("not probed");
  EXPECT_EQ(Find(JudgeLabs(facts), "allocator_design").verdict, Verdict::kYes);
}

TEST(JudgeLabsTest, AllocatorDesignNeedsWhatJemallocAdoptionNeedsAndPtrace) {
  MachineFacts facts = HandMadeFacts(2, 2);
  facts.allocators[2].library =
      absl::NotFoundError("mimalloc: apt-get install libmimalloc-dev");
  LabVerdict v = Find(JudgeLabs(facts), "allocator_design");
  EXPECT_EQ(v.verdict, Verdict::kPartly);
  EXPECT_THAT(v.why, HasSubstr("yours is still compared with glibc"));
  EXPECT_THAT(v.fix, HasSubstr("libmimalloc-dev"));

  facts = HandMadeFacts(2, 2);
  facts.ptrace.traced_child =
      absl::FailedPreconditionError("ptrace: Operation not permitted");
  facts.ptrace.yama_scope = 3;
  v = Find(JudgeLabs(facts), "allocator_design");
  EXPECT_EQ(v.verdict, Verdict::kPartly);
  EXPECT_THAT(v.why, HasSubstr("system calls per operation are n/a"));
  EXPECT_THAT(v.fix, HasSubstr("ptrace_scope is 3"));
}

TEST(JudgeLabsTest, SmtDecidesTheSiblingsLab) {
  EXPECT_EQ(Find(JudgeLabs(HandMadeFacts(8, 4)), "smt_siblings").verdict,
            Verdict::kYes);
  const LabVerdict no_smt =
      Find(JudgeLabs(HandMadeFacts(2, 2)), "smt_siblings");
  EXPECT_EQ(no_smt.verdict, Verdict::kPartly);
  EXPECT_THAT(no_smt.why, HasSubstr("no SMT"));
  EXPECT_THAT(no_smt.why, HasSubstr("distinct_cores"))
      << "two cores without SMT show the distinct-cores row too";
  EXPECT_THAT(no_smt.fix, HasSubstr("SMT"));
}

TEST(JudgeLabsTest, CoresDecideTheCounterLab) {
  EXPECT_EQ(Find(JudgeLabs(HandMadeFacts(2, 2)), "counter_contention").verdict,
            Verdict::kYes);
  EXPECT_EQ(Find(JudgeLabs(HandMadeFacts(2, 1)), "counter_contention").verdict,
            Verdict::kPartly);
  EXPECT_EQ(Find(JudgeLabs(HandMadeFacts(1, 1)), "counter_contention").verdict,
            Verdict::kNo);
}

// The machines learners have, from the topology fixtures: which rows of
// counter_contention and smt_siblings each one shows, and what the doctor
// says there.
MachineFacts FixtureMachine(const std::string& machine) {
  MachineFacts facts = HandMadeFacts(2, 2);
  facts.topology = ReadTopology(TopologyFixtureRoot(machine));
  EXPECT_TRUE(facts.topology.ok())
      << machine << ": " << facts.topology.status();
  return facts;
}

TEST(JudgeLabsTest, VmWithoutSmtShowsDistinctCoresAndSameCpu) {
  const LabVerdict v = Find(JudgeLabs(FixtureMachine("vm_2c")), "smt_siblings");
  EXPECT_EQ(v.verdict, Verdict::kPartly);
  EXPECT_THAT(v.why, HasSubstr("rows one_thread, distinct_cores, same_cpu"));
  EXPECT_THAT(v.why, HasSubstr("no smt_siblings row"));
  EXPECT_EQ(
      Find(JudgeLabs(FixtureMachine("vm_2c")), "counter_contention").verdict,
      Verdict::kYes);
}

// The usual 2-vCPU cloud VM is one core's two hardware threads.
TEST(JudgeLabsTest, CloudVmOfTwoVcpusIsOneCoreWithTwoThreads) {
  const MachineFacts facts = FixtureMachine("vm_1c2t");
  const LabVerdict siblings = Find(JudgeLabs(facts), "smt_siblings");
  EXPECT_EQ(siblings.verdict, Verdict::kPartly);
  EXPECT_THAT(siblings.why,
              HasSubstr("rows one_thread, smt_siblings, same_cpu"));
  EXPECT_THAT(siblings.why, HasSubstr("no distinct_cores row (one core)"));
  EXPECT_THAT(siblings.fix, HasSubstr("4+ vCPUs"));
  const LabVerdict counter = Find(JudgeLabs(facts), "counter_contention");
  EXPECT_EQ(counter.verdict, Verdict::kPartly);
  EXPECT_THAT(counter.why, HasSubstr("never leaves the core"));
}

TEST(JudgeLabsTest, CloudVmOfFourVcpusShowsEveryRow) {
  const MachineFacts facts = FixtureMachine("vm_2c4t");
  const LabVerdict siblings = Find(JudgeLabs(facts), "smt_siblings");
  EXPECT_EQ(siblings.verdict, Verdict::kYes);
  EXPECT_THAT(
      siblings.why,
      HasSubstr("rows one_thread, distinct_cores, smt_siblings, same_cpu"));
  const LabVerdict counter = Find(JudgeLabs(facts), "counter_contention");
  EXPECT_EQ(counter.verdict, Verdict::kYes);
  EXPECT_THAT(counter.why, HasSubstr("up to 2 threads run on distinct cores"));
  EXPECT_THAT(counter.why, HasSubstr("add SMT siblings"));
}

TEST(JudgeLabsTest, HybridDesktopWarnsOfECores) {
  const LabVerdict v =
      Find(JudgeLabs(FixtureMachine("desktop_hybrid_2p4e")), "smt_siblings");
  EXPECT_EQ(v.verdict, Verdict::kYes);
  EXPECT_THAT(v.why, HasSubstr("E-cores 4-7"));
  EXPECT_THAT(v.why, HasSubstr("--cpus"));
}

TEST(RenderFactsTest, VersionsAndWhatTheyChange) {
  MachineFacts facts = HandMadeFacts(2, 2);
  facts.versions = {
      {"glibc", "2.41"}, {"musl", "1.2.5"}, {"mimalloc", "3.0.1"}};
  const std::string text = RenderFacts(facts);
  EXPECT_THAT(
      text, HasSubstr("versions:     glibc 2.41, musl 1.2.5, mimalloc 3.0.1"));
  EXPECT_THAT(text, HasSubstr("glibc 2.41: per-thread cache"));
  facts.versions.clear();
  EXPECT_THAT(RenderFacts(facts), Not(HasSubstr("versions:")));
}

// What a version changes in one lab is in that lab's line.
TEST(JudgeLabsTest, EachLabSaysWhatItsVersionsChange) {
  MachineFacts facts = HandMadeFacts(2, 2);
  facts.versions = {
      {"glibc", "2.41"}, {"musl", "1.2.5"}, {"mimalloc", "3.0.1"}};
  std::vector<LabVerdict> labs = JudgeLabs(facts);
  EXPECT_THAT(Find(labs, "mmap_threshold").why,
              HasSubstr("; a fixed mmap threshold above 32 MiB is accepted "
                        "(2.35+)"));
  EXPECT_THAT(Find(labs, "musl_churn").why,
              HasSubstr("musl 1.2.5: free() makes no madvise call"));
  EXPECT_THAT(Find(labs, "jemalloc_adoption").why,
              HasSubstr("mimalloc 3.0.1: version 3, a redesign of 2.x"));
  facts.versions = {
      {"glibc", "2.34"}, {"musl", "1.2.3"}, {"mimalloc", "2.0.9"}};
  labs = JudgeLabs(facts);
  EXPECT_THAT(Find(labs, "mmap_threshold").why,
              HasSubstr("refused (before 2.35): the probe stops at 32 MiB"));
  EXPECT_THAT(Find(labs, "musl_churn").why, HasSubstr("makes madvise calls"));
  EXPECT_THAT(Find(labs, "jemalloc_adoption").why,
              HasSubstr("mimalloc 2.0.9: version 2, as in the reference run"));
  facts.versions.clear();
  EXPECT_THAT(Find(JudgeLabs(facts), "musl_churn").why,
              Not(HasSubstr("madvise")));
}

TEST(JudgeLabsTest, MissingMuslGccNamesThePackage) {
  MachineFacts facts = HandMadeFacts(2, 2);
  facts.musl_gcc = absl::NotFoundError("musl-gcc is not on PATH (/usr/bin)");
  const LabVerdict v = Find(JudgeLabs(facts), "musl_churn");
  EXPECT_EQ(v.verdict, Verdict::kNo);
  EXPECT_THAT(v.fix, HasSubstr("musl-tools"));
}

TEST(JudgeLabsTest, MissingAllocatorsArePartlyWithTheirFix) {
  MachineFacts facts = HandMadeFacts(2, 2);
  facts.allocators[2].library =
      absl::NotFoundError("mimalloc: apt-get install libmimalloc-dev");
  const LabVerdict v = Find(JudgeLabs(facts), "jemalloc_adoption");
  EXPECT_EQ(v.verdict, Verdict::kPartly);
  EXPECT_THAT(v.fix, HasSubstr("libmimalloc-dev"));
  for (AllocatorFact& a : facts.allocators)
    a.library = absl::NotFoundError("gone");
  EXPECT_EQ(Find(JudgeLabs(facts), "jemalloc_adoption").verdict, Verdict::kNo);
}

TEST(JudgeLabsTest, MmapThresholdNeedsGlibcAndPtrace) {
  MachineFacts facts = HandMadeFacts(2, 2);
  EXPECT_EQ(Find(JudgeLabs(facts), "mmap_threshold").verdict, Verdict::kYes);
  facts.ptrace.traced_child =
      absl::FailedPreconditionError("ptrace: Operation not permitted");
  facts.ptrace.yama_scope = 3;
  const LabVerdict refused = Find(JudgeLabs(facts), "mmap_threshold");
  EXPECT_EQ(refused.verdict, Verdict::kPartly);
  EXPECT_THAT(refused.fix, HasSubstr("ptrace_scope is 3"));
  facts.libc = "not glibc";
  EXPECT_EQ(Find(JudgeLabs(facts), "mmap_threshold").verdict, Verdict::kNo);
}

TEST(JudgeLabsTest, FirstCallExplainsTheZeroPageAndMthp) {
  MachineFacts facts = HandMadeFacts(2, 2);
  EXPECT_THAT(Find(JudgeLabs(facts), "first_call").why,
              HasSubstr("no zero page"));
  facts.zero_page_shared = true;
  facts.mthp_sizes = {"16 KiB", "64 KiB"};
  const std::string why = Find(JudgeLabs(facts), "first_call").why;
  EXPECT_THAT(why, HasSubstr("shared zero page"));
  EXPECT_THAT(why, HasSubstr("mTHP 16 KiB, 64 KiB enabled"));
}

// A default Docker container on a two-core machine: its seccomp filter
// refuses perf_event_open, and `docker run --cpus=1.5 --cpuset-cpus=0`.
MachineFacts DefaultDockerFacts() {
  MachineFacts facts = HandMadeFacts(2, 2);
  facts.container = {"docker", "/.dockerenv", 2, "0", 1.5};
  facts.perf.software = absl::PermissionDeniedError("perf_event_open refused");
  return facts;
}

TEST(ContainerAdviceTest, NamesWhatTheContainerRestrictsAndTheFlag) {
  MachineFacts facts = DefaultDockerFacts();
  facts.ptrace.traced_child = absl::FailedPreconditionError(
      "ptrace(PTRACE_TRACEME) refused: Operation not permitted");
  const std::vector<std::string> advice = ContainerAdvice(facts);
  ASSERT_EQ(advice.size(), 4u) << RenderFacts(facts);
  EXPECT_THAT(advice[0],
              AllOf(HasSubstr("perf_event_open is refused (a seccomp filter"),
                    HasSubstr("page faults with getrusage instead"),
                    HasSubstr("no flag is needed")));
  EXPECT_THAT(advice[1], AllOf(HasSubstr("ptrace is refused"),
                               HasSubstr("add --cap-add=SYS_PTRACE")));
  EXPECT_THAT(advice[2], AllOf(HasSubstr("a CPU quota of 1.5 CPUs"),
                               HasSubstr("--cpuset-cpus")));
  EXPECT_THAT(advice[3], HasSubstr("allows CPUs 0 of this machine's 2"));
  const std::string text = RenderFacts(facts);
  EXPECT_THAT(text, HasSubstr("container:    docker (/.dockerenv); seccomp "
                              "filter on; cpuset 0; CPU quota 1.5 CPUs\n"
                              "              perf_event_open is refused"));
  // The labs' own fixes name the flag too.
  const std::vector<LabVerdict> labs = JudgeLabs(facts);
  EXPECT_THAT(Find(labs, "mmap_threshold").fix,
              HasSubstr("--cap-add=SYS_PTRACE"));
  const LabVerdict counter = Find(labs, "counter_contention");
  EXPECT_EQ(counter.verdict, Verdict::kPartly);
  EXPECT_THAT(counter.why, HasSubstr("a CPU quota of 1.5 CPUs"));
  EXPECT_THAT(counter.fix, HasSubstr("--cpuset-cpus"));
}

TEST(ContainerAdviceTest, SaysWhenNothingIsRestrictedAndNothingOutsideOne) {
  MachineFacts facts = HandMadeFacts(2, 2);
  facts.container = {"docker", "/.dockerenv", 2, "0-1", std::nullopt};
  EXPECT_EQ(
      ContainerAdvice(facts),
      std::vector<std::string>{"nothing the labs use is restricted here"});
  EXPECT_EQ(Find(JudgeLabs(facts), "counter_contention").verdict,
            Verdict::kYes);
  // A VM without a PMU has no counter to refuse: no flag would help.
  facts.perf.software = absl::NotFoundError("no such counter");
  EXPECT_EQ(
      ContainerAdvice(facts),
      std::vector<std::string>{"nothing the labs use is restricted here"});
  // Outside a container, a refusal is the rest of the doctor's business.
  facts = DefaultDockerFacts();
  facts.container = ContainerFacts();
  EXPECT_TRUE(ContainerAdvice(facts).empty());
  EXPECT_THAT(RenderFacts(facts), HasSubstr("container:    none found"));
}

TEST(ProbeDeathTest, ASeccompFilterRefusingPerfIsNamedWithWhatTheLabsDo) {
  EXPECT_EXIT(
      {
        // This child's own filter, read live from /proc/self/status, in a
        // fixture's Docker container.
        RefuseSyscall(SYS_perf_event_open, EPERM);
        ProbeRoots roots = ContainerRoots("docker_v2");
        roots.proc_root = "/proc";
        MachineFacts facts = HandMadeFacts(2, 2);
        facts.container = ProbeContainer(roots);
        facts.perf = ProbePerf(ProbeRoots());
        if (facts.container.seccomp != 2) _exit(1);
        const std::vector<std::string> advice = ContainerAdvice(facts);
        if (advice.empty() ||
            advice[0].find("(a seccomp filter") == std::string::npos ||
            advice[0].find("getrusage instead") == std::string::npos) {
          _exit(2);
        }
        _exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(RenderVerdictsTest, OneLinePerLabAndTheFixBelow) {
  EXPECT_EQ(
      RenderVerdicts({{"musl_churn", Verdict::kNo, "musl-gcc is not on PATH",
                       "sudo apt-get install musl-tools"}}),
      "1 musl_churn          no      musl-gcc is not on PATH\n"
      "    fix: sudo apt-get install musl-tools\n");
}

}  // namespace
}  // namespace alloclab
