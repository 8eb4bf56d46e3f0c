// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Promise 5 of lab allocator_design (task.h): memory is used, on each
// fixed trace of traces.h, replayed as it is and at other addresses.
//
// Part of the suite of task_test.cc (whose header says how it is run: in
// fresh processes, on the page source's fake clock, never the wall clock);
// what the files share is suite_support.h. Every failure message quotes
// the rule of task.h it checks.

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/harness/fresh_process.h"
#include "common/instruments/syscalls.h"
#include "common/machine/cpu_facts.h"
#include "common/testing/scoped_env.h"
#include "gtest/gtest.h"
#include "labs/allocator_design/internal/lock_testing.h"
#include "labs/allocator_design/internal/pages_testing.h"
#include "labs/allocator_design/lock.h"
#include "labs/allocator_design/pages.h"
#include "labs/allocator_design/task.h"
#include "labs/allocator_design/traces.h"
#include "tests/allocator_design/run_fresh.h"
#include "tests/allocator_design/suite_support.h"

namespace allocator_design::suite {
namespace {

// ---------------------------------------------------------------------------
// Design, promise 5: memory is used.
// ---------------------------------------------------------------------------

void TraceCall(alloclab::FreshCall& call) {
  for (const Trace& trace : Traces()) {
    if (trace.name != call.arg()) continue;
    absl::StatusOr<TraceResult> r = ReplayTrace(trace);
    if (!r.ok()) {
      call.Fail(r.status().ToString());
      return;
    }
    call.Record("peak_live", static_cast<double>(r->peak_live_bytes));
    call.Record("peak_held", static_cast<double>(r->peak_held_bytes));
    call.Record("peak_mapped", static_cast<double>(r->peak_mapped_bytes));
    call.Record("utilization", r->utilization);
    return;
  }
  call.Fail(absl::StrCat("no trace named '", call.arg(), "'"));
}
ALLOCLAB_FRESH_CALL("allocator_design_trace", TraceCall);

class DesignUtilization : public testing::TestWithParam<std::string> {};

TEST_P(DesignUtilization, TraceUsesTheMemoryItHolds) {
  absl::StatusOr<alloclab::FreshCallResult> r =
      RunFresh("allocator_design_trace", GetParam());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->values["utilization"], kMinUtilization)
      << kRuleUtilization << ": trace " << GetParam() << " peaked at "
      << r->values["peak_live"] << " bytes live and " << r->values["peak_held"]
      << " held (kMinUtilization = " << kMinUtilization << ")";
}

std::vector<std::string> TraceNames() {
  std::vector<std::string> names;
  for (const Trace& trace : Traces()) names.push_back(trace.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Traces, DesignUtilization,
                         testing::ValuesIn(TraceNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!absl::ascii_isalnum(c)) c = '_';
                           }
                           return name;
                         });

// ---------------------------------------------------------------------------
// Design, explored: promise 5, where it is promised: the fixed traces, each
// replayed kTraceReplays times, each time in a fresh process at addresses
// the kernel places anew (a design whose metadata depends on where its
// memory lands holds more on some layouts), the peak held counted both by
// the allocator (ReplayTrace()'s bytes_held) and by the page source (mapped,
// less unmapped and released): the larger is held to the promise. Traces
// of the same shapes drawn from other seeds are no promise of task.h: over
// 40 other seeds the reference fell to 0.43 on one 'mixed' and to 0.48 on
// one 'large', thread_owned_pages to 0.49 on one 'mixed'.
// ---------------------------------------------------------------------------

// Under a sanitizer one replay a trace: the promise is judged by the
// plain build's three, and a sanitizer's run is there for what it alone
// sees (a race, an access out of bounds), which one replay at new
// addresses shows as well; three took 57 s of the reference's 166 s under
// ThreadSanitizer in CI.
constexpr int kTraceReplays = kSanitized ? 1 : 3;

TEST(DesignUtilizationExplorer, FixedTracesAtAnyAddressesUseTheMemoryTheyHold) {
  double least = 1;
  std::string least_name;
  for (const Trace& trace : Traces()) {
    for (int replay = 1; replay <= kTraceReplays; ++replay) {
      absl::StatusOr<alloclab::FreshCallResult> r =
          RunFresh("allocator_design_trace", trace.name);
      ASSERT_TRUE(r.ok()) << r.status();
      const double live = r->values["peak_live"];
      const double held =
          std::max(r->values["peak_held"], r->values["peak_mapped"]);
      const double utilization = held > 0 ? live / held : 1;
      if (utilization < least) {
        least = utilization;
        least_name = trace.name;
      }
      EXPECT_GE(utilization, kMinUtilization)
          << kRuleUtilization << ": trace " << trace.name << " (" << trace.what
          << "), replay " << replay << " of " << kTraceReplays
          << " in a fresh process, peaked at " << live << " bytes live and "
          << r->values["peak_held"] << " held by ReadCounters(), "
          << r->values["peak_mapped"]
          << " by the page source's count (kMinUtilization = "
          << kMinUtilization << ")";
    }
  }
  // The least utilization met, in thousandths: a figure, not a bound.
  ::testing::Test::RecordProperty("least_permille",
                                  static_cast<int>(least * 1000));
  ::testing::Test::RecordProperty("least_trace", least_name);
}

}  // namespace
}  // namespace allocator_design::suite
