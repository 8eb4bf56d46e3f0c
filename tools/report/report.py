#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Shows results JSON files as tables, and two runs of one lab side by side.

A learner's run and the reference's, or this machine's and a friend's: the
experiments print one run each, and `--json` keeps it. This reads those
files back.

    bazel run //:report -- mine.json                 # one run, every metric
    bazel run //:report -- mine.json reference.json  # two runs, with B / A
    bazel run //:report -- --plot=out.svg mine.json [reference.json]
                                                     # and the lab's picture

Relative paths are taken from the directory `bazel run` was started in.
With two files of the same lab, each metric of each row they share is shown
with both values and their ratio; timings from two runs (let alone two
machines) differ for many reasons, counts should not: the ratio column
shows which is which. `--plot` also draws the picture the lab chose
(tools/plot/plot.py), both runs in the same panels. Exit status 2 for an
unreadable file or a picture that cannot be drawn.

It runs with Debian's /usr/bin/python3, whose python3-matplotlib draws the
plots (a python3 earlier on PATH, e.g. pyenv's, does not see Debian's
modules).
"""

import argparse
import os
import sys

from tools.report.check_results import UnusableInput, load_results
from tools.plot.plot import draw
from tools.plot.plot_canvas import PlotError
from tools.report.results import fmt, machine_line, metric_keys, resolve, table

# The command a learner types, for the usage line: `bazel run //:report`
# sets BUILD_WORKING_DIRECTORY; run directly, it is this file.
COMMAND = "bazel run //:report --"


def parse_args(argv):
    """The flags and files, or exit 2 with the usage line and why."""
    parser = argparse.ArgumentParser(
        prog=COMMAND if os.environ.get("BUILD_WORKING_DIRECTORY") else
        os.path.basename(argv[0]),
        usage="%(prog)s [--plot=OUT.svg] RESULTS_JSON [OTHER_RESULTS_JSON]",
        description="Results JSON as tables; two runs of one lab side by side; "
                    "the lab's picture.")
    parser.add_argument("--plot", metavar="OUT.svg",
                        help="also draw the lab's picture into this SVG file")
    parser.add_argument("paths", nargs="+", metavar="RESULTS_JSON",
                        help="one run, or two runs of one lab (A, then B)")
    args = parser.parse_args(argv[1:])
    if len(args.paths) > 2:
        parser.error("at most two results JSON files (A and B), not %d" %
                     len(args.paths))
    if args.plot is not None and not args.plot:
        parser.error("--plot= names no file")
    return args


def show_one(path, results):
    print("%s: lab %s" % (path, results["lab"]))
    print("machine: %s" % machine_line(results))
    rows = results["rows"]
    keys = metric_keys(rows)
    print(table(["variant"] + keys,
                [[r["variant"]] + [fmt(r.get(k)) for k in keys] for r in rows]))
    for note in results["notes"]:
        print("note: %s" % note)


def show_two(paths, a, b):
    print("A: %s (%s)\nB: %s (%s)" % (paths[0], machine_line(a), paths[1],
                                      machine_line(b)))
    b_rows = {r["variant"]: r for r in b["rows"]}
    lines = []
    for row in a["rows"]:
        other = b_rows.get(row["variant"])
        if other is None:
            continue
        for key in metric_keys([row, other]):
            va, vb = row.get(key), other.get(key)
            ratio = "n/a"
            numeric = all(isinstance(v, (int, float)) and
                          not isinstance(v, bool) for v in (va, vb))
            if numeric and va != 0:
                ratio = "%.2f" % (vb / va)
            elif numeric and va == vb:
                ratio = "same"
            lines.append([row["variant"], key, fmt(va), fmt(vb), ratio])
    print(table(["variant", "metric", "A", "B", "B / A"], lines,
                text_columns=2))
    only = sorted(set(r["variant"] for r in a["rows"]) ^ set(b_rows))
    if only:
        print("rows in only one file: %s" % ", ".join(only))


def main(argv):
    args = parse_args(argv)  # exits 2, with the usage line, on bad arguments
    plot_path, paths = args.plot, args.paths
    if plot_path is not None and not plot_path.endswith(".svg"):
        print("report: --plot=%s: the picture is an SVG file; name it *.svg" %
              plot_path, file=sys.stderr)
        return 2
    if plot_path is not None:
        # Refused before the table, as a lab refuses an unwritable --json.
        folder = os.path.dirname(resolve(plot_path)) or "."
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            print("report: --plot=%s: cannot write into %s" %
                  (plot_path, folder), file=sys.stderr)
            return 2
    try:
        loaded = [load_results(resolve(p), None) for p in paths]
    except UnusableInput as e:
        print("report: %s" % e, file=sys.stderr)
        return 2
    if len(loaded) == 2 and loaded[0]["lab"] != loaded[1]["lab"]:
        print("report: %s is lab %s but %s is lab %s: only runs of one lab "
              "compare" % (paths[0], loaded[0]["lab"], paths[1],
                           loaded[1]["lab"]), file=sys.stderr)
        return 2
    if len(loaded) == 1:
        show_one(paths[0], loaded[0])
    else:
        show_two(paths, *loaded)
    if plot_path is not None:
        try:
            draw(list(zip([os.path.basename(p) for p in paths], loaded)),
                 resolve(plot_path))
        except PlotError as e:
            print("report: %s" % e, file=sys.stderr)
            return 2
        print("plot: wrote %s" % plot_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
