// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.

#include "common/harness/fresh_process.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/machine/vm_facts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Key;

// 256 KiB: 64 pages of 4 KiB, 4 of 64 KiB. The test links
// //common/machine:base_pages_for_process, so a fault is one base page even
// where multi-size THP is on.
constexpr size_t kBufferBytes = 256 << 10;

// Keeps the touched memory observable: GCC may delete a new/delete pair
// whose memory nobody reads.
volatile char sink;

void TouchFreshBuffer(FreshCall& call) {
  call.Measure("touch", [] {
    std::unique_ptr<char[]> buffer(new char[kBufferBytes]);
    for (size_t i = 0; i < kBufferBytes; i += PageBytes()) {
      static_cast<volatile char*>(buffer.get())[i] = 1;
    }
    sink = buffer[kBufferBytes - 1];
  });
}
ALLOCLAB_FRESH_CALL("touch_fresh_buffer", TouchFreshBuffer);

void EchoArg(FreshCall& call) {
  double value = 0;
  if (!absl::SimpleAtod(call.arg(), &value)) {
    call.Fail("arg is not a number");
    return;
  }
  call.Record("arg_value", value);
  call.Record("arg_length", static_cast<double>(call.arg().size()));
}
ALLOCLAB_FRESH_CALL("echo_arg", EchoArg);

void RecordAwkwardValues(FreshCall& call) {
  call.Record("negative", -12.5);
  call.Record("third", 1.0 / 3.0);
  call.Record("tiny", 1e-300);
  call.Record("big", 123456789012345678.0);
  call.Record("zero", 0.0);
}
ALLOCLAB_FRESH_CALL("record_awkward_values", RecordAwkwardValues);

void FailOnPurpose(FreshCall& call) {
  call.Record("before_failure", 1);
  call.Fail("the probe found no threshold\nbelow 32 MiB");
}
ALLOCLAB_FRESH_CALL("fail_on_purpose", FailOnPurpose);

// A crash must not leave a core file behind in the test's directory.
void NoCoreFile() {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
}

void AbortOnPurpose(FreshCall&) {
  NoCoreFile();
  std::abort();
}
ALLOCLAB_FRESH_CALL("abort_on_purpose", AbortOnPurpose);

void ExitThree(FreshCall&) { std::exit(3); }
ALLOCLAB_FRESH_CALL("exit_three", ExitThree);

void BadKey(FreshCall& call) { call.Record("two words", 1); }
ALLOCLAB_FRESH_CALL("bad_key", BadKey);

// Set by the parent before it starts a fresh call; a fresh process starts
// from the program's initial state, so it must see the initial value.
int parent_state = 7;

void RecordParentState(FreshCall& call) {
  call.Record("parent_state", parent_state);
  call.Record("fresh_env_left",
              getenv("ALLOCLAB_FRESH_CALL") != nullptr ? 1.0 : 0.0);
}
ALLOCLAB_FRESH_CALL("record_parent_state", RecordParentState);

// A fresh call may start fresh calls of its own: the environment it was
// started with must not make the grandchild think it is this call.
void Nested(FreshCall& call) {
  absl::StatusOr<FreshCallResult> inner = RunFreshCall("echo_arg", "2.5");
  if (!inner.ok()) {
    call.Fail(inner.status().message());
    return;
  }
  call.Record("inner_arg_value", inner->values.at("arg_value"));
}
ALLOCLAB_FRESH_CALL("nested", Nested);

TEST(RunFreshCallTest, MeasureCountsFaultsOfAFreshBuffer) {
  absl::StatusOr<FreshCallResult> result = RunFreshCall("touch_fresh_buffer");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->values,
              AllOf(::testing::Contains(Key("touch_ns")),
                    ::testing::Contains(Key("touch_minor_faults")),
                    ::testing::Contains(Key("touch_major_faults"))));
  EXPECT_EQ(result->values.size(), 3);
  // Every page of a buffer the process never had is a first touch.
  EXPECT_GE(result->values.at("touch_minor_faults"),
            static_cast<double>(PagesIn(kBufferBytes)));
}

TEST(RunFreshCallTest, ArgReachesTheCall) {
  absl::StatusOr<FreshCallResult> result = RunFreshCall("echo_arg", "-0.125");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->values.at("arg_value"), -0.125);
  EXPECT_EQ(result->values.at("arg_length"), 6);
}

