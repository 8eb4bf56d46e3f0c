#include "absl/status/statusor.h"
#include "absl/flags/flag.h"
#include "benchmark/benchmark.h"
#include "gtest/gtest.h"
ABSL_FLAG(int, x, 1, "x");
TEST(Smoke, Works) { absl::StatusOr<int> s = 3; EXPECT_EQ(*s, absl::GetFlag(FLAGS_x) + 2); }
