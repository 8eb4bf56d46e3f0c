# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The one way the tools run a GoogleTest suite and read its verdicts.

tools/checks/xfail.py (the known-bad tests), tools/checks/order_check.py
(the order tests) and tools/report/board.py (//:board) each run a lab's
suite as a child and read, per test, whether it passed, failed or was
skipped, with GoogleTest's message. They do it here, once: the same
environment, the same report (--gtest_output=xml, which carries skip reasons
in every GoogleTest the course supports), the same verdicts.

The child must not obey an outer Bazel test's variables: it would write the
outer test's XML report (XML_OUTPUT_FILE, GTEST_OUTPUT), run only the outer
test's --test_filter (TESTBRIDGE_TEST_ONLY, GTEST_FILTER), take part in its
sharding and premature-exit protocol (TEST_SHARD_*, TEST_TOTAL_SHARDS,
TEST_PREMATURE_EXIT_FILE), or shuffle as the outer run asked
(GTEST_SHUFFLE, GTEST_RANDOM_SEED) rather than as the checker does.

Example:

    run = gtest_run.run_suite(binary, ["--gtest_filter=Foo.*"], workdir)
    if run.clean():
        for name, test in run.ran.items():
            print(name, test.verdict, test.message)
"""

import os
import re
import signal
import subprocess
import tempfile
import xml.etree.ElementTree as ElementTree

OUTER_TEST_VARIABLES = (
    "XML_OUTPUT_FILE",
    "TESTBRIDGE_TEST_ONLY",
    "TEST_PREMATURE_EXIT_FILE",
    "TEST_SHARD_INDEX",
    "TEST_TOTAL_SHARDS",
    "TEST_SHARD_STATUS_FILE",
    "GTEST_SHARD_INDEX",
    "GTEST_TOTAL_SHARDS",
    "GTEST_SHARD_STATUS_FILE",
    "GTEST_OUTPUT",
    "GTEST_FILTER",
    "GTEST_SHUFFLE",
    "GTEST_RANDOM_SEED",
)

PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"
NOT_RUN = "not run"


def inner_suite_environment(**overrides):
    """This process's environment without the outer test's variables."""
    env = {k: v for k, v in os.environ.items() if k not in OUTER_TEST_VARIABLES}
    env.update(overrides)
    return env


def describe_exit(status):
    """How a child ended: "exited with 3", "was killed by SIGSEGV"."""
    if status < 0:
        try:
            return "was killed by %s" % signal.Signals(-status).name
        except ValueError:
            return "was killed by signal %d" % -status
    return "exited with %d" % status


class TestResult:
    """One test's verdict and GoogleTest's message (failure or skip reason)."""

    def __init__(self, verdict, message=""):
        self.verdict = verdict
        self.message = message

    def __repr__(self):
        return "TestResult(%r, %r)" % (self.verdict, self.message)


def parse_report(xml_text):
    """{"Suite.Test": TestResult} from a --gtest_output=xml report.

    Raises ElementTree.ParseError for a report that is not XML.
    """
    results = {}
    root = ElementTree.fromstring(xml_text)
    for case in root.iter("testcase"):
        name = "%s.%s" % (case.get("classname", "?"), case.get("name", "?"))
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        skipped = case.find("skipped")
        if case.get("status") == "notrun":
            results[name] = TestResult(NOT_RUN)  # filtered out or DISABLED_
        elif failure is not None:
            results[name] = TestResult(
                FAILED, failure.get("message") or failure.text or "")
        elif skipped is not None or case.get("result") == "skipped":
            results[name] = TestResult(
                SKIPPED, (skipped.get("message") or skipped.text or "")
                if skipped is not None else "")
        else:
            results[name] = TestResult(PASSED)
    return results


class SuiteRun:
    """One run of a GoogleTest binary: exit status, output, per-test results.

    `tests` holds every test of the report, `ran` those that ran; `problem`
    says why there is no usable report (None when there is one).
    """

    def __init__(self, binary, status, output, tests, problem):
        self.binary = binary
        self.status = status
        self.output = output
        self.tests = tests
        self.ran = {n: t for n, t in tests.items() if t.verdict != NOT_RUN}
        self.problem = problem

    @property
    def verdicts(self):
        """{name: verdict} of the tests that ran."""
        return {n: t.verdict for n, t in self.ran.items()}

    def clean(self):
        """The suite ran to the end: exit 0 or 1 and a readable report."""
        return self.problem is None and self.status in (0, 1)

    def describe_exit(self):
        return describe_exit(self.status)

    def tail(self, lines=40):
        return "\n".join(self.output.rstrip().split("\n")[-lines:])


def run_suite(binary, flags, workdir, env=None, timeout=None):
    """Runs `binary` with `flags` and reads its report; a SuiteRun.

    `env` defaults to inner_suite_environment(). Raises
    subprocess.TimeoutExpired after `timeout` seconds.
    """
    fd, report = tempfile.mkstemp(dir=workdir, prefix="gtest_", suffix=".xml")
    os.close(fd)
    os.unlink(report)  # written by the suite only if it runs to the end
    try:
        proc = subprocess.run(
            [binary, "--gtest_output=xml:" + report] + list(flags),
            env=inner_suite_environment() if env is None else env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            check=False,
        )
        output = proc.stdout.decode("utf-8", "replace")
        tests, problem = {}, None
        try:
            with open(report, encoding="utf-8", errors="replace") as f:
                tests = parse_report(f.read())
        except OSError:
            problem = "no report (a crash?)"
        except ElementTree.ParseError as e:
            problem = "its XML report is unreadable (%s)" % e
    finally:
        if os.path.exists(report):
            os.unlink(report)
    return SuiteRun(binary, proc.returncode, output, tests, problem)


def filter_matches(gtest_filter, name):
    """Whether GoogleTest's --gtest_filter=`gtest_filter` selects the test
    `name` ("Suite.Test", "Prefix/Suite.Test/param"), as GoogleTest decides:
    ':'-separated patterns where '*' is any string and '?' one character,
    then optionally '-' and patterns that take tests out again."""
    positive, _, negative = gtest_filter.partition("-")

    def any_matches(patterns):
        for pattern in patterns.split(":"):
            if not pattern:
                continue
            regex = "".join(".*" if c == "*" else "." if c == "?" else
                            re.escape(c) for c in pattern)
            if re.fullmatch(regex, name, re.DOTALL):
                return True
        return False

    return (any_matches(positive or "*") and
            not (negative and any_matches(negative)))


def list_tests(binary, gtest_filter=None, env=None):
    """The names of the tests `binary` has (GoogleTest's --gtest_list_tests),
    those `gtest_filter` selects when given: ["Suite.Test",
    "Prefix/Suite.Test/param", ...]. Raises CalledProcessError when the
    binary cannot list them."""
    flags = ["--gtest_list_tests"]
    if gtest_filter is not None:
        flags.append("--gtest_filter=" + gtest_filter)
    out = subprocess.run(
        [binary] + flags,
        env=inner_suite_environment() if env is None else env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True,
    ).stdout.decode("utf-8", "replace")
    names, suite = [], None
    for line in out.splitlines():
        if not line.strip():
            continue
        # "Suite." (a comment may follow: "  # TypeParam = ..."), then each
        # test indented ("  Name  # GetParam() = ...").
        if not line.startswith(" "):
            suite = line.split("#", 1)[0].strip()
        elif suite is not None:
            names.append(suite + line.split("#", 1)[0].strip())
    return names
