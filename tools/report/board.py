#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The progress board: which labs your task.cc files solve, and what fails.

    bazel run //:board

For each lab it runs the lab's suite (tests/<lab>/task_test.cc) against
your labs/<lab>/task.cc, as `bazel test //tests/<lab>:starter_test` would,
and prints one line per lab: solved or not, how many checks pass, and under
it each failing check's name with the first line of its message (and its
last, where the test says in its own words what went wrong). A teacher gets
the same from a learner's checkout (docs/teaching.md).

A suite with Validator* tests (lab allocator_design's: the allocator is
correct) gets one more line, how many of them pass, apart from the rest
(the design's promises). A lab taken in stages (`--stages=LAB=JSON`, the
lab's tests/<lab>/stages.bzl as //tests/<lab>:stages_json writes it) gets
the highest stage whose tests all pass, from the same run of its suite,
and the next stage to take with its command. And a lab whose experiment
ends in lab jemalloc_adoption's decision (its lab_facts.py names your
allocator's row, DECISION_ROW) gets the
decision about your allocator (and, where the experiment scores it
(tools/report/results.py's SCORES), its score, read as the tour reads it), from
the results JSON of the last `bazel run //:tour`: the newest
alloclab-tour-* folder where you typed `bazel run`, or the folder
`--tour=DIR` names; without one it says to run the tour (the board runs
suites, not experiments).

Exit status: 0 when every suite ran (solved or not), 1 when a suite could
not run or crashed, 2 for bad arguments. `--labs=a,b` shows only those.

Arguments (//:board writes them): [--stages=LAB=JSON] LAB=SUITE_BINARY ...
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from tools.checks import gtest_run
from tools import labs as course_labs
from tools.report.results import SCORES, beside_line, score_of

# A suite that runs longer than this is stuck, not slow: each takes seconds.
SUITE_TIMEOUT_S = 300

# Longest message shown per failing check, so that the board stays a board.
MESSAGE_WIDTH = 150

# The suites' tests of correctness, counted apart: GoogleTest suite names
# that start with this (ValidatorTest, ValidatorThreadsTest, ...).
VALIDATOR_PREFIX = "Validator"


# decision_row: your allocator's name in the table of a lab whose experiment
# ends in lab jemalloc_adoption's Recommend() over a table with it (the
# lab's own fact, DECISION_ROW of labs/<lab>/lab_facts.py), or None. The
# board shows whether the rule recommends yours.
def decision_row(lab):
    if lab not in course_labs.names():
        return None
    return getattr(course_labs.facts(lab), "DECISION_ROW", None)


# How the experiment states the decision, in the results JSON's notes: its
# own answer for yours against glibc alone ("memo: yours over glibc (...):
# recommended. ..." or "not recommended. <why>"); failing that, lab
# jemalloc_adoption's memo over the whole table, and its reason that names
# yours.
DUEL_NOTE = re.compile(
    r"^memo: (?P<yours>\w+) over glibc(?: \(.*?\))?: "
    r"(?P<verdict>recommended|not recommended)\.?\s*(?P<why>.*)$")
RECOMMENDED_NOTE = "memo: recommended: "
MEMO_NOTE = "memo: "

# The folders `bazel run //:tour` makes when given no --out
# (tools/report/tour.py).
TOUR_FOLDERS = "alloclab-tour-*"


class LabResult:
    """One lab's line on the board."""

    def __init__(self, lab):
        self.lab = lab
        self.passed = 0
        self.total = 0      # checks that ran: passed or failed
        self.skipped = []   # (name, reason)
        self.failures = []  # (name, first message line)
        self.problem = None  # why the suite gave no verdict, or None
        self.validator = None  # (passed, ran) of the Validator* tests
        self.decision = None   # a line on the lab's decision, or None
        self.score = None      # a line on the lab's score, or None
        self.verdicts = {}     # {test name: verdict} of the tests that ran
        self.stages = []       # lines on the lab's stages, or []

    @property
    def solved(self):
        return (self.problem is None and self.total > 0 and
                not self.failures and self.passed == self.total)


def first_line(message):
    """The failure's location and first line, plus its last line when the
    test added its own words there (GoogleTest puts them last)."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    location = ""
    # GoogleTest starts with "path/to/file.cc:83" on a line of its own.
    head = lines[0]
    if ":" in head and head.rsplit(":", 1)[1].isdigit() and " " not in head:
        location = os.path.basename(head) + ": "
        lines = lines[1:] or ["(no message)"]
    text = lines[0]
    last = lines[-1]
    if len(lines) > 1 and not last.startswith("Which is:"):
        text += " ... " + last
    text = location + text
    if len(text) > MESSAGE_WIDTH:
        text = text[:MESSAGE_WIDTH - 3] + "..."
    return text


def suite_name(test_name):
    """GoogleTest's suite of "Prefix/Suite.Name/0": "Suite"."""
    suite = test_name.split(".", 1)[0]
    return suite.rsplit("/", 1)[-1]


def validator_counts(suite_run):
    """(passed, ran) of the Validator* tests that ran, or None if none."""
    passed = ran = 0
    for name, test in suite_run.ran.items():
        if not suite_name(name).startswith(VALIDATOR_PREFIX):
            continue
        if test.verdict == gtest_run.SKIPPED:
            continue
        ran += 1
        passed += test.verdict != gtest_run.FAILED
    return (passed, ran) if ran else None


def newest_tour(base):
    """The newest tour folder under `base`, or None."""
    folders = [f for f in glob.glob(os.path.join(base, TOUR_FOLDERS))
               if os.path.isdir(f)]
    return max(folders, key=os.path.getmtime) if folders else None


def decision_line(lab, yours, tour):
    """What lab jemalloc_adoption's rule decided about `yours`, from the
    tour's JSON of `lab` in folder `tour` (None: no tour found)."""
    if tour is None:
        return ("jemalloc_adoption's rule: run the tour to see whether it "
                "recommends %s over glibc (bazel run //:tour; the board "
                "runs only the suites)" % yours)
    path = os.path.join(tour, lab + ".json")
    where = os.path.basename(os.path.normpath(tour))
    try:
        with open(path, encoding="utf-8") as f:
            notes = json.load(f).get("notes", [])
    except FileNotFoundError:
        return ("jemalloc_adoption's rule: the tour in %s has no %s.json: "
                "run the tour again" % (where, lab))
    except (OSError, ValueError, AttributeError) as e:
        return ("jemalloc_adoption's rule: cannot read %s (%s): run the "
                "tour again" % (path, e))
    if not isinstance(notes, list):
        notes = []
    notes = [n for n in notes if isinstance(n, str)]
    for note in notes:
        duel = DUEL_NOTE.match(note)
        if duel is None or duel.group("yours") != yours:
            continue
        if duel.group("verdict") == "recommended":
            return ("jemalloc_adoption's rule recommends %s over glibc "
                    "(tour in %s)" % (yours, where))
        # Its first sentence: the rule that failed, and where (the note
        # goes on with every workload's verdict, for the table's reader).
        why = re.split(r"(?<=\.)\s+(?=[A-Z])", duel.group("why").strip())[0]
        return ("jemalloc_adoption's rule does not recommend %s over "
                "glibc%s (tour in %s)" % (yours, ": " + why if why else "",
                                          where))
    chosen = [n[len(RECOMMENDED_NOTE):].strip() for n in notes
              if n.startswith(RECOMMENDED_NOTE)]
    if not chosen:
        return ("jemalloc_adoption's rule: %s.json of the tour in %s states "
                "no recommendation (no note starts %r)" %
                (lab, where, RECOMMENDED_NOTE))
    if chosen[0] == yours:
        return ("jemalloc_adoption's rule recommends %s (tour in %s)" %
                (yours, where))
    # The memo's reason that names yours says why not.
    named = re.compile(r"\b%s\b" % re.escape(yours))
    reasons = [n[len(MEMO_NOTE):] for n in notes
               if n.startswith(MEMO_NOTE) and not n.startswith(
                   RECOMMENDED_NOTE) and named.search(n)]
    return ("jemalloc_adoption's rule recommends %s, not %s%s (tour in %s)" %
            (chosen[0], yours, ": " + reasons[0] if reasons else "", where))


def score_line(lab, tour):
    """The score of your allocator in the tour's JSON of `lab`, read as the
    tour reads it (tools/report/results.py's score_of()), beside the reference's
    and the other designs' (beside_line()), or None when there is no
    tour, no JSON or no score in it (decision_line() says what to run)."""
    if tour is None:
        return None
    try:
        with open(os.path.join(tour, lab + ".json"), encoding="utf-8") as f:
            score = score_of(lab, json.load(f))
    except (OSError, ValueError):
        return None
    if score is None or score[1] is None:
        return None
    beside = beside_line(lab)
    return "%s: %s; tour in %s%s" % (
        score[0], score[1], os.path.basename(os.path.normpath(tour)),
        "; beside: " + beside if beside else "")


def stage_lines(stages, verdicts):
    """The board's lines on a lab taken in stages: the highest stage whose
    tests all pass, each stage's count, and the next stage to take.

    `stages` is the lab's stages.json (tests/<lab>/stages.bzl); `verdicts`
    the {test name: verdict} of one run of its whole suite, sorted into the
    stages by each stage's --gtest_filter, as its target runs it. A stage
    passes when it ran tests and none failed (a skipped one is neither).
    """
    counts = []  # (stage, passed, ran, ok)
    for stage in stages:
        mine = [v for n, v in verdicts.items()
                if gtest_run.filter_matches(stage["filter"], n)]
        ran = [v for v in mine if v != gtest_run.SKIPPED]
        passed = sum(1 for v in ran if v != gtest_run.FAILED)
        counts.append((stage, passed, len(ran),
                       bool(mine) and passed == len(ran)))
    done = [stage["number"] for stage, _, _, ok in counts if ok]

    def show(rows):
        return ", ".join("%d %s %d/%d" % (stage["number"], stage["name"],
                                          passed, ran)
                         for stage, passed, ran, _ in rows)

    head = ("stage %d of %d passed" % (max(done), len(stages)) if done
            else "no stage of %d passed yet" % len(stages))
    passing = [row for row in counts if row[3]]
    failing = [row for row in counts if not row[3]]
    parts = [show(passing)] if passing else []
    if failing:
        parts.append("not yet: " + show(failing))
    lines = ["stages: %s (%s)" % (head, "; ".join(parts))]
    if failing:
        stage = failing[0][0]
        lines.append("next, stage %d %s (%s): bazel test %s" % (
            stage["number"], stage["name"], stage["promises"],
            stage["target"]))
    return lines


def load_stages(arg):
    """argparse type of --stages=LAB=JSON: (lab, the stages)."""
    lab, sep, path = arg.partition("=")
    if not sep or not lab or not path:
        raise argparse.ArgumentTypeError("'%s' is not LAB=JSON" % arg)
    try:
        with open(path, encoding="utf-8") as f:
            stages = json.load(f)
    except (OSError, ValueError) as e:
        raise argparse.ArgumentTypeError("cannot read %s: %s" % (path, e))
    return lab, stages


def lab_result(lab, suite_run):
    """A LabResult from one run of the lab's suite (checks/gtest_run.py)."""
    result = LabResult(lab)
    result.validator = validator_counts(suite_run)
    result.verdicts = suite_run.verdicts
    for name, test in suite_run.ran.items():
        if test.verdict == gtest_run.FAILED:
            result.total += 1
            result.failures.append((name, first_line(test.message)))
        elif test.verdict == gtest_run.SKIPPED:
            # A check this machine cannot make (the test says why): neither
            # passed nor failed, and shown.
            result.skipped.append((name, first_line(test.message)))
        else:
            result.total += 1
            result.passed += 1
    if suite_run.problem is not None:
        last = [line for line in suite_run.output.splitlines() if line.strip()]
        result.problem = "its suite %s before writing a report%s" % (
            suite_run.describe_exit(),
            (": " + last[-1].strip()) if last else "")
    elif suite_run.status not in (0, 1):
        result.problem = "its suite %s" % suite_run.describe_exit()
    elif suite_run.status == 1 and not result.failures:
        result.problem = "its suite exited with 1 but reported no failed check"
    elif result.total == 0:
        result.problem = "its suite ran no check"
    return result


def run_suite(lab, binary, tmp):
    """Runs one lab's suite binary, as `bazel test` would, and reads it."""
    if not os.access(binary, os.X_OK):
        result = LabResult(lab)
        result.problem = (
            "%s is not an executable (build //tests/%s:starter_suite)" %
            (binary, lab))
        return result
    test_tmp = os.path.join(tmp, lab)
    os.makedirs(test_tmp, exist_ok=True)
    try:
        suite_run = gtest_run.run_suite(
            binary, [], tmp,
            env=gtest_run.inner_suite_environment(TEST_TMPDIR=test_tmp),
            timeout=SUITE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        result = LabResult(lab)
        result.problem = "its suite did not finish in %d s" % SUITE_TIMEOUT_S
        return result
    return lab_result(lab, suite_run)


def render(results):
    """The board as text."""
    width = max([len("lab")] + [len(r.lab) for r in results])
    lines = ["%-*s  %-8s  %s" % (width, "lab", "status", "checks passed")]
    for r in results:
        if r.problem:
            status, checks = "broken", "-"
        else:
            status = "solved" if r.solved else "not yet"
            checks = "%d/%d" % (r.passed, r.total)
            if r.skipped:
                checks += " (%d skipped)" % len(r.skipped)
        lines.append(("%-*s  %-8s  %s" %
                     (width, r.lab, status, checks)).rstrip())
        if r.problem:
            lines.append("    %s" % r.problem)
        if r.validator is not None and not r.problem:
            passed, ran = r.validator
            lines.append("    validator (Validator* tests): %d/%d passed; "
                         "the design's promises: %d/%d" % (
                             passed, ran, r.passed - passed, r.total - ran))
        if not r.problem:
            lines.extend("    %s" % line for line in r.stages)
        if r.decision is not None:
            lines.append("    %s" % r.decision)
        if r.score is not None:
            lines.append("    %s" % r.score)
        for name, message in r.failures:
            lines.append("    FAILED %s: %s" % (name, message))
        for name, reason in r.skipped:
            lines.append("    skipped %s: %s" % (name, reason))
    solved = sum(1 for r in results if r.solved)
    lines.append("")
    lines.append("%d of %d labs solved." % (solved, len(results)))
    if solved < len(results):
        lines.append("To work on one: bazel test //tests/<lab>:starter_test "
                     "--test_output=errors")
    return "\n".join(lines)


def lab_and_binary(arg):
    """argparse type of a LAB=SUITE_BINARY argument."""
    lab, sep, binary = arg.partition("=")
    if not sep or not lab or not binary:
        raise argparse.ArgumentTypeError("'%s' is not LAB=SUITE_BINARY" % arg)
    return lab, binary


def parse_args(argv):
    """([(lab, binary)] to run, the tour folder or None, {lab: stages}),
    from argv; exits 2 with usage on bad input."""
    parser = argparse.ArgumentParser(
        prog="board", description=__doc__.split("\n")[0])
    parser.add_argument("--labs", help="only these labs, comma-separated")
    parser.add_argument(
        "--tour", metavar="DIR",
        help="the folder of a `bazel run //:tour` (default: the newest "
             "alloclab-tour-* where bazel run was typed)")
    parser.add_argument(
        "--stages", metavar="LAB=JSON", type=load_stages, action="append",
        default=[], help="a lab taken in stages: its stages.json")
    parser.add_argument("suites", nargs="+", type=lab_and_binary,
                        metavar="LAB=SUITE_BINARY")
    args = parser.parse_args(argv)
    labs = args.suites
    if args.labs is not None:
        only = [lab for lab in args.labs.split(",") if lab]
        known = [lab for lab, _ in labs]
        unknown = [lab for lab in only if lab not in known]
        if unknown or not only:
            parser.error("--labs: unknown lab %s; the labs are %s" % (
                ", ".join(unknown) or "(none given)", ", ".join(known)))
        labs = [(lab, binary) for lab, binary in labs if lab in only]
    base = os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd()
    tour = None
    if args.tour is not None:
        tour = os.path.join(base, args.tour)
        if not os.path.isdir(tour):
            parser.error("--tour: %s is not a folder" % tour)
    elif any(decision_row(lab) for lab, _ in labs):
        tour = newest_tour(base)
    stages = dict(args.stages)
    given = [lab for lab, _ in args.suites]
    unknown = [lab for lab in stages if lab not in given]
    if unknown:
        parser.error("--stages: no suite is given for %s" % ", ".join(unknown))
    return labs, tour, stages


def main(argv):
    labs, tour, stages = parse_args(argv[1:])
    print("Your labs/<lab>/task.cc against each lab's suite:\n")
    # A suite takes seconds to a minute (lab 4's threads, lab 7's children):
    # say what runs, so that a first board is not minutes of silence.
    print("Running %d suites one after the other; each line below is one "
          "starting, the board comes when all have run." % len(labs),
          file=sys.stderr, flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="alloclab_board_") as tmp:
        for n, (lab, binary) in enumerate(labs, 1):
            print("  [%d/%d] %s: running its suite on your task.cc ..." %
                  (n, len(labs), lab), file=sys.stderr, flush=True)
            results.append(run_suite(lab, binary, tmp))
            if lab in stages:
                results[-1].stages = stage_lines(stages[lab],
                                                 results[-1].verdicts)
            yours = decision_row(lab)
            if yours:
                results[-1].decision = decision_line(lab, yours, tour)
            if lab in SCORES:
                results[-1].score = score_line(lab, tour)
    print("", file=sys.stderr, flush=True)
    print(render(results))
    return 1 if any(r.problem for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
