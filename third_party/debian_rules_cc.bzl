# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Debian's rules_cc, adapted to the Bazel 4.2.3 that Debian ships.

Debian packages rules_cc 0.0.4 (bazel-rules-cc, at /usr/share/bazel/rules/cc).
Two of its files call `use_cpp_toolchain()`, a helper that the `@bazel_tools`
of Bazel 4.2.3 does not have yet. This repository rule copies Debian's tree
and replaces exactly those calls with the toolchain type they return, so that
the dependency stays the real rules_cc and nothing is downloaded.
"""

_PATCHED_FILES = [
    "cc/private/rules_impl/compiler_flag.bzl",
    "cc/private/rules_impl/cc_flags_supplier.bzl",
]

def _debian_rules_cc_impl(repository_ctx):
    src = repository_ctx.path(repository_ctx.attr.path)
    if not src.exists:
        fail(("rules_cc not found at {}: install Debian's bazel-rules-cc " +
              "(tools/setup.sh does it)").format(src))

    # Copy the tree; symlinks would expose the unpatched files.
    result = repository_ctx.execute(["cp", "-R", str(src) + "/.", "."])
    if result.return_code != 0:
        fail("copying {} failed: {}".format(src, result.stderr))

    # Debian's WORKSPACE downloads rules_go and friends; a repository does not
    # need one, so keep only its name.
    repository_ctx.file("WORKSPACE", 'workspace(name = "rules_cc")\n')
    repository_ctx.delete("MODULE.bazel")  # Bzlmod only; Bazel 4 ignores it

    for rel in _PATCHED_FILES:
        text = repository_ctx.read(rel)
        patched = text.replace(
            ', "use_cpp_toolchain")',
            ")",
        ).replace(
            "toolchains = use_cpp_toolchain(),",
            'toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],',
        )
        if "use_cpp_toolchain" in patched:
            fail("unexpected use_cpp_toolchain() left in " + rel +
                 ": Debian's rules_cc changed; update this rule")
        repository_ctx.file(rel, patched)

debian_rules_cc = repository_rule(
    implementation = _debian_rules_cc_impl,
    attrs = {
        "path": attr.string(
            default = "/usr/share/bazel/rules/cc",
            doc = "Where Debian's bazel-rules-cc package installs rules_cc.",
        ),
    },
    local = True,
    doc = "Debian's rules_cc with Bazel 4.2.3 compatibility patches.",
)
