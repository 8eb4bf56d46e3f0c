# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Tags of a test whose facts qemu-user cannot give.

The arm64 leg (tools/ci/test_arm64.sh) builds such a test and does not run it:
`no_qemu_user`, and a tag per reason, which the leg's list `reasons`
explains and counts. Example, in a lab's tests/<lab>/BUILD:

    test_tags = {"solution_test": qemu_tags("ptrace")},
"""

# The reasons, as tools/ci/test_arm64.sh's `reasons` names them (qemu_<reason>).
_REASONS = ["faults", "host_programs", "madvise", "ptrace", "seccomp", "thp"]

def qemu_tags(*reasons):
    """The tags of a test left out of the arm64 leg.

    Args:
      *reasons: why, each one of _REASONS, e.g. "ptrace".

    Returns:
      `no_qemu_user` and one tag per reason, e.g. ["no_qemu_user",
      "qemu_ptrace"].
    """
    if not reasons:
        fail("qemu_tags() needs a reason, one of " + ", ".join(_REASONS))
    for reason in reasons:
        if reason not in _REASONS:
            fail("qemu_tags(): '{}' is not one of {}".format(reason, ", ".join(_REASONS)))
    return ["no_qemu_user"] + ["qemu_" + reason for reason in reasons]
