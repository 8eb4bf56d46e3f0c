// Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
//
// Known bad: an error bar where task.h asks for a kConfidence interval. It
// keeps the middle 68.3% of the resampled ratios, one standard deviation
// each side of a normal's centre, what a plot's error bar shows, not the
// middle 95%. It looks right: the interval still contains the ratio, stays
// within the data's range and gives clear verdicts on clearly separated
// sets; only it misses the true ratio far more often than one time in
// twenty. The medians, the resampling, the verdicts and Recommend() are the
// reference's. The suite must reject it.

#include "labs/jemalloc_adoption/task.h"

// The reference, with the level of one standard deviation each side of a
// normal's centre for kConfidence.
#define kConfidence 0.6827
#include "solutions/jemalloc_adoption/task.cc"
#undef kConfidence
