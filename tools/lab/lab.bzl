# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The lab pattern: the targets every lab has, declared in one place.

A lab lives in three packages, and each calls one macro of this file:

    labs/<lab>/BUILD       lab_starter(name = "<lab>", ...)
    solutions/<lab>/BUILD  lab_solution(name = "<lab>")
    tests/<lab>/BUILD      lab_tests(name = "<lab>", known_bad = {...})

Together they declare (docs/adding_a_lab.md, the recipe for a new lab):

    //labs/<lab>:<lab>                     the experiment on the learner's task.cc
    //labs/<lab>:lab_facts                 labs/<lab>/lab_facts.py: the lab's facts
                                           for the tools (question, picture,
                                           quick-versus-full facts)
    //labs/<lab>:doctor_rule               labs/<lab>/doctor_rule.{h,cc}: the
                                           lab's verdict in `bazel run //:doctor`
    //labs/<lab>:benchmark                 optional Google Benchmark target
    //solutions/<lab>:<lab>                the experiment on the reference task.cc
    //tests/<lab>:solution_test            the tests on the reference: must pass
    //tests/<lab>:design_<design>_test     the tests on another correct design
    //tests/<lab>:starter_test             the tests on the starter (manual)
    //tests/<lab>:starter_unsolved_test    passes while starter_test fails
                                           (manual, course_integrity: .ci/run)
    //tests/<lab>:known_bad_<bad>_test     passes while bad_<bad>.cc fails the
                                           tests its entry names (manual, the
                                           grader's own check: .ci/run)
    //tests/<lab>:<impl>_objects           the archives of each implementation
                                           (implementation_objects), beside its
                                           test binary
    //tests/<lab>:solution_order_test      each test's verdict is the same in
    //tests/<lab>:starter_order_test       the whole binary, alone and shuffled
                                           (solution: manual, the grader's;
                                           starter: manual, course_integrity)
    //tests/<lab>:grader                   test_suite of the grader's own checks
    //tests/<lab>:solution_experiment_test //solutions/<lab>:<lab> --quick runs,
                                           refuses a bad flag and shows the
                                           chapter's facts (experiment_checks)
    //tests/<lab>:<lab>                    test_suite of all of the above but
                                           starter_test (manual)

The model is tcmalloc's create_tcmalloc_testsuite: the tests of a lab,
compiled once, linked against several implementations of the same header.
Three kinds of target take part, each with its own word below:

    the test library  :suite, the cc_library of tests/<lab>/task_test.cc
                      (its deps besides task.h and GoogleTest: `suite_deps`),
                      compiled once; alwayslink, so every TEST() registers
    a test binary     the test library linked with one implementation:
                      :solution_test, :design_<design>_test and :starter_test
                      are cc_tests; :starter_suite and :known_bad_<bad>_suite
                      are cc_binaries that a wrapper test runs and judges
                      (tools/checks/xfail.py, tools/checks/order_check.py)
    a test_suite      Bazel's group of tests: :<lab> and :every_test

The word "suite" is left in the target and attribute names only, which
other packages and tools spell (tests/<lab>/BUILD, //:board, tools/*.py).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load("//tools/lab:copts.bzl", "ALLOCLAB_COPTS", "ALLOCLAB_C_COPTS", "ALLOCLAB_TEST_COPTS", "KNOWN_BAD_COPTS", "TEST_PRINTERS_COPTS")

# The grader's own checks (known-bad and order tests) are manual: they judge
# the suite, not the learner's course, and they are most of a cold
# `bazel test //...` (each known-bad source is a copy of its reference,
# compiled anew and linked into a test binary of its own; an order test
# runs a whole suite several times over). A learner's //... leaves them out; `bazel test //tests/<lab>:grader`
# runs one lab's, and .ci/run runs them all, by their tags known_bad and
# order, beside the plain build.
GRADER_TAGS = ["manual"]

def _task_file(stem, c_task):
    """A task source and its flags: stem.cc, or stem.c for a lab in C."""
    if c_task:
        return stem + ".c", ALLOCLAB_C_COPTS
    return stem + ".cc", ALLOCLAB_COPTS

def _pkg(kind, lab):
    return "//{}/{}".format(kind, lab)

def _all_files():
    """Every file of this package, for //:doc_names_test (docs that name it)."""
    native.filegroup(
        name = "all_files",
        srcs = native.glob(["**"]),
        visibility = ["//:__pkg__"],
    )

def _check_arg(lab, check):
    """One experiment check as one shell-quoted argument of the sh_test.

    A check of the wrong shape stops the build here, where the BUILD file
    that wrote it is named. Which operators there are is
    tools/report/check_results.py's to say (its OPERATORS, the one list): an
    unknown one fails the test with that list.
    """
    words = [word for word in check.split(" ") if word]

    # A fact that holds only where a condition does (a version's behaviour):
    # "VARIANT METRIC OPERATOR NUMBER where VARIANT METRIC OPERATOR NUMBER".
    conditional = len(words) == 9 and words[4] == "where"
    operators = [words[2], words[7]] if conditional else words[2:3]
    if ((len(words) != 4 and not conditional) or "'" in check or
        [op for op in operators if not op or [c for c in op.elems() if c not in "=!<>"]]):
        fail("lab_tests({}): experiment check '{}' is not 'VARIANT METRIC OPERATOR NUMBER' (optionally followed by 'where VARIANT METRIC OPERATOR NUMBER'; OPERATOR as tools/report/check_results.py knows them, e.g. >=)".format(
            lab,
            check,
        ))

    # Bazel splits `args` as a shell would: quoted, the check stays one word.
    return "'{}'".format(" ".join(words))

def _implementation_objects_impl(ctx):
    """The archives an implementation links, but for those of `leave_out`."""
    leave_out = [target.label for target in ctx.attr.leave_out]
    archives = []
    for linker_input in ctx.attr.implementation[CcInfo].linking_context.linker_inputs.to_list():
        if linker_input.owner in leave_out:
            continue
        for library in linker_input.libraries:
            archive = library.pic_static_library or library.static_library
            if archive:
                archives.append(archive)
    out = ctx.actions.declare_directory(ctx.label.name)

    # Each under a number of its own: two packages may both have a
    # libtask.a.
    ctx.actions.run_shell(
        outputs = [out],
        inputs = archives,
        arguments = [out.path] + [archive.path for archive in archives],
        command = 'out="$1"; shift; i=0; for a in "$@"; do ' +
                  'i=$((i + 1)); cp "$a" "$out/$i-${a##*/}"; done',
        mnemonic = "ImplementationObjects",
        progress_message = "Collecting the objects of %s" % ctx.attr.implementation.label,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

# <impl>_objects/: the static archives (lib*.a) an implementation of a lab's
# task links, its own and its dependencies', but for the lab's given half
# (`leave_out`): what the learner wrote, however their allocator is built,
# for a test that reads the storage their objects reserve.
_implementation_objects = rule(
    implementation = _implementation_objects_impl,
    attrs = {
        "implementation": attr.label(providers = [CcInfo]),
        "leave_out": attr.label_list(),
    },
)

def lab_starter(
        name,
        experiment_deps = [],
        experiment_data = [],
        task_deps = [],
        benchmark_srcs = [],
        benchmark_deps = [],
        doctor_rule_deps = [],
        c_task = False):
    """Declares a lab's starter package (labs/<name>/).

    Args:
      name: the lab, e.g. "allocator_cost"; also the experiment binary's name.
      experiment_deps: what experiment.cc needs besides task.h and lab_main.
      experiment_data: programs the experiment runs (e.g. the workload built
        against another libc, with this package's task).
      task_deps: what task.cc (starter and reference) may use besides task.h.
      benchmark_srcs: sources of an optional `:benchmark` Google Benchmark
        target that runs on the learner's task.cc.
      benchmark_deps: its extra dependencies.
      doctor_rule_deps: what doctor_rule.cc needs besides
        //common/machine:machine_facts, //common/machine:topology and abseil's strings
        (e.g. another lab's rule it builds on).
      c_task: the task is C (task.c, known-bad bad_<bad>.c), for a lab whose
        task is also compiled by musl-gcc; task.h must be C with extern "C".
    """
    task_src, task_copts = _task_file("task", c_task)
    _all_files()
    lab_users = [
        _pkg("labs", name) + ":__pkg__",
        _pkg("solutions", name) + ":__pkg__",
        _pkg("tests", name) + ":__pkg__",
    ]

    # The interface: what the learner implements and the tests check.
    cc_library(
        name = "task_header",
        hdrs = ["task.h"],
        copts = ALLOCLAB_COPTS,
        visibility = lab_users,
        deps = task_deps,
    )

    # The starter implementation: compiles and runs, task not done.
    cc_library(
        name = "task",
        srcs = [task_src],
        copts = task_copts,
        visibility = lab_users,
        deps = [":task_header"] + task_deps,
    )

    # The experiment, without a task: each binary links one implementation.
    cc_library(
        name = "experiment",
        srcs = ["experiment.cc"],
        copts = ALLOCLAB_COPTS,
        visibility = lab_users,
        deps = [
            ":task_header",
            "//common/harness:lab_main",
        ] + experiment_deps,
    )

    cc_binary(
        name = name,
        copts = ALLOCLAB_COPTS,
        data = experiment_data,
        # For //:tour, and for a lab's tests that run the starter.
        visibility = ["//:__pkg__", _pkg("tests", name) + ":__pkg__"],
        deps = [
            ":experiment",
            ":task",
        ],
    )

    # The lab's facts for the course's tools (tools/labs.py `facts()`): its
    # chapter's question and picture for tools/plot/plot.py, the facts its quick
    # and full runs share for tools/report/quick_full_test.py. A glob, so that a lab
    # without the file still builds, and //tools/report:quick_full_test and
    # //tools/plot:plot_test name the missing file.
    native.py_library(
        name = "lab_facts",
        srcs = native.glob(["lab_facts.py"]),
        visibility = ["//tools:__subpackages__"],
        deps = ["//common/harness:run_facts"],
    )

    # The lab's verdict in `bazel run //:doctor` (doctor_rule.h's
    # `<lab>::DoctorVerdict()`), which tools/doctor/BUILD's `lab_rules_cc`
    # collects for every lab of LABS. A glob, so that a lab without the
    # files still builds, and //tools/doctor:doctor_test names what it lacks.
    cc_library(
        name = "doctor_rule",
        srcs = native.glob(["doctor_rule.cc"]),
        hdrs = native.glob(["doctor_rule.h"]),
        copts = ALLOCLAB_COPTS,
        # The doctor's alone: what two labs' rules share is common's
        # (machine_facts.h), never one lab's rule calling another's.
        visibility = ["//tools:__subpackages__"],
        deps = [
            "//common/machine:machine_facts",
            "//common/machine:topology",
            "//common/machine:versions",
            "@com_google_absl//absl/status",
            "@com_google_absl//absl/strings",
            "@com_google_absl//absl/strings:str_format",
        ] + doctor_rule_deps,
    )

    if benchmark_srcs:
        cc_binary(
            name = "benchmark",
            srcs = benchmark_srcs,
            copts = ALLOCLAB_COPTS,
            tags = ["benchmark"],
            deps = [
                ":task",
                ":task_header",
                "@com_github_google_benchmark//:benchmark",
            ] + benchmark_deps,
        )

def lab_solution(name, experiment_data = [], c_task = False, task_visibility = []):
    """Declares a lab's reference package (solutions/<name>/).

    Args:
      name: the lab.
      experiment_data: as in lab_starter, built with the reference task.
      c_task: as in lab_starter.
      task_visibility: packages besides the lab's tests that may link the
        reference task, e.g. a later lab whose experiment judges with this
        lab's reference functions.
    """
    _all_files()
    starter = _pkg("labs", name)
    task_src, task_copts = _task_file("task", c_task)
    cc_library(
        name = "task",
        srcs = [task_src],
        copts = task_copts,
        visibility = [_pkg("tests", name) + ":__pkg__"] + task_visibility,
        deps = [starter + ":task_header"],
    )

    # The experiment first: the linker loads a library's objects only for
    # symbols already undefined, so the task must come after its user.
    cc_binary(
        name = name,
        copts = ALLOCLAB_COPTS,
        data = experiment_data,
        visibility = [
            _pkg("tests", name) + ":__pkg__",  # experiment test
            "//:__pkg__",  # //:tour --reference
        ],
        deps = [
            starter + ":experiment",
            ":task",
        ],
    )

def lab_design(name, lab, deps = []):
    """Declares a correct design that builds on the reference (solutions/<lab>/).

    solutions/<lab>/<name>.cc includes the reference's task.cc with the
    entry points it changes renamed out of the way, as a known-bad does
    (docs/adding_a_lab.md section 5), and defines them anew: a solution
    that is right in another way than the reference (reworded.cc: the
    same facts in other words), for lab_tests' `designs`.

    Args:
      name: the design, and its source's stem.
      lab: the lab.
      deps: what <name>.cc needs besides task.h and what task.h brings
        (the lab's task_deps, which the reference's task.cc uses).
    """
    cc_library(
        name = name,
        testonly = True,
        srcs = [name + ".cc"],
        copts = ALLOCLAB_COPTS,
        textual_hdrs = ["task.cc"],
        visibility = [_pkg("tests", lab) + ":__pkg__"],
        deps = [_pkg("labs", lab) + ":task_header"] + deps,
    )

def lab_tests(
        name,
        suite_deps = [],
        known_bad = {},
        known_bad_only_if = {},
        known_bad_deps = [],
        designs = {},
        implementation_data = {},
        implementation_objects = None,
        c_task = False,
        size = "small",
        experiment_checks = [],
        experiment_args = [],
        experiment_size = "small",
        experiment_tags = [],
        tags = [],
        test_tags = {},
        order_seeds = "1,2,random",
        suite_shards = 1):
    """Declares a lab's checks (tests/<name>/).

    Args:
      name: the lab.
      suite_deps: what the test library (task_test.cc) needs besides task.h
        and GoogleTest.
      known_bad: {"<bad>": ["Suite.Test", ...]}: plausible wrong solutions
        of task.h, each in this package's bad_<bad>.cc, with the tests it
        must fail. A name may be a --gtest_filter pattern without ':'
        (e.g. "Sizes/PrepareBufferSizeTest.FirstCallMakesNoPageFault/*");
        every test it matches counts. :known_bad_<bad>_test runs each named
        test alone and passes only when all of them fail on <bad> and pass
        on the reference; it says which named test passed instead. A crash,
        a skip, a name that matches nothing or a failure the reference
        shares (the machine cannot run that check) is not a rejection
        (tools/checks/xfail.py).
      known_bad_only_if: {"<bad>": "//label:probe"}: a <bad> that is wrong
        only on some machines (reading each page prefaults where the kernel
        has no zero page). The probe is a program that exits 0 when the
        condition under which <bad> must be rejected holds, 1 when it does
        not (the test then passes and prints the probe's reason), anything
        else when it cannot tell (the test fails).
      known_bad_deps: what every known-bad file needs besides task.h, e.g. a
        testonly library of this package with the parts they share, so that
        each file keeps only its own mistake.
      designs: {"<design>": "//solutions/<lab>:<design>"}: correct
        solutions that are not the reference's design (a library
        implementing task.h). :design_<design>_test runs every test on each
        and must pass, as :solution_test does: the tests judge the
        promises, never one design.
      implementation_data: {"<impl>": [label, ...]}: files the tests need
        per implementation ("solution", "starter", "known_bad_<bad>"), such
        as the workload built with that task against musl. They are data of
        the test binaries of <impl> (<impl>_test or <impl>_suite), which
        find them beside their own executable.
      implementation_objects: [label, ...]: the lab's given half (e.g. its
        page source and lock), which every implementation links. When
        given, each implementation's test binary has <impl>_objects/ beside
        it ("solution_objects", "design_<design>_objects", ...): the static
        archives of the implementation and of everything it links but
        these, so that a test can read what the learner's own code reserves
        (the storage its objects' sections hold, whatever files and
        libraries they wrote it in).
      c_task: the known-bad files are C (bad_<bad>.c), as the lab's task.
      size: test size of the test binaries and their wrappers.
      experiment_checks: facts the reference experiment must show in
        --quick mode, each "VARIANT METRIC OPERATOR NUMBER" (e.g.
        "fixed mmap_per_call >= 0.99"; OPERATOR one of == != < <= > >=;
        VARIANT@THREADS names one row of a lab with a row per thread count),
        checked on its results JSON by tools/report/check_results.py. A bound on
        page faults is stated in pages of the machine, never of 4 KiB:
        NUMBER "pages(262144)" is 262144 bytes in pages of the JSON's
        machine.page_bytes, "0.5*pages(262144)" half of that. When given,
        :solution_experiment_test runs //solutions/<name>:<name>.
      experiment_args: flags for that run besides --quick and --json, to keep
        it short (e.g. "--repetitions=1").
      experiment_size: test size of :solution_experiment_test.
      experiment_tags: its tags besides `tags`, e.g. "no_asan" for an
        experiment whose facts are about glibc's malloc, which a sanitizer
        replaces, while the tests' are not.
      tags: tags of every test of the lab (test binaries, known-bad, order and
        experiment tests). The sanitizer tags: tools/ci/legs.sh runs `bazel test
        //...` again under --config=asan --config=ubsan with
        --test_tag_filters=-no_asan, and under --config=tsan with
        -no_tsan. A lab whose checks are about what a sanitizer changes
        (glibc's malloc, which ASan and TSan replace; page faults, which
        ASan's shadow memory adds to) tags them, with a comment that says
        why, e.g.
            # Measures glibc's malloc; ASan and TSan replace it.
            tags = ["no_asan", "no_tsan"],
        Everything else must pass under both.
      test_tags: {"<test>": [tag, ...]}: tags of one test of the lab besides
        `tags`, by its name in this package ("solution_test",
        "solution_experiment_test", "known_bad_<bad>_test", ...). For a
        fact one machine cannot give, e.g. a page-fault count under
        qemu-user (tools/ci/test_arm64.sh's reasons):
            # Page faults under qemu-user are the emulator's.
            test_tags = {"solution_test": qemu_tags("faults")},
        (tools/lab/qemu.bzl).
      order_seeds: the --gtest_random_seed values of the order tests'
        shuffled runs (tools/checks/order_check.py's --seeds; "random" is
        drawn anew each run and printed). Fewer for a suite whose tests
        each run in a fresh process, where a shuffle can change little and
        each costs a whole run of the suite.
      suite_shards: the shard_count of :solution_test, each
        :design_<design>_test and :solution_order_test (not :starter_test,
        whose one verdict the learner reads, nor its order test): a suite of
        a minute or more under a sanitizer, or an order test, which runs its
        suite three times over, otherwise runs alone at the end of a phase
        on one core while the other waits.
    """
    _all_files()
    starter = _pkg("labs", name)
    impls = (["solution", "starter"] + ["known_bad_" + bad for bad in known_bad] +
             ["design_" + design for design in designs])
    for impl in implementation_data:
        if impl not in impls:
            fail("lab_tests({}): implementation_data names '{}', which is not one of {}".format(name, impl, " ".join(impls)))
    tests = ([
                 "solution_test",
                 "starter_test",
                 "starter_unsolved_test",
                 "solution_order_test",
                 "starter_order_test",
             ] +
             ["design_%s_test" % design for design in designs] +
             ["known_bad_%s_test" % bad for bad in known_bad] +
             (["solution_experiment_test"] if experiment_checks else []))
    for test in test_tags:
        if test not in tests:
            fail("lab_tests({}): test_tags names '{}', which is not one of {}".format(name, test, " ".join(tests)))
    for bad in known_bad_only_if:
        if bad not in known_bad:
            fail("lab_tests({}): known_bad_only_if names '{}', which is not in known_bad".format(name, bad))

    # Each implementation's archives, beside its test binaries
    # (implementation_objects).
    objects = {}
    if implementation_objects != None:
        libraries = {
            "solution": _pkg("solutions", name) + ":task",
            "starter": starter + ":task",
        }
        for design, library in designs.items():
            libraries["design_" + design] = library
        for bad in known_bad:
            libraries["known_bad_" + bad] = ":known_bad_" + bad
        for impl, library in libraries.items():
            _implementation_objects(
                name = impl + "_objects",
                testonly = True,
                implementation = library,
                leave_out = implementation_objects,
                # As the known-bad libraries: built by their tests only.
                tags = ["manual"] if impl.startswith("known_bad_") else [],
            )
            objects[impl] = [":%s_objects" % impl]

    # The test library, compiled once and linked into each test binary.
    cc_library(
        name = "suite",
        testonly = True,
        srcs = ["task_test.cc"],
        # Abseil's string_view and StatusOr print as text in every failure.
        copts = ALLOCLAB_TEST_COPTS + TEST_PRINTERS_COPTS,
        deps = [
            starter + ":task_header",
            "//common/testing:test_main",
            "//common/testing:test_printers",
            "@com_google_googletest//:gtest",
        ] + suite_deps,
        alwayslink = True,  # the TEST()s register themselves; keep them all
    )

    cc_test(
        name = "solution_test",
        size = size,
        shard_count = suite_shards,
        copts = ALLOCLAB_TEST_COPTS,
        tags = tags + test_tags.get("solution_test", []),
        data = implementation_data.get("solution", []) + objects.get("solution", []),
        deps = [
            ":suite",
            _pkg("solutions", name) + ":task",
        ],
    )

    for design, library in designs.items():
        cc_test(
            name = "design_" + design + "_test",
            size = size,
            shard_count = suite_shards,
            copts = ALLOCLAB_TEST_COPTS,
            # correct_design: it judges the grader (does the suite pass every
            # correct allocator?), as the known-bads do from the other side,
            # so it is the grader's (GRADER_TAGS): a learner's //... leaves
            # it out (in allocator_design the two designs' suites were 123
            # s of the 477 s of test time of a cold //...), .ci/run's
            # grader phase runs it, tools/ci/legs.sh's sanitizer and Debian
            # 13 legs name it, and tools/ci/test_arm64.sh builds it and
            # leaves its run to the x86-64 legs.
            tags = GRADER_TAGS + ["correct_design"] + tags +
                   test_tags.get("design_" + design + "_test", []),
            data = (implementation_data.get("design_" + design, []) +
                    objects.get("design_" + design, [])),
            deps = [
                ":suite",
                library,
            ],
        )

    cc_test(
        name = "starter_test",
        size = size,
        copts = ALLOCLAB_TEST_COPTS,
        data = implementation_data.get("starter", []) + objects.get("starter", []),
        tags = ["manual"] + tags + test_tags.get("starter_test", []),  # fails until the learner is done
        deps = [
            ":suite",
            starter + ":task",
        ],
    )

    # The starter's test binary, run by :starter_unsolved_test and
    # :starter_order_test (and //:board): every test must fail, cleanly.
    cc_binary(
        name = "starter_suite",
        testonly = True,
        copts = ALLOCLAB_TEST_COPTS,
        data = implementation_data.get("starter", []) + objects.get("starter", []),
        visibility = ["//:__pkg__"],  # //:board runs it on the learner's task.cc
        deps = [
            ":suite",
            starter + ":task",
        ],
    )

    # It turns red when the learner succeeds: it leaves `bazel test //...`
    # (manual), and .ci/run runs it by its tag.
    native.py_test(
        name = "starter_unsolved_test",
        size = size,
        tags = [
            "course_integrity",
            "manual",
        ] + tags + test_tags.get("starter_unsolved_test", []),
        srcs = ["//tools/checks:xfail.py"],
        main = "//tools/checks:xfail.py",
        python_version = "PY3",
        deps = ["//tools/checks:gtest_run"],
        args = ["--suite=$(rootpath :starter_suite)"],
        data = [":starter_suite"],
    )
    xfails = [":starter_unsolved_test"]

    for bad, tests in known_bad.items():
        if type(tests) != "list" or not tests:
            fail("lab_tests({}): known_bad['{}'] must list the suite tests it fails, e.g. [\"Suite.Test\"]".format(name, bad))
        for test in tests:
            if not test or " " in test or ":" in test or "'" in test or test.startswith("-"):
                fail("lab_tests({}): known_bad['{}'] names '{}', which is not a test name or a pattern without ':'".format(name, bad, test))
        impl = "known_bad_" + bad
        bad_src, bad_copts = _task_file("bad_" + bad, c_task)
        cc_library(
            name = impl,
            testonly = True,
            srcs = [bad_src],
            copts = bad_copts + KNOWN_BAD_COPTS,
            tags = ["manual"],  # built by :known_bad_<bad>_test only
            deps = [starter + ":task_header"] + known_bad_deps,
        )
        cc_binary(
            name = impl + "_suite",
            testonly = True,
            copts = ALLOCLAB_TEST_COPTS,
            tags = ["manual"],  # built by :known_bad_<bad>_test only
            data = implementation_data.get(impl, []) + objects.get(impl, []),
            deps = [
                ":suite",
                ":" + impl,
            ],
        )
        args = [
            "--suite=$(rootpath :{}_suite)".format(impl),
            "--reference=$(rootpath :solution_test)",
        ]
        data = [":{}_suite".format(impl), ":solution_test"]
        probe = known_bad_only_if.get(bad)
        if probe:
            args.append("--only_if=$(rootpath {})".format(probe))
            data.append(probe)
        native.py_test(
            name = impl + "_test",
            size = size,
            srcs = ["//tools/checks:xfail.py"],
            main = "//tools/checks:xfail.py",
            python_version = "PY3",
            deps = ["//tools/checks:gtest_run"],
            args = args + ["'{}'".format(test) for test in tests],
            # "known_bad": the grader's own check (GRADER_TAGS), which
            # .ci/run runs in the plain build only. A known-bad's one job is
            # to fail its tests; under ASan and TSan it proves nothing more
            # and costs a sanitized test binary each.
            tags = GRADER_TAGS + ["known_bad"] + tags + test_tags.get(impl + "_test", []),
            data = data,
        )
        xfails.append(":{}_test".format(impl))

    # A verdict must not depend on test order (tools/checks/order_check.py): each
    # test gives the same verdict in its test binary, alone and shuffled
    # (order_seeds: by default two fixed seeds and one drawn per run,
    # printed). On the reference in
    # //...; on the starter by the course_integrity tag, since it runs the
    # learner's task.cc.
    order_tests = []

    # Only the reference's order test shards: its shards are those of
    # :solution_test, so a test that passes only after a neighbour of the
    # whole order either meets it in its shard (and its alone run
    # disagrees) or fails :solution_test's shard. :starter_test runs
    # whole, and a shard would hide such a test from the starter's check.
    for impl, binary, order_tags, order_shards in [
        ("solution", ":solution_test", GRADER_TAGS, suite_shards),
        ("starter", ":starter_suite", ["course_integrity", "manual"], 1),
    ]:
        native.py_test(
            name = impl + "_order_test",
            # It runs the whole test binary several times over (each test
            # alone, then shuffled once per order_seeds): under TSan a binary of
            # property tests takes minutes.
            size = "large",
            # Each shard checks the tests GoogleTest's sharding gives it
            # (tools/checks/order_check.py).
            shard_count = order_shards,
            # "order": .ci/run runs these in the plain build only (order is
            # the same fact under a sanitizer, at several times the cost).
            tags = ["order"] + order_tags + tags + test_tags.get(impl + "_order_test", []),
            srcs = ["//tools/checks:order_check.py"],
            main = "//tools/checks:order_check.py",
            python_version = "PY3",
            deps = ["//tools/checks:gtest_run"],
            args = [
                "--seeds=" + order_seeds,
                "$(rootpath {})".format(binary),
            ],
            data = [binary],
        )
        order_tests.append(":{}_order_test".format(impl))

    experiment_tests = []
    if experiment_checks:
        experiment = _pkg("solutions", name) + ":" + name
        native.sh_test(
            name = "solution_experiment_test",
            size = experiment_size,
            tags = experiment_tags + tags + test_tags.get("solution_experiment_test", []),
            srcs = ["//tools/lab:experiment_test.sh"],
            args = [
                name,
                "$(rootpath {})".format(experiment),
                "$(rootpath //tools/report:check_results)",
            ] + experiment_args + ["--"] + [
                _check_arg(name, check)
                for check in experiment_checks
            ],
            data = [
                experiment,
                "//tools/report:check_results",
            ],
        )
        experiment_tests.append(":solution_experiment_test")

    # Every test of this package that `bazel test //...` runs: a test_suite
    # without `tests` takes each non-manual test of the BUILD file, the
    # ones declared after this macro too. //:course_integrity_test's
    # queries search it for a test that runs the learner's task.cc, which
    # solving the lab would turn red.
    native.test_suite(
        name = "every_test",
        visibility = ["//:__pkg__"],
    )

    # The grader's own checks on this lab (GRADER_TAGS): every known-bad
    # rejected by the tests it names, every other correct design passing
    # the suite, and the reference's verdicts the same in any order.
    # `bazel test //tests/<lab>:grader` after a change to the suite;
    # .ci/run runs all of them by their tags.
    native.test_suite(
        name = "grader",
        tags = ["manual"],
        tests = [x for x in xfails if x != ":starter_unsolved_test"] +
                [":design_%s_test" % d for d in designs] +
                [":solution_order_test"],
    )

    native.test_suite(
        name = name,
        # Manual: it holds the starter's check, which //... must leave out.
        tags = ["manual"],
        tests = ([":solution_test"] + [":design_%s_test" % d for d in designs] +
                 xfails + order_tests + experiment_tests),
        visibility = ["//:__pkg__"],  # //:course_integrity_test's queries
    )

def lab_rules_source(labs):
    """tools/doctor/lab_rules.cc for the doctor: `LabRules()`, one row per lab.

    Each lab's row names its labs/<lab>/doctor_rule.h's `DoctorVerdict()`,
    in the order of `labs` (the root's labs.bzl); a lab without that header
    gets a null verdict, which //tools/doctor:doctor_test reports by the lab's
    name. Written by tools/doctor/BUILD's `lab_rules_cc` genrule.

    Args:
      labs: the labs, in course order.

    Returns:
      The C++ source, as one string.
    """
    lines = [
        "// Written by //tools/doctor:lab_rules_cc from the root's labs.bzl.",
        "#include <vector>",
        "#include \"tools/doctor/doctor.h\"",
    ]
    rows = []
    for lab in labs:
        header = "labs/{}/doctor_rule.h".format(lab)
        rule = "ALLOCLAB_RULE_" + lab
        lines += [
            "#if __has_include(\"{}\")".format(header),
            "#include \"{}\"".format(header),
            "#define {} &{}::DoctorVerdict".format(rule, lab),
            "#else",
            "#define {} nullptr".format(rule),
            "#endif",
        ]
        rows.append("      {{\"{}\", {}}},".format(lab, rule))
    lines += [
        "namespace alloclab {",
        "const std::vector<LabRule>& LabRules() {",
        "  static const std::vector<LabRule>* rules = new std::vector<LabRule>{",
    ] + rows + [
        "  };",
        "  return *rules;",
        "}",
        "}  // namespace alloclab",
    ]
    return "\n".join(lines) + "\n"
