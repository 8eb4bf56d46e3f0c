# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The labs of the course, in course order, for the Python tools and tests.

The one list is `LABS` in the root's labs.bzl; the root BUILD writes it to
labs.txt (`//:labs_txt`), one lab a line, and this library carries that file
in its runfiles. A tool or test that goes over the labs calls `names()`,
never a list of its own (`//tools:one_list_test` fails on one).

Example:

    from tools import labs
    for lab in labs.names():
        print(lab)                 # allocator_cost, mmap_threshold, ...
"""

import os

# labs.txt beside the tools package, in the runfiles of the binary or test
# that depends on this library.
LABS_TXT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        os.pardir, "labs.txt")


# names: the labs, in course order.
def names():
    with open(LABS_TXT) as f:
        labs = [line.strip() for line in f if line.strip()]
    if not labs:
        raise SystemExit("labs: %s lists no lab" % LABS_TXT)
    return labs
