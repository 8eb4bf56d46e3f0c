#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The tour: every lab's experiment in quick mode, one after the other, then
one summary table of each lab's headline figure beside the reference run's.

    bazel run //:tour                          # your task.cc files
    bazel run //:tour -- --out=tour            # into ./tour (default: a new
                                               # alloclab-tour-<time> folder)
    bazel run //:tour -- --reference --out=docs/img
                                               # the chapters' pictures: each
                                               # starter beside its reference

Every lab's results JSON and its picture (tools/plot.py) go into one folder,
which the tour names at the end. The flags every experiment takes
(--repetitions=N, --cpu=N; common/lab_main.cc) go to every experiment; any
other flag is refused before the first run, since a lab's own flag would
stop the six labs that do not know it.

A lab plugs in by declaring its headline in its JSON (Results::SetHeadline
in common/report.h: a label, this run's figure as text, the reference run's
figure) and its pictures (Results::AddPlot); docs/adding_a_lab.md says how.
A lab without a headline shows "n/a" with that reason.

Exit status: 0 when every experiment ran and every picture was drawn, 1
otherwise (the table still shows what ran), 2 for bad arguments.

Arguments (//:tour writes them before yours): LAB=STARTER[,SOLUTION] ...
"""

import datetime
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from check_results import UnusableInput, load_results  # noqa: E402
from plot import PlotError, draw  # noqa: E402

USAGE = ("usage: tour.py [--out=DIR] [--reference] [--repetitions=N] [--cpu=N] "
         "LAB=STARTER[,SOLUTION]...")


# The flags of common/lab_main.cc that every experiment takes (with a value);
# --quick the tour passes itself.
SHARED_FLAGS = ("--repetitions=", "--cpu=")


def resolve(path):
    """A relative path means the directory `bazel run` was typed in."""
    base = os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd()
    return path if os.path.isabs(path) else os.path.join(base, path)


def parse_args(argv):
    labs, flags = [], []
    out, reference = None, False
    for arg in argv:
        if arg.startswith("--out="):
            out = arg[len("--out="):]
            if not out:
                raise ValueError("--out= names no folder")
        elif arg == "--reference":
            reference = True
        elif arg.startswith("--json"):
            raise ValueError("--json: the tour writes each lab's JSON itself, "
                             "into its folder (--out=DIR)")
        elif arg == "--quick":
            pass  # every run of the tour is quick
        elif arg.startswith(SHARED_FLAGS):
            flags.append(arg)
        elif arg.startswith("-"):
            raise ValueError(
                "%s: the tour passes on only the flags every experiment takes "
                "(--repetitions=N, --cpu=N); give a lab's own flag to that lab: "
                "bazel run //labs/<lab> -- %s" % (arg, arg))
        elif "=" in arg:
            lab, binaries = arg.split("=", 1)
            labs.append((lab, binaries.split(",")))
        else:
            raise ValueError("'%s' is not LAB=STARTER[,SOLUTION] or a flag" % arg)
    if not labs:
        raise ValueError("no lab given")
    if reference and any(len(b) < 2 for _, b in labs):
        raise ValueError("--reference: a lab has no reference experiment")
    return labs, flags, out, reference


def run_experiment(binary, flags, json_path, log):
    """Runs one experiment, its output shown as it comes; True when it ran."""
    if os.path.exists(json_path):
        os.remove(json_path)
    command = [binary, "--quick"] + flags + ["--json=" + json_path]
    print("$ %s" % " ".join([os.path.basename(binary)] + command[1:]), flush=True)
    status = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT)
    if status != 0:
        return "exited with %d" % status
    if not os.path.isfile(json_path):
        return "wrote no JSON"
    return None


def headline_of(results):
    h = results.get("headline")
    if not isinstance(h, dict):
        return ("n/a", "n/a (the lab declares no headline)", "n/a")
    return (str(h.get("label") or "?"), str(h.get("text") or "n/a"),
            str(h.get("reference") or "n/a"))


def table(rows):
    header = ["lab", "headline", "this machine", "reference run"]
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(4)]
    lines = []
    for row in [header] + rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    return "\n".join(lines)


def main(argv):
    try:
        labs, flags, out, reference = parse_args(argv[1:])
    except ValueError as e:
        print("tour: %s\n%s" % (e, USAGE), file=sys.stderr)
        return 2
    if out is None:
        out = "alloclab-tour-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = resolve(out)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        print("tour: cannot create %s: %s" % (folder, e.strerror), file=sys.stderr)
        return 2

    summary, problems = [], []
    for lab, binaries in labs:
        print("\n=== %s: bazel run //%s/%s -- --quick" %
              (lab, "labs", lab), flush=True)
        runs = [("your task.cc" if not reference else "starter", binaries[0],
                 os.path.join(folder, lab + ".json"))]
        if reference:
            runs.append(("reference", binaries[1],
                         os.path.join(folder, lab + "_reference.json")))
        loaded = []
        for name, binary, json_path in runs:
            problem = run_experiment(binary, flags, json_path, sys.stdout)
            if problem is None:
                try:
                    loaded.append((name, load_results(json_path, lab)))
                except UnusableInput as e:
                    problem = str(e)
            if problem:
                problems.append("%s (%s): %s" % (lab, name, problem))
        if len(loaded) < len(runs):
            summary.append([lab, "-", "failed: see above", "-"])
            continue
        label, text, ref = headline_of(loaded[-1][1])
        summary.append([lab, label, text, ref])
        svg = os.path.join(folder, lab + ".svg")
        try:
            draw(loaded, svg)
        except PlotError as e:
            problems.append("%s: no picture: %s" % (lab, e))

    print("\n=== summary: each lab's headline figure%s, beside the reference run's\n" %
          (" (the reference solution)" if reference else " on your task.cc"))
    print(table(summary))
    with open(os.path.join(folder, "summary.txt"), "w") as f:
        f.write(table(summary) + "\n")
    files = sorted(f for f in os.listdir(folder) if f.endswith((".json", ".svg")))
    print("\ntour: %d files (results JSON and pictures) in %s" % (len(files), folder))
    for problem in problems:
        print("tour: %s" % problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
