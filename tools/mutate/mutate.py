#!/usr/bin/env python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Mutation score: how many small mistakes in a reference each suite catches.

    bazel run //tools/mutate        # every lab, each with its last sample
    bazel run //tools/mutate -- --lab=first_call --max-mutants=30 --seed=2

A suite that passes on the reference and fails on the starter and the
known-bads may still let a mistake through. This tool makes mutants of a
lab's reference (solutions/<lab>/task.cc, task.c for a C task, and each
file of solutions/<lab>/internal/: pieces of source the reference includes,
shared with another design, and the .inc files of common/ it includes:
source it shares with another lab) with four classic operators, one change
on one line each:

  flip      a comparison flipped: < and <=, > and >=, == and !=
  constant  an integer literal plus or minus 1
  delete    a single-line statement deleted (a call, an assignment, an
            increment, break, continue, delete)
  negate    an if or while condition negated

Comments, string and character literals, preprocessor lines (#include,
#define) and assert or log lines (assert, static_assert, CHECK, LOG,
fprintf(stderr, ...)) make no mutant. Every candidate is listed in file
order (task.cc first, then internal/'s files by name), with a stable id
(m<index>) and, when it is not task.cc's, its file: the same source gives
the same candidates. `--max-mutants=N --seed=S` takes a sample of N, stratified
over the operators (an equal share each, what a small one leaves going to
the rest) and, within an operator, over the lines (its candidates, in
the order above, cut into N runs, one drawn from each): the same sample for the
same source, N and S. Without them a lab keeps the N and S of its last
report (12 and 1 for a new lab).

Each mutant runs in a scratch copy of the tree (/tmp/mutate/main, one for
all labs, with its own Bazel output base and the shared disk cache of
user.bazelrc, so that a mutant rebuilds only the reference): the mutated
reference is written there and `bazel test //tests/<lab>:solution_test`
runs, with a timeout of three times the reference's test time and 30 s. The
outcome is killed (the suite failed), survived (it passed), timeout (it ran
out of time; a detected mutant, counted apart) or not compilable (the build
failed; not counted as killed). The worktree's own reference is never
written.

The results go to tests/<lab>/mutation.json and, as a table, to
tests/<lab>/mutation.md. Its Survivors section has one line per survivor
for a person to finish: why the mutant is harmless (an equivalent mutant,
and why) or "not yet killed: <the test that would kill it>". Those notes
are kept when the report is made again, matched by the mutant's operator
and its line before and after.

`--suite-tree=DIR --suite-name=NAME` runs the same sample against another
tree's suite (a worktree of a branch that adds tests) and adds its column
to the report beside the current tree's ("main" by default, --suite-name
without --suite-tree). Where that tree's reference differs, a mutant is
applied to the one line of the same text (its line moved), or is "not
applicable" when there is none.

`--survivors-only` runs that other suite only on the current suite's
survivors and carries the other outcomes over (marked so): a branch that
adds tests kills what the suite killed.

