// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// ScopedEnv changes the environment of this test process; each test uses a
// variable name of its own that nothing else reads, and GoogleTest runs the
// tests one at a time on one thread.

#include "common/testing/scoped_env.h"

#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace alloclab {
namespace {

// The variable's value, or nullopt when it is not set.
std::optional<std::string> Env(const char* name) {
  const char* value = getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// Before
//
// The state a variable is in before the scope: set to `old_value`, or
// absent when it is nullopt. Each case has a variable of its own.
struct Before {
  const char* label;
  const char* name;
  std::optional<const char*> old_value;
};

void PrintTo(const Before& c, std::ostream* os) { *os << c.label; }

class ScopedEnvRestoresTest : public testing::TestWithParam<Before> {};

TEST_P(ScopedEnvRestoresTest, SetsForTheScopeThenPutsBackWhatItFound) {
  const Before& c = GetParam();
  if (c.old_value.has_value()) {
    ASSERT_EQ(setenv(c.name, *c.old_value, 1), 0);
  } else {
    ASSERT_EQ(unsetenv(c.name), 0);
  }
  {
    ScopedEnv env(c.name, "for a while");
    ASSERT_TRUE(env.status().ok()) << env.status();
    EXPECT_EQ(Env(c.name), "for a while");
  }
  if (c.old_value.has_value()) {
    EXPECT_EQ(Env(c.name), *c.old_value);
  } else {
    EXPECT_EQ(Env(c.name), std::nullopt) << "absent before, must be absent";
  }
  unsetenv(c.name);
}

INSTANTIATE_TEST_SUITE_P(
    States, ScopedEnvRestoresTest,
    testing::Values(Before{"set", "ALLOCLAB_SCOPED_ENV_TEST_SET", "old"},
                    Before{"absent", "ALLOCLAB_SCOPED_ENV_TEST_ABSENT",
                           std::nullopt},
                    // Set to "": set, not absent, and it must come back as "".
                    Before{"empty", "ALLOCLAB_SCOPED_ENV_TEST_EMPTY", ""}),
    [](const testing::TestParamInfo<Before>& info) {
      return std::string(info.param.label);
    });

TEST(ScopedEnvTest, NestedScopesRestoreInTurn) {
  constexpr char kName[] = "ALLOCLAB_SCOPED_ENV_TEST_NESTED";
  ASSERT_EQ(unsetenv(kName), 0);
  {
    ScopedEnv outer(kName, "outer");
    {
      ScopedEnv inner(kName, "inner");
      EXPECT_EQ(Env(kName), "inner");
    }
    EXPECT_EQ(Env(kName), "outer");
  }
  EXPECT_EQ(Env(kName), std::nullopt);
}

// BadInput
//
// A name or value ScopedEnv must refuse. Each one names the witness
// variable, so that a ScopedEnv that passed it to setenv() anyway would be
// seen to change the witness.
struct BadInput {
  const char* label;
  absl::string_view name;
  absl::string_view value;
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.label; }

constexpr char kWitness[] = "ALLOCLAB_SCOPED_ENV_TEST_REFUSED";

class ScopedEnvRefusesTest : public testing::TestWithParam<BadInput> {};

TEST_P(ScopedEnvRefusesTest, ChangesNothingAndSaysWhy) {
  ASSERT_EQ(setenv(kWitness, "untouched", 1), 0);
  {
    ScopedEnv env(GetParam().name, GetParam().value);
    EXPECT_EQ(env.status().code(), absl::StatusCode::kInvalidArgument)
        << env.status();
    EXPECT_FALSE(env.status().message().empty());
    EXPECT_EQ(Env(kWitness), "untouched");
  }
  EXPECT_EQ(Env(kWitness), "untouched") << "the destructor changed something";
  unsetenv(kWitness);
}

INSTANTIATE_TEST_SUITE_P(
    Refused, ScopedEnvRefusesTest,
    testing::Values(
        // setenv() itself refuses these two, with a bare EINVAL.
        BadInput{"empty_name", "", "v"},
        BadInput{"equals_in_name", "ALLOCLAB_SCOPED_ENV_TEST_REFUSED=x", "v"},
        // setenv() would stop at the NUL and set the witness.
        BadInput{"nul_in_name",
                 absl::string_view("ALLOCLAB_SCOPED_ENV_TEST_REFUSED\0x", 34),
                 "v"},
        BadInput{"nul_in_value", kWitness, absl::string_view("cut\0here", 8)}),
    [](const testing::TestParamInfo<BadInput>& info) {
      return std::string(info.param.label);
    });

}  // namespace
}  // namespace alloclab
