// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Lab jemalloc_adoption: the reference. Its one source is the course's rule,
// common/adoption/rule.inc (which says how it works), compiled here in this
// lab's namespace: the same rule lab allocator_design is judged by
// (common/adoption/judge.h), so that the two cannot drift apart. A
// known-bad includes this file with one function renamed out of the way,
// and the renaming reaches into the rule.

#include "labs/jemalloc_adoption/task.h"

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

namespace jemalloc_adoption {

#include "common/adoption/rule.inc"

}  // namespace jemalloc_adoption