TEST(RunFreshCallTest, RecordedValuesRoundTripExactly) {
  absl::StatusOr<FreshCallResult> result =
      RunFreshCall("record_awkward_values");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->values.at("negative"), -12.5);
  EXPECT_EQ(result->values.at("third"), 1.0 / 3.0);
  EXPECT_EQ(result->values.at("tiny"), 1e-300);
  EXPECT_EQ(result->values.at("big"), 123456789012345678.0);
  EXPECT_EQ(result->values.at("zero"), 0.0);
  EXPECT_EQ(result->values.size(), 5);
}

TEST(RunFreshCallTest, UnknownNameIsNotFound) {
  absl::StatusOr<FreshCallResult> result = RunFreshCall("no_such_call");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("no_such_call"), HasSubstr("echo_arg")));
}

TEST(RunFreshCallTest, FailIsAnInternalErrorWithTheMessage) {
  absl::StatusOr<FreshCallResult> result = RunFreshCall("fail_on_purpose");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("fail_on_purpose"),
                    HasSubstr("the probe found no threshold below 32 MiB")));
}

TEST(RunFreshCallTest, AbortNamesTheSignal) {
  absl::StatusOr<FreshCallResult> result = RunFreshCall("abort_on_purpose");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("abort_on_purpose"),
                    HasSubstr(absl::StrCat("signal ", SIGABRT)),
                    HasSubstr(strsignal(SIGABRT))));
}

TEST(RunFreshCallTest, NonZeroExitNamesTheCode) {
  absl::StatusOr<FreshCallResult> result = RunFreshCall("exit_three");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("exit_three"), HasSubstr("code 3")));
}

TEST(RunFreshCallTest, KeyWithSpacesIsAFailure) {
  absl::StatusOr<FreshCallResult> result = RunFreshCall("bad_key");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(result.status().message(), HasSubstr("'two words'"));
}

TEST(RunFreshCallTest, FreshProcessDoesNotInheritParentState) {
  parent_state = 42;
  absl::StatusOr<FreshCallResult> result = RunFreshCall("record_parent_state");
  parent_state = 7;
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->values.at("parent_state"), 7);
  EXPECT_EQ(result->values.at("fresh_env_left"), 0);
}

TEST(RunFreshCallTest, FreshCallCanStartAnother) {
  absl::StatusOr<FreshCallResult> result = RunFreshCall("nested");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->values.at("inner_arg_value"), 2.5);
}

TEST(RegisterFreshCallTest, DuplicateNameAborts) {
  EXPECT_DEATH(RegisterFreshCall("echo_arg", EchoArg),
               "'echo_arg' is registered twice");
}

TEST(FreshCallTest, MeasureWorksInAnyProcess) {
  FreshCall call("x");
  call.Measure("work", [] { sink = 1; });
  EXPECT_EQ(call.arg(), "x");
  EXPECT_TRUE(call.failure().empty()) << call.failure();
  EXPECT_THAT(call.values(),
              AllOf(::testing::SizeIs(3), ::testing::Contains(Key("work_ns")),
                    ::testing::Contains(Key("work_minor_faults")),
                    ::testing::Contains(Key("work_major_faults"))));
}

TEST(FreshCallTest, FailuresAccumulate) {
  FreshCall call("");
  call.Fail("first");
  call.Fail("second");
  EXPECT_EQ(call.failure(), "first; second");
}

struct Pair {
  int a;
  double b;
};

TEST(RunInForkedChildTest, ReturnsTheChildsResult) {
  absl::StatusOr<Pair> result = RunInForkedChild<Pair>([] {
    return Pair{41 + 1, -0.5};
  });
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->a, 42);
  EXPECT_EQ(result->b, -0.5);
}

TEST(RunInForkedChildTest, ChildChangesStayInTheChild) {
  int counter = 1;
  absl::StatusOr<int> result = RunInForkedChild<int>([&] {
    counter = 100;
    return counter + 1;
  });
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, 101);
  EXPECT_EQ(counter, 1);
}

TEST(RunInForkedChildTest, CrashIsAnInternalError) {
  absl::StatusOr<int> result = RunInForkedChild<int>([]() -> int {
    NoCoreFile();
    std::abort();
  });
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(result.status().message(),
              HasSubstr(absl::StrCat("signal ", SIGABRT)));
}

TEST(RunInForkedChildTest, ExitWithoutResultIsAnInternalError) {
  absl::StatusOr<int> result = RunInForkedChild<int>([]() -> int { _exit(0); });
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(result.status().message(), HasSubstr("0 bytes of a 4-byte"));
}

}  // namespace
}  // namespace alloclab
