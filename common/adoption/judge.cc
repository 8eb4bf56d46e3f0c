// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// The course's judge: rule.inc compiled in alloclab::adoption, where
// verdict.h declares every word it uses.

#include "common/adoption/judge.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "common/stats/pseudo_random.h"
#include "common/stats/stats.h"

namespace alloclab::adoption {

#include "common/adoption/rule.inc"

}  // namespace alloclab::adoption