`--report-only` writes mutation.md again from mutation.json (after a
change of this tool's report), running nothing.

Exit status: 0 when every lab asked for was run, 1 when one could not be
(its reference fails its own suite, Bazel could not start), 2 for bad
arguments.
"""

import argparse
import datetime
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

from tools import labs as course_labs

OPERATORS = ("flip", "constant", "delete", "negate")
DEFAULT_SAMPLE = 12

# Lines that only check or print: a mutant there tests the check, not the
# solution.
_ASSERT_OR_LOG = re.compile(
    r"^(assert|static_assert|ABSL_ASSERT|ABSL_(RAW_)?(D?CHECK|LOG)\w*|"
    r"D?CHECK\w*|V?LOG|(std::)?(f?printf|perror|fputs|puts)|std::cerr)\b")

_COMPARISON = re.compile(r"(?<=\s)(<=|>=|==|!=|<|>)(?=\s)")
_FLIPPED = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=",
            "!=": "=="}

_INTEGER = re.compile(
    r"(?<![\w.'])(0[xX][0-9a-fA-F]+|[0-9]+)([uUlL]*)(?![\w.'])")

# A statement whose deletion still compiles: an assignment or an increment
# of an expression without spaces (a declaration has a type and a name), a
# call, break, continue or delete.
_LVALUE = r"[\w.\[\]()*:>-]+"
_DELETABLE = re.compile(
    r"^(" + _LVALUE + r"\s*([-+*/%&|^]|<<|>>)?=[^=].*"
    r"|(\+\+|--)" + _LVALUE + r"|" + _LVALUE + r"(\+\+|--)"
    r"|[\w.\[\]:>-]*\w\s*\(.*\)"
    r"|break|continue|delete\s.+)\s*;$")
_NOT_DELETABLE = re.compile(
    r"^(return|case|default|using|typedef|if|for|while|switch|do|else)\b")
# A statement starts on a line when the code before it ends one.
_STATEMENT_BEFORE = re.compile(
    r"([;{}:]|^(\}\s*)?(else|(else\s+)?if\s*\(.*\)|for\s*\(.*\)|"
    r"while\s*\(.*\)))$")

_CONDITION = re.compile(r"\b(if|while)\s*\(")


class Mutant(object):
    """One candidate: the line (1-based) it changes, before and after."""

    def __init__(self, index, line, column, operator, before, after,
                 file=None):
        self.id = "m%03d" % index
        self.line = line
        self.column = column
        self.operator = operator
        self.before = before
        self.after = after
        self.file = file  # None: the reference's task.cc (or task.c)

    def as_json(self):
        out = {"id": self.id, "line": self.line, "operator": self.operator,
               "before": self.before, "after": self.after}
        if self.file is not None:
            out["file"] = self.file
        return out


def code_mask(lines):
    """Each line with comments and literal contents blanked, same length.

    A string or character literal keeps its quotes; what is inside, and
    every comment, becomes spaces, so that a column of the mask is a
    column of the line. A quote after a digit is a digit separator.
    """
    masked = []
    in_block = False
    for line in lines:
        out = []
        i = 0
        quote = None
        while i < len(line):
            c = line[i]
            if in_block:
                if line.startswith("*/", i):
                    in_block = False
                    out.append("  ")
                    i += 2
                    continue
                out.append(" ")
            elif quote:
                if c == "\\":
                    out.append("  "[:len(line) - i])
                    i += 2
                    continue
                if c == quote:
                    quote = None
                    out.append(c)
                else:
                    out.append(" ")
            elif line.startswith("//", i):
                out.append(" " * (len(line) - i))
                break
            elif line.startswith("/*", i):
                in_block = True
                out.append("  ")
                i += 2
                continue
            elif c == '"' or (c == "'" and not (i and line[i - 1].isalnum())):
                quote = c
                out.append(c)
            else:
                out.append(c)
            i += 1
        masked.append("".join(out))
    return masked


def _skipped_lines(lines, masked):
    """The line numbers (0-based) that make no mutant."""
    skipped = set()
    in_check = False
    for n, (line, code) in enumerate(zip(lines, masked)):
        stripped = code.strip()
        if line.lstrip().startswith("#") or not stripped:
            skipped.add(n)
            continue
        if _ASSERT_OR_LOG.match(stripped):
            in_check = True
        if in_check:
            skipped.add(n)
            if stripped.endswith(";"):
                in_check = False
    return skipped


def _with(line, start, end, text):
    return line[:start] + text + line[end:]


def _integer_text(literal, value):
    if literal.lower().startswith("0x"):
        return ("-" if value < 0 else "") + "0x%x" % abs(value)
    return str(value)


def _matching_paren(code, open_at):
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def candidates(text):
    """Every mutant of the source text, in file order (line, column)."""
    lines = text.split("\n")
    masked = code_mask(lines)
    skipped = _skipped_lines(lines, masked)
    found = []  # (line, column, order, operator, after)
    previous = ""
    for n, (line, code) in enumerate(zip(lines, masked)):
        if n in skipped:
            continue
        for m in _COMPARISON.finditer(code):
            found.append((n, m.start(), 0, "flip",
                          _with(line, m.start(), m.end(),
                                _FLIPPED[m.group(1)])))
        for m in _INTEGER.finditer(code):
            value = int(m.group(1), 0)
            for order, delta in ((1, 1), (2, -1)):
                found.append((n, m.start(), order, "constant",
                              _with(line, m.start(), m.end(1),
                                    _integer_text(m.group(1),
                                                  value + delta))))
        stripped = code.strip()
        if (_DELETABLE.match(stripped) and
                not _NOT_DELETABLE.match(stripped) and
                (not previous or _STATEMENT_BEFORE.search(previous))):
            indent = line[:len(line) - len(line.lstrip())]
            found.append((n, len(indent), 3, "delete", indent + ";"))
        for m in _CONDITION.finditer(code):
            open_at = m.end() - 1
            close_at = _matching_paren(code, open_at)
            if close_at < 0 or ";" in code[open_at:close_at]:
                continue  # a condition on more lines, or with an init
            condition = line[open_at + 1:close_at]
            found.append((n, m.start(), 4, "negate",
                          _with(line, open_at + 1, close_at,
                                "!(" + condition + ")")))
        previous = stripped
    found.sort(key=lambda f: (f[0], f[1], f[2]))
    return [Mutant(i, n + 1, column, operator, lines[n], after)
            for i, (n, column, _, operator, after) in enumerate(found)]


def candidates_of(sources):
    """Every mutant of several files, [(path, text)], the first the
    reference's task.cc: in file order, numbered across them all, each
    mutant of a later file carrying its path."""
    found = []
    for n, (path, text) in enumerate(sources):
        for m in candidates(text):
            found.append(Mutant(len(found), m.line, m.column, m.operator,
                                m.before, m.after,
                                path if n > 0 else None))
    return found


def sample(all_mutants, max_mutants, seed):
    """At most max_mutants of them, stratified over operators and lines."""
    if max_mutants is None or len(all_mutants) <= max_mutants:
        return list(all_mutants)
    by_operator = {op: [m for m in all_mutants if m.operator == op]
                   for op in OPERATORS}
    quota = {}
    left = max_mutants
    # The smallest strata first: what they cannot use goes to the others.
    order = sorted(OPERATORS, key=lambda op: (len(by_operator[op]), op))
    for i, op in enumerate(order):
        quota[op] = min(len(by_operator[op]), left // (len(order) - i))
        left -= quota[op]
    # What the integer division left over goes to those with room.
    for op in reversed(order):
        extra = min(left, len(by_operator[op]) - quota[op])
        quota[op] += extra
        left -= extra
    chosen = []
    for op in OPERATORS:
        pool, k = by_operator[op], quota[op]
        if not k:
            continue
        rng = random.Random("%s:%s" % (seed, op))
        for j in range(k):
            run = pool[j * len(pool) // k:(j + 1) * len(pool) // k]
            chosen.append(rng.choice(run))
    chosen.sort(key=lambda m: m.id)
    return chosen


def apply(text, mutant):
    """The source text with the mutant's line changed."""
    lines = text.split("\n")
    if lines[mutant.line - 1] != mutant.before:
        raise ValueError("%s: line %d is not %r" %
                         (mutant.id, mutant.line, mutant.before))
    lines[mutant.line - 1] = mutant.after
    return "\n".join(lines)


def relocate(text, mutant):
    """The mutant applied to text, another version of its source.

    At its line when that line is unchanged, else where the one line of
    the same text now is; None when there is no such line, or several.
    """
    lines = text.split("\n")
    n = mutant.line - 1
    if n >= len(lines) or lines[n] != mutant.before:
        same = [i for i, line in enumerate(lines) if line == mutant.before]
        if len(same) != 1:
            return None
        n = same[0]
    lines[n] = mutant.after
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Running the suite.


def reference_path(repo, lab):
    for name in ("task.cc", "task.c"):
        path = os.path.join("solutions", lab, name)
        if os.path.exists(os.path.join(repo, path)):
            return path
    raise SystemExit("mutate: lab %s has no solutions/%s/task.cc" %
                     (lab, lab))


_SOURCE_SUFFIXES = (".h", ".cc", ".c", ".inc")


# A reference's include of source that common/ keeps for it and another
# lab (common/adoption/rule.inc: lab jemalloc_adoption's rule, which lab
# allocator_design is judged by).
_COMMON_SOURCE = re.compile(r'^\s*#\s*include\s*"(common/[\w/.\-]+\.inc)"',
                            re.MULTILINE)


def reference_files(repo, lab):
    """The reference's files, each relative to repo: task.cc (or task.c)
    first, then the C and C++ files of solutions/<lab>/internal/ by name,
    which the reference includes, then the .inc files of common/ that
    task.cc includes, in its order."""
    files = [reference_path(repo, lab)]
    internal = os.path.join("solutions", lab, "internal")
    if os.path.isdir(os.path.join(repo, internal)):
        files += [os.path.join(internal, name) for name in
                  sorted(os.listdir(os.path.join(repo, internal)))
                  if name.endswith(_SOURCE_SUFFIXES)]
    with open(os.path.join(repo, files[0]), encoding="utf-8") as f:
        files += _COMMON_SOURCE.findall(f.read())
    return files


class Scratch(object):
    """A copy of a tree with its own Bazel output base."""

    def __init__(self, tree, directory, bazelrc):
        self.root = directory
        self.output_base = directory + ".out"
        # A fresh copy, without Bazel's links and git: nothing stale.
        if os.path.exists(directory):
            shutil.rmtree(directory)
        shutil.copytree(tree, directory, symlinks=True,
                        ignore=lambda d, names: [
                            n for n in names if d == tree and
                            (n.startswith("bazel-") or n == ".git")])
        user_rc = os.path.join(directory, "user.bazelrc")
        if not os.path.exists(user_rc) and os.path.exists(bazelrc):
            shutil.copy(bazelrc, user_rc)  # the shared disk cache
        # A nested `bazel run` must not hand its runfiles to this Bazel.
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("RUNFILES_", "BUILD_", "PYTHON"))}

    def test(self, target, timeout):
        """Runs one test: (outcome, seconds, bazel's test seconds)."""
        command = ["bazel", "--output_base=" + self.output_base,
                   "--max_idle_secs=600", "test", "--test_output=summary",
                   "--test_timeout=%d" % timeout, target]
        start = time.monotonic()
        try:
            done = subprocess.run(command, cwd=self.root, env=self.env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT,
                                  universal_newlines=True,
                                  timeout=timeout + 1200)
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - start, None
        seconds = time.monotonic() - start
        out = done.stdout
        ran = re.search(r"(PASSED|FAILED|TIMEOUT) in ([0-9.]+)s", out)
        test_seconds = float(ran.group(2)) if ran else None
        if "TIMEOUT" in out and done.returncode == 3:
            return "timeout", seconds, test_seconds
        if done.returncode == 0:
            return "survived", seconds, test_seconds
        if done.returncode == 3:
            return "killed", seconds, test_seconds
        if done.returncode == 1:
            return "not compilable", seconds, test_seconds
        sys.stderr.write(out[-3000:])
        return "error", seconds, test_seconds

    def shutdown(self):
        subprocess.run(["bazel", "--output_base=" + self.output_base,
                        "shutdown"], cwd=self.root, env=self.env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_suite(lab, tree, reference, mutants, scratch):
    """The outcome of each mutant under one tree's suite.

    `reference` is the reference's task.cc (or task.c), where a mutant
    with no file of its own goes.
    """
    tree_sources = {}
    for mutant in mutants:
        path = mutant.file or reference
        if path not in tree_sources and \
                os.path.exists(os.path.join(tree, path)):
            with open(os.path.join(tree, path)) as f:
                tree_sources[path] = f.read()
    target = "//tests/%s:solution_test" % lab
    try:
        outcome, seconds, test_seconds = scratch.test(target, 3600)
        if outcome != "survived":
            raise RuntimeError("the reference does not pass %s: %s" %
                               (target, outcome))
        # Three times the reference's test time, and 30 s for a machine
        # that got busier: a mutant slower than that has a hang.
        timeout = max(30, int(3 * (test_seconds or 30)) + 30)
        print("%s: reference passes (test %.1f s); mutant timeout %d s" %
              (lab, test_seconds or 0, timeout), flush=True)
        outcomes = {}
        for mutant in mutants:
            file = mutant.file or reference
            tree_source = tree_sources.get(file)
            mutated = None if tree_source is None else \
                relocate(tree_source, mutant)
            if mutated is None:
                outcomes[mutant.id] = {"outcome": "not applicable",
                                       "seconds": 0}
                print("%s %s: its line is not in %s's %s" %
                      (lab, mutant.id, tree, file), flush=True)
                continue
            path = os.path.join(scratch.root, file)
            try:
                with open(path, "w") as f:
                    f.write(mutated)
                outcome, seconds, _ = scratch.test(target, timeout)
            finally:
                with open(path, "w") as f:
                    f.write(tree_source)
            outcomes[mutant.id] = {"outcome": outcome,
                                   "seconds": round(seconds, 1)}
            print("%s %s %s %s: %s (%.0f s)" %
                  (lab, mutant.id, where(mutant.file, mutant.line),
                   mutant.operator, outcome, seconds), flush=True)
    finally:
        for file, text in tree_sources.items():
            with open(os.path.join(scratch.root, file), "w") as f:
                f.write(text)
    return {"reference_test_seconds": test_seconds, "timeout": timeout,
            "outcomes": outcomes}


# ---------------------------------------------------------------------------
# The report.

_SURVIVOR = re.compile(
    r"^- (m\d+) \(line \d+(?: of [^,]+)?, (\w+)\): `(.*)` → `(.*)`: (.*)$")
UNEXAMINED = "not yet examined."
# Later suites' outcomes, which the report appends to a note: read back,
# they are dropped, so that each report says the outcomes of its own runs.
_LATER_OUTCOMES = re.compile(
    r" \[[\w.-]+: [\w ()]+(?:, [\w.-]+: [\w ()]+)*\]$")
KINDS = ("killed", "timeout", "survived", "not compilable", "error",
         "not applicable")


def where(file, line):
    """A mutant's place: "line 12", or "line 12 of internal/x.h" for one
    of the reference's internal/ files, "line 12 of common/x/y.inc" for
    one of common/'s."""
    if file is None:
        return "line %d" % line
    if file.startswith("common/"):
        return "line %d of %s" % (line, file)
    return "line %d of %s" % (line, file.split("/", 2)[-1])


def _note_key(operator, before, after):
    return (operator, before.strip(), after.strip())


def read_notes(md_path):
    """The Survivors notes of an earlier report, by operator and lines."""
    notes = {}
    if not os.path.exists(md_path):
        return notes
    with open(md_path) as f:
        for line in f:
            m = _SURVIVOR.match(line.rstrip("\n"))
            if m and m.group(5) != UNEXAMINED:
                notes[_note_key(m.group(2), m.group(3).replace("\\|", "|"),
                                m.group(4).replace("\\|", "|"))] = (
                    _LATER_OUTCOMES.sub("", m.group(5)))
    return notes


def _code(text):
    return "`" + text.strip().replace("|", "\\|") + "`"


def _cell(outcome):
    if outcome.get("carried"):
        return "%s (as %s)" % (outcome["outcome"], outcome["carried"])
    return "%s %.0f s" % (outcome["outcome"], outcome["seconds"])


def totals(data, run):
    counts = {k: 0 for k in KINDS}
    for mutant in data["mutants"]:
        counts[run["outcomes"][mutant["id"]]["outcome"]] += 1
    seconds = sum(o["seconds"] for o in run["outcomes"].values())
    return counts, seconds


def _render_header(data):
    """mutation.md's title and how it was made: the command, the reference,
    the sample."""
    lab = data["lab"]
    return [
        "# Mutation score: %s" % lab,
        "",
        "Made by `tools/mutate/mutate.py`; every lab's report is made again by "
        "`bazel run //tools/mutate:mutate`, this one alone by "
        "`bazel run //tools/mutate -- --lab=%s` (the same sample: "
        "`--max-mutants=%d --seed=%s`, kept from this report). Edit only "
        "the notes of Survivors: they are kept." % (
            lab, data["max_mutants"], data["seed"]),
        "",
        "Reference: `%s`%s (sha256 %s...). %d of %d candidates sampled "
        "(seed %s), by operator: %s." % (
            data["reference"], "".join(
                " with `%s`" % f if i == 0 else ", `%s`" % f
                for i, f in enumerate(data.get("internal", []))),
            data["sha256"][:12], len(data["mutants"]),
            data["candidates"], data["seed"],
            ", ".join("%s %d of %d" % (
                op, sum(1 for m in data["mutants"] if m["operator"] == op),
                data["by_operator"][op]) for op in OPERATORS)),
    ]


def _first_survivors(data):
    """The mutants the first suite left alive."""
    runs = data["runs"]
    return [m for m in data["mutants"] if runs and
            runs[0]["outcomes"][m["id"]]["outcome"] == "survived"]


def _render_totals(data, notes):
    """The Totals section: a row per suite, and the first suite's score
    without its equivalent survivors."""
    runs = data["runs"]
    out = [
        "## Totals",
        "",
        "A timeout is a detected mutant, counted apart from killed; a "
        "mutant that does not compile is not counted as killed; one whose "
        "line a branch's reference no longer has (or has twice) is not "
        "applicable there. Score: (killed + timeout) / (mutants - not "
        "compilable - not applicable). Time: Bazel's "
        "wall time for all mutants (build and test), on 2 cores shared "
        "with other builds. An outcome 'as <suite>' was not run again: "
        "that column's suite ran only the first suite's survivors "
        "(`--survivors-only`), since tests added to a suite kill what it "
        "killed.",
        "",
        "| suite | date | mutants | killed | timeout | survived | "
        "not compilable | not applicable | score | time |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        counts, seconds = totals(data, run)
        compiled = len(data["mutants"]) - counts["not compilable"] - \
            counts["not applicable"]
        detected = counts["killed"] + counts["timeout"]
        score = "%d%%" % round(100.0 * detected / compiled) if compiled \
            else "n/a"
        out.append("| %s | %s | %d | %d | %d | %d | %d | %d | %s | %d s |" % (
            run["suite"], run["date"], len(data["mutants"]),
            counts["killed"], counts["timeout"], counts["survived"],
            counts["not compilable"], counts["not applicable"], score,
            round(seconds)))
    if runs:
        first = runs[0]
        survivors = _first_survivors(data)
        equivalent = sum(1 for m in survivors if notes.get(_note_key(
            m["operator"], m["before"], m["after"]), "").startswith(
                "equivalent"))
        counts, _ = totals(data, first)
        real = len(data["mutants"]) - counts["not compilable"] - equivalent
        detected = counts["killed"] + counts["timeout"]
        out += ["", "%s's survivors: %d, of which %d equivalent (their "
                "notes say why) and %d not yet killed; without the "
                "equivalent ones, %s's score is %s." % (
                    first["suite"], len(survivors), equivalent,
                    len(survivors) - equivalent, first["suite"],
                    "%d%%" % round(100.0 * detected / real) if real
                    else "n/a")]
    return out


def _render_mutants(data):
    """The Mutants section: a row per mutant, a column per suite."""
    runs = data["runs"]
    out = ["## Mutants", "",
           "| id | line | operator | before | after | " +
           " | ".join(run["suite"] for run in runs) + " |",
           "|---|---|---|---|---|" + "---|" * len(runs)]
    for m in data["mutants"]:
        cells = [_cell(run["outcomes"][m["id"]]) for run in runs]
        line = str(m["line"]) if "file" not in m else "%s:%d" % (
            m["file"].split("/", 2)[-1], m["line"])
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            m["id"], line, m["operator"], _code(m["before"]),
            _code(m["after"]), " | ".join(cells)))
    return out


