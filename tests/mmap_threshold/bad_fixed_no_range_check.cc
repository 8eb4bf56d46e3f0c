// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: Fixed(t) hands t to mallopt() without checking it fits,
// "mallopt() says when it refuses a value". But above kFixedThresholdMax
// the int cast wraps, and glibc either fixes a wrong threshold or refuses
// it, where task.h promises InvalidArgument and nothing changed. The suite
// must reject it.
//
// The probe and the policy are the reference's, compiled with the limit of
// its range check lifted to the largest size_t, so that no threshold is
// above it; the mistake is the range check.

#include <cstdint>

#include "labs/mmap_threshold/task.h"

// The reference, with kFixedThresholdMax (task.h's, included above) replaced
// in its range check. The mistake: no size is above the limit, and every
// threshold is cast to mallopt()'s int.
#define kFixedThresholdMax SIZE_MAX
#include "solutions/mmap_threshold/task.cc"
#undef kFixedThresholdMax
