# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""A local `@remote_coverage_tools`, so that tests build offline.

Every test target depends on `@remote_coverage_tools//:coverage_report_generator`
and `:lcov_merger`; without a local repository of that name Bazel downloads
them. The course runs offline, so this stand-in provides both targets as
scripts that fail with a clear message: coverage is not available offline.
"""

_SCRIPT = """#!/bin/sh
echo "coverage is not available offline: Allocator Labs declares a stand-in" >&2
echo "@remote_coverage_tools (third_party/remote_coverage_tools.bzl)." >&2
exit 1
"""

_BUILD = """
package(default_visibility = ["//visibility:public"])

sh_binary(
    name = "coverage_report_generator",
    srcs = ["unavailable.sh"],
)

sh_binary(
    name = "lcov_merger",
    srcs = ["unavailable.sh"],
)

filegroup(
    name = "coverage_output_generator",
    srcs = ["unavailable.sh"],
)
"""

def _offline_coverage_tools_impl(repository_ctx):
    repository_ctx.file("unavailable.sh", _SCRIPT, executable = True)
    repository_ctx.file("BUILD", _BUILD)
    repository_ctx.file("WORKSPACE", 'workspace(name = "remote_coverage_tools")\n')

offline_coverage_tools = repository_rule(
    implementation = _offline_coverage_tools_impl,
    doc = "Stand-in for @remote_coverage_tools that refuses coverage offline.",
)