def _render_survivors(data, notes):
    """The Survivors section: each first-suite survivor with its note."""
    runs = data["runs"]
    out = ["## Survivors", "",
           "Each survivor of the first suite: why it is harmless "
           "(equivalent: no test can tell it from the reference) or "
           "'not yet killed:' and the test that would kill it; later "
           "suites' outcomes in brackets.", ""]
    survivors = _first_survivors(data)
    if not survivors:
        out.append("None.")
    for m in survivors:
        note = notes.get(_note_key(m["operator"], m["before"], m["after"]),
                         UNEXAMINED)
        later = ", ".join("%s: %s" % (run["suite"],
                                      run["outcomes"][m["id"]]["outcome"])
                          for run in runs[1:])
        if later:
            note = "%s [%s]" % (note, later)
        out.append("- %s (%s, %s): %s → %s: %s" % (
            m["id"], where(m.get("file"), m["line"]), m["operator"],
            _code(m["before"]),
            _code(m["after"]), note))
    return out


def render(data, notes):
    """mutation.md's text."""
    sections = [_render_header(data), _render_totals(data, notes),
                _render_mutants(data), _render_survivors(data, notes)]
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


def mutate_lab(repo, lab, args, scratch):
    files = reference_files(repo, lab)
    reference = files[0]
    sources = []
    for path in files:
        with open(os.path.join(repo, path)) as f:
            sources.append((path, f.read()))
    everything = candidates_of(sources)
    # task.cc's hash alone, as before, for a reference of one file.
    digest = hashlib.sha256(sources[0][1].encode())
    for path, text in sources[1:]:
        digest.update(("\0%s\0" % path).encode() + text.encode())
    package = os.path.join(repo, "tests", lab)
    json_path = os.path.join(package, "mutation.json")
    md_path = os.path.join(package, "mutation.md")
    old = {}
    if os.path.exists(json_path):
        with open(json_path) as f:
            old = json.load(f)
    # Without flags, the sample of the lab's last report.
    max_mutants = args.max_mutants or old.get("max_mutants", DEFAULT_SAMPLE)
    seed = args.seed or old.get("seed", "1")
    chosen = sample(everything, max_mutants, seed)
    data = {
        "lab": lab,
        "reference": reference,
        "sha256": digest.hexdigest(),
        "seed": seed,
        "max_mutants": max_mutants,
        "candidates": len(everything),
        "by_operator": {op: sum(1 for m in everything if m.operator == op)
                        for op in OPERATORS},
        "mutants": [m.as_json() for m in chosen],
        "runs": [],
    }
    if len(files) > 1:
        data["internal"] = files[1:]
    if old.get("mutants") == data["mutants"]:
        data["runs"] = old["runs"]  # same sample: keep other suites'
    print("%s: %d of %d candidates" % (lab, len(chosen), len(everything)),
          flush=True)
    tree = args.suite_tree or repo
    name = args.suite_name
    carried = {}
    if args.survivors_only:
        # A suite that only adds tests kills what the first one killed:
        # run only the first suite's survivors, carry the other outcomes.
        if not data["runs"]:
            raise RuntimeError("--survivors-only needs an earlier run")
        first = data["runs"][0]
        carried = {m.id: dict(first["outcomes"][m.id], seconds=0,
                              carried=first["suite"]) for m in chosen
                   if first["outcomes"][m.id]["outcome"] != "survived"}
    run = run_suite(lab, tree, reference,
                    [m for m in chosen if m.id not in carried], scratch)
    run["outcomes"].update(carried)
    run["suite"] = name
    run["date"] = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    data["runs"] = [r for r in data["runs"] if r["suite"] != name]
    # The current tree's suite first: the Survivors are its.
    if tree == repo:
        data["runs"].insert(0, run)
    else:
        data["runs"].append(run)
    with open(json_path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    write_report(package)


def write_report(package):
    """mutation.md from mutation.json, with the notes of the last one."""
    md_path = os.path.join(package, "mutation.md")
    with open(os.path.join(package, "mutation.json")) as f:
        data = json.load(f)
    notes = read_notes(md_path)
    with open(md_path, "w") as f:
        f.write(render(data, notes))


def main(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", action="append",
                        help="a lab of LABS (repeat); default every lab")
    parser.add_argument("--max-mutants", type=int,
                        help="default: the lab's last report's, else %d" %
                        DEFAULT_SAMPLE)
    parser.add_argument("--seed", help="default: the last report's, else 1")
    parser.add_argument("--suite-tree",
                        help="run the sample against this tree's suite")
    parser.add_argument("--suite-name", default="main",
                        help="the column's name (e.g. the branch)")
    parser.add_argument("--survivors-only", action="store_true",
                        help="run only the first suite's survivors, "
                        "carrying its other outcomes over")
    parser.add_argument("--report-only", action="store_true",
                        help="write mutation.md again from mutation.json")
    parser.add_argument("--scratch", default="/tmp/mutate")
    parser.add_argument("--repo",
                        default=os.environ.get("BUILD_WORKSPACE_DIRECTORY",
                                               os.getcwd()))
    args = parser.parse_args(argv)
    repo = os.path.abspath(args.repo)
    known = course_labs.names()
    labs = args.lab or known
    for lab in labs:
        if lab not in known:
            parser.error("%s is not a lab of labs.bzl's LABS" % lab)
    if args.suite_tree:
        args.suite_tree = os.path.abspath(args.suite_tree)
        if args.suite_name == "main":
            parser.error("--suite-tree needs --suite-name (the branch)")
    if args.report_only:
        for lab in labs:
            write_report(os.path.join(repo, "tests", lab))
        return 0
    tree = args.suite_tree or repo
    scratch = Scratch(tree, os.path.join(
        args.scratch, re.sub(r"\W", "_", args.suite_name)),
        os.path.join(repo, "user.bazelrc"))
    failed = 0
    try:
        for lab in labs:
            try:
                mutate_lab(repo, lab, args, scratch)
            except (RuntimeError, ValueError, OSError) as e:
                print("mutate: %s: %s" % (lab, e), file=sys.stderr)
                failed = 1
    finally:
        scratch.shutdown()
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
