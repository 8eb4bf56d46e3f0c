# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The capstone in stages: the one table of lab allocator_design's way in.

A learner takes the suite of labs/allocator_design/task.h a stage at a
time: first a working allocator (the Validator* tests, which the starter
already passes), then the promises, one (or a pair that belong together) at
a time, in an order a learner can climb: what the starter keeps first, then
the cheapest promise to add. Each stage is a set of the suite's tests,
named by test-name prefixes, and every test of the suite is in exactly one
stage.

Everything that speaks of the stages reads them from here:

    tests/allocator_design/BUILD   :stage_<n>_<name>_test, the learner's
                                   suite binary (:starter_test's) with the
                                   stage's --gtest_filter; :stages.json
    //:board                       the highest stage the learner's task.cc
                                   passes (tools/report/board.py --stages)
    :stages_test                   every test of the suite is in exactly one
                                   stage, and the chapter's table
                                   (docs/labs/allocator_design.md, "Your
                                   way in") is this one
                                   (tests/allocator_design/stages_check.py)

A stage's fields:

    name      the target's word: :stage_<n>_<name>_test
    promises  which part of task.h it checks, in task.h's words
    tests     test-name prefixes: "Validator" takes every suite whose name
              starts with it; "DesignDecay." takes that suite only. A
              parameterized test ("Traces/DesignUtilization.X/large") is
              matched after its instantiation's prefix.
    adds      what the learner's allocator must do that the stage before
              did not ask for
    labs      the earlier labs that measured why, in course order
    why       what they measured, in a sentence
    starter   True when the untouched starter passes it (its target is
              then a course_integrity check: .ci/run holds the starter to it)

A new TEST in any file of the suite (tests/allocator_design/*_test.cc)
whose suite no stage names fails :stages_test, which names it.
"""

load("//:labs.bzl", "LABS")

STAGES = [
    {
        "adds": "a working allocator: aligned blocks that never overlap and keep their bytes, zeroed requests, nullptr for what cannot be had, errno left alone, thousands of threads, frees from any thread, fork, counters that agree with the page source, and memory from the page source alone (static state only of a fixed size, within its bounds)",
        "labs": ["first_call"],
        "name": "working",
        "promises": "the Validator tests",
        "starter": True,
        "tests": ["Validator"],
        "why": "memory fresh from the kernel reads as zeroes and pays a fault at its first touch; memory you recycle does neither, so a zeroed request must clear it",
    },
    {
        "adds": "nothing new to write: threads that exit give back, and a producer and a consumer stay bounded; the starter's one shared list keeps both, and whatever a thread keeps for itself later must keep them too",
        "labs": [
            "musl_churn",
            "jemalloc_adoption",
        ],
        "name": "churn_and_messages",
        "promises": "promises 3 and 4",
        "starter": True,
        "tests": [
            "DesignThreadChurn.",
            "DesignMessagePassing.",
            "DesignChurnExplorer.",
        ],
        "why": "musl's bounded recycler of freed blocks bought back most of its time for a little more memory (a cache needs a bound, in bytes); lab 7's msgsend frees every block in a thread that did not allocate it",
    },
    {
        "adds": "memory is used: on every trace of labs/allocator_design/traces.h, the bytes you hold are mostly bytes asked for and live, memory freed at one size and asked for again at another too",
        "labs": ["jemalloc_adoption"],
        "name": "utilization",
        "promises": "promise 5",
        "starter": False,
        "tests": [
            "DesignUtilization.",
            "DesignUtilizationExplorer.",
        ],
        "why": "its rule disqualifies an allocator whose peak RSS is over its budget on any one workload, however fast",
    },
    {
        "adds": "idle memory goes back to the kernel after `kDecayNs`, noticed by the calls themselves (no timer thread), whoever freed it",
        "labs": [
            "musl_churn",
            "jemalloc_adoption",
        ],
        "name": "decay",
        "promises": "promise 2",
        "starter": False,
        "tests": [
            "DesignDecay.",
            "DesignDecayExplorer.",
        ],
        "why": "musl gave memory back at every large free and paid in kernel time, glibc kept it and paid in resident memory; jemalloc giving back at once (a decay of 0) cut its peak on churn and took far longer",
    },
    {
        "adds": "the fast path is private: a thread reuses what it freed with no system call and rarely meets another thread (a central visit per `kOpsPerCentralVisit` calls at most, or per `kBytesPerCentralVisit` bytes for blocks over 8 KiB), and no lock is held while the page source maps",
        "labs": [
            "allocator_cost",
            "counter_contention",
        ],
        "name": "fast_path",
        "promises": "promise 1",
        "starter": False,
        "tests": [
            "DesignFastPath.",
            "DesignFastPathExplorer.",
        ],
        "why": "one small malloc+free costs nanoseconds, the budget of a call that finds its block ready; a variable every thread writes makes each call dearer as threads are added",
    },
    {
        "adds": "threads keep to their own cache lines: a thread's blocks never share a line with another running thread's live blocks",
        "labs": ["counter_contention"],
        "name": "own_lines",
        "promises": "promise 6",
        "starter": False,
        "tests": [
            "DesignOwnLines.",
            "DesignOwnLinesExplorer.",
        ],
        "why": "two threads that write one cache line take turns owning it, and run no faster on two cores than on one",
    },
]

# The package whose targets run the stages.
STAGES_PACKAGE = "//tests/allocator_design"

def stage_target(number, stage):
    """A stage's test target, without its package.

    Args:
      number: the stage's number, from 1.
      stage: the stage, a dict of STAGES.

    Returns:
      "stage_<n>_<name>_test".
    """
    return "stage_%d_%s_test" % (number, stage["name"])

def stage_filter(stage):
    """A stage's --gtest_filter.

    Args:
      stage: the stage, a dict of STAGES.

    Returns:
      Each of its prefixes, also after a parameterized test's
      instantiation prefix ("Traces/"), ':'-separated.
    """
    patterns = []
    for prefix in stage["tests"]:
        patterns += [prefix + "*", "*/" + prefix + "*"]
    return ":".join(patterns)

def stages_with_targets():
    """What :stages.json holds for the board and :stages_test.

    Returns:
      STAGES, each with its number, filter, target label and its labs'
      numbers in the course (the root's labs.bzl).
    """
    out = []
    for number, stage in enumerate(STAGES, 1):
        row = dict(stage)
        row["number"] = number
        row["filter"] = stage_filter(stage)
        row["target"] = "%s:%s" % (STAGES_PACKAGE, stage_target(number, stage))
        row["lab_numbers"] = [LABS.index(lab) + 1 for lab in stage["labs"]]
        out.append(row)
    return out
