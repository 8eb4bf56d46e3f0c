// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "labs/mmap_threshold/processes.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/clock.h"
#include "common/instruments/memory.h"
#include "common/instruments/syscalls.h"
#include "labs/mmap_threshold/task.h"
#include "labs/mmap_threshold/workloads.h"

namespace mmap_threshold {

std::string TunablesValue() {
  return absl::StrCat("glibc.malloc.mmap_threshold=", kDefaultMmapThreshold);
}

absl::Status ApplyPolicy(absl::string_view name) {
  if (name == "dynamic") return SetMallocPolicy(MallocPolicy::Dynamic());
  if (name == "fixed") {
    return SetMallocPolicy(MallocPolicy::Fixed(kDefaultMmapThreshold));
  }
  if (name == "tunables") {
    if (getenv(kTunables) != nullptr) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "the tunables variant needs ", kTunables, "=", TunablesValue()));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown policy '", name, "': use dynamic, fixed or tunables"));
}

int RunLoopOnly(absl::string_view policy, int64_t calls) {
  if (absl::Status s = ApplyPolicy(policy); !s.ok()) {
    std::fprintf(stderr, "--loop=%s: %s\n", std::string(policy).c_str(),
                 s.ToString().c_str());
    return 1;
  }
  BigBufferCalls(calls);
  return 0;
}

absl::StatusOr<alloclab::SyscallCounts> CountWholeProgram(
    absl::string_view policy, int64_t calls, bool tunables) {
  std::vector<std::string> env;
  if (tunables) env.push_back(absl::StrCat(kTunables, "=", TunablesValue()));
  // /proc/self/exe in the traced child is this same program.
  absl::StatusOr<alloclab::ProcessSyscalls> whole =
      alloclab::CountSyscallsOfCommand(
          {"/proc/self/exe", absl::StrCat("--loop=", policy),
           absl::StrCat("--calls=", calls)},
          env);
  if (!whole.ok()) return whole.status();
  if (whole->exit_code != 0) {
    return absl::InternalError(absl::StrCat(
        "--loop=", policy, " ",
        whole->term_signal != 0 ? "was killed by a signal" : "failed"));
  }
  return whole->counts;
}

namespace {

// Fresh call "mmap_threshold_loop", arg "<policy> <count|time> <calls>
// <trim 0|1>": the loop, then malloc_trim(0) when asked.
void LoopInFreshProcess(alloclab::FreshCall& call) {
  const std::vector<std::string> args = absl::StrSplit(call.arg(), ' ');
  int64_t calls = 0;
  if (args.size() != 4 || !absl::SimpleAtoi(args[2], &calls) || calls < 1) {
    return call.Fail(absl::StrCat("bad loop arguments '", call.arg(), "'"));
  }
  const bool trim = args[3] == "1";
  if (absl::Status s = ApplyPolicy(args[0]); !s.ok()) {
    return call.Fail(absl::StrCat("policy ", args[0], ": ", s.ToString()));
  }
  if (args[1] == "count") {
    absl::StatusOr<alloclab::SyscallCounts> n =
        alloclab::CountSyscallsInChild([&] {
          BigBufferCalls(calls);
          if (trim) malloc_trim(0);
        });
    if (!n.ok()) return call.Fail(n.status().ToString());
    const int64_t counts[] = {n->mmap, n->munmap, n->brk, n->madvise};
    for (int i = 0; i < 4; ++i) {
      call.Record(kSyscalls[i], static_cast<double>(counts[i]));
    }
    return;
  }
  call.Measure("loop", [calls] { BigBufferCalls(calls); });
  const int64_t trim_start = alloclab::NowNs();
  if (trim) malloc_trim(0);
  const int64_t trim_ns = alloclab::NowNs() - trim_start;
  // The memory side, after the last free: what malloc holds unused, and
  // how much of its top chunk (the end of the brk heap) is resident. Read
  // before anything is recorded: a record allocates, and an allocation from
  // a trimmed top chunk grows the heap again (by the 128 KiB top pad).
  const struct mallinfo2 m = mallinfo2();
  const char* heap_end = static_cast<char*>(sbrk(0));
  const absl::StatusOr<double> top_resident =
      alloclab::ResidentKib(heap_end - m.keepcost, m.keepcost);
  if (trim) call.Record("trim_ns", static_cast<double>(trim_ns));
  call.Record("malloc_free_kib", static_cast<double>(m.fordblks) / 1024);
  call.Record("heap_top_kib", static_cast<double>(m.keepcost) / 1024);
  if (top_resident.ok()) call.Record("top_resident_kib", *top_resident);
  absl::StatusOr<size_t> threshold = ProbeMmapThreshold();
  if (threshold.ok()) {
    call.Record("threshold_bytes", static_cast<double>(*threshold));
  } else {  // the loop's numbers stand without it; the reason goes to stderr
    std::fprintf(stderr, "after the %s loop: ProbeMmapThreshold: %s\n",
                 args[0].c_str(), threshold.status().ToString().c_str());
  }
}
ALLOCLAB_FRESH_CALL("mmap_threshold_loop", LoopInFreshProcess);

// Fresh call "mmap_threshold_probe", arg: bytes to allocate, touch and free
// before the probe (0: none).
void ProbeInFreshProcess(alloclab::FreshCall& call) {
  size_t bytes = 0;
  if (!absl::SimpleAtoi(call.arg(), &bytes)) {
    return call.Fail(absl::StrCat("bad probe argument '", call.arg(), "'"));
  }
  if (void* block = bytes > 0 ? malloc(bytes) : nullptr; block != nullptr) {
    TouchEveryPage(block, bytes);
    free(block);
  }
  absl::StatusOr<size_t> threshold;
  call.Measure("probe", [&] { threshold = ProbeMmapThreshold(); });
  if (!threshold.ok()) return call.Fail(threshold.status().ToString());
  call.Record("threshold_bytes", static_cast<double>(*threshold));
}
ALLOCLAB_FRESH_CALL("mmap_threshold_probe", ProbeInFreshProcess);

}  // namespace
}  // namespace mmap_threshold
