# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The labs of the course, in course order: the one list.

Every tool and test that goes over the labs takes them from here. BUILD
files load `LABS`; the root BUILD writes it to `labs.txt` (one lab a line,
target `//:labs_txt`), which the Python tools read through
`tools/labs.py`, `//tools/doctor:doctor_test` and the shell checks as data; the
shell tools that run outside Bazel read this file through
`python3 tools/labs.py` (tools/ci/solved_course_check.sh's `--list-labs`,
held to `labs.txt` by `//tools/checks:one_list_test`). A new lab
is one line here (docs/adding_a_lab.md).
"""

LABS = [
    "allocator_cost",
    "mmap_threshold",
    "first_call",
    "counter_contention",
    "smt_siblings",
    "musl_churn",
    "jemalloc_adoption",
    "allocator_design",
]
