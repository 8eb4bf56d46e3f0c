# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""musl_binary: a static C program built against musl with musl-gcc.

Debian's musl-tools ships musl-gcc, a wrapper that points GCC at musl's
headers, start files and libc.a. That is all a lab needs to run the same C
source under glibc (cc_binary) and under musl (this rule) side by side, so
there is no toolchain here: one action, declared inputs (so that the sandbox
has them), one static executable. A machine without musl-gcc fails the build
with a message that names the Debian package (tools/lab/musl_cc.sh).

Example:

    musl_binary(
        name = "churn_musl",
        srcs = ["workloads.c", "workload_main.c"],
        hdrs = ["workloads.h"],
    )
"""

load("//tools/lab:copts.bzl", "ALLOCLAB_C_COPTS")

def _musl_binary_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name)
    args = ctx.actions.args()
    args.add(out)
    args.add_all(ctx.files.srcs)
    args.add("--")

    # The flags of every C target of the course, and the optimization of
    # .bazelrc: a musl binary built at -O0 would compare poorly for the wrong
    # reason.
    args.add_all(ALLOCLAB_C_COPTS + ["-O2", "-fno-omit-frame-pointer"] + ctx.attr.copts)
    ctx.actions.run(
        executable = ctx.executable._musl_cc,
        arguments = [args],
        inputs = ctx.files.srcs + ctx.files.hdrs,
        outputs = [out],
        mnemonic = "MuslCompile",
        progress_message = "Compiling and linking %s against musl" % ctx.label,
        # musl-gcc is found on PATH, as the cc rules find gcc.
        use_default_shell_env = True,
    )
    return [DefaultInfo(
        executable = out,
        files = depset([out]),
        runfiles = ctx.runfiles(files = [out]),
    )]

musl_binary = rule(
    implementation = _musl_binary_impl,
    doc = "A static C executable linked against musl by musl-gcc.",
    executable = True,
    attrs = {
        "copts": attr.string_list(doc = "Extra musl-gcc flags."),
        "hdrs": attr.label_list(
            allow_files = [".h"],
            doc = "Headers the sources include, by their workspace path.",
        ),
        "srcs": attr.label_list(
            allow_files = [".c"],
            mandatory = True,
            doc = "C sources, compiled and linked together.",
        ),
        "_musl_cc": attr.label(
            default = Label("//tools/lab:musl_cc.sh"),
            executable = True,
            cfg = "exec",
            allow_single_file = True,
        ),
    },
)
