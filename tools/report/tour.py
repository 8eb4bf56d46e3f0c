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
    bazel run //:tour -- --labs=first_call     # only these labs, by name
    bazel run //:tour -- --reference --out=docs/img --redraw
                                               # no experiment runs: the
                                               # JSONs already in the folder
                                               # drawn again, the page and
                                               # summary rebuilt

Every lab's results JSON and its picture (tools/plot/plot.py) go into one
folder, which the tour names at the end, with index.html: the tour as one page
to open in a browser (the machine line, the summary table, then each lab's
headline, picture, table and notes), self-contained, its pictures the SVG files
beside it. The chapters' pictures (docs/img/) are redrawn by the one command
above, `--reference --out=docs/img`. A run taken apart, e.g. one lab's on a
quiet machine (`bazel run //solutions/<lab> -- --quick --json=...`), goes
into that folder under the tour's name for it (<lab>.json, the
starter's; <lab>_reference.json) and `--redraw` rebuilds the pictures, the
summary and the page from the folder's JSONs alone. The flags every
experiment takes (--repetitions=N, --cpu=N; common/harness/lab_main.cc) go
to every experiment;
any other flag is refused before the first run, since a lab's own flag would
stop the labs that do not know it.

A lab plugs in by declaring its headline in its JSON (Results::SetHeadline in
common/harness/report.h: a label, this run's figure as text, the reference
run's figure) and its pictures (Results::AddPlot); docs/adding_a_lab.md says
how. A lab without a headline shows "n/a" with that reason. A lab whose
experiment scores your allocator (tools/report/results.py's SCORES: lab
allocator_design) shows that score instead, its total and its two parts, as
`bazel run //:board` shows it.

Exit status: 0 when every experiment ran and every picture was drawn, 1
otherwise (the table still shows what ran), 2 for bad arguments.

Arguments (//:tour writes them before yours): LAB=STARTER[,SOLUTION] ...
"""

import argparse
import datetime
import html
import os
import subprocess
import sys

from tools.report.check_results import UnusableInput, load_results
from tools.plot.plot import draw
from tools.plot.plot_canvas import PlotError
from tools.plot.plot_units import column_title
from tools.report.results import (SCORE_HEADER, SCORES, beside_line, fmt,
                                  headline_of, machine_line, metric_keys,
                                  on_host, resolve, score_of, score_rows,
                                  scores_beside, table)

USAGE = ("usage: bazel run //:tour -- [--out=DIR] [--reference] "
         "[--labs=LAB,...] [--repetitions=N] [--cpu=N] [--redraw]")

# How the runs are named in the summary, the pictures and the page.
YOURS, STARTER, REFERENCE = ("your task.cc", "starter task.cc",
                             "reference solution")


def parse_args(argv):
    """(labs, flags for every experiment, out, reference, redraw), or
    ValueError."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--out")
    parser.add_argument("--reference", action="store_true")
    parser.add_argument("--redraw", action="store_true")
    parser.add_argument("--quick", action="store_true")  # every run is quick
    parser.add_argument("--json")
    # The flags of common/harness/lab_main.cc that every experiment takes.
    parser.add_argument("--repetitions")
    parser.add_argument("--cpu")
    parser.add_argument("--labs", dest="only")  # comma-separated
    parser.add_argument("labs", nargs="*")
    args, unknown = parser.parse_known_args(argv)
    for arg in unknown:
        if arg.startswith("-"):
            raise ValueError(
                "%s: the tour passes on only the flags every experiment takes "
                "(--repetitions=N, --cpu=N); give a lab's own flag to that "
                "lab: bazel run //labs/<lab> -- %s" %
                (arg, arg))
    if args.json is not None:
        raise ValueError("--json: the tour writes each lab's JSON itself, "
                         "into its folder (--out=DIR)")
    if args.out == "":
        raise ValueError("--out= names no folder")
    if args.redraw and args.out is None:
        raise ValueError("--redraw: name the folder whose runs to draw "
                         "again (--out=DIR)")
    if args.redraw and (args.repetitions or args.cpu):
        raise ValueError("--redraw runs no experiment: --repetitions and "
                         "--cpu have nothing to go to")
    flags = []
    # In the order given, as the experiments' own flags.
    for arg in argv:
        if arg.startswith(("--repetitions=", "--cpu=")):
            flags.append(arg)
    labs = []
    for arg in args.labs + [a for a in unknown if not a.startswith("-")]:
        if "=" not in arg:
            raise ValueError(
                "'%s' is not LAB=STARTER[,SOLUTION] or a flag" % arg)
        lab, binaries = arg.split("=", 1)
        labs.append((lab, binaries.split(",")))
    if not labs:
        raise ValueError("no lab given")
    if args.only is not None:
        only = [lab for lab in args.only.split(",") if lab]
        known = [lab for lab, _ in labs]
        unknown = [lab for lab in only if lab not in known]
        if unknown or not only:
            raise ValueError("--labs: unknown lab %s; the labs are %s" % (
                ", ".join(unknown) or "(none given)", ", ".join(known)))
        labs = [(lab, b) for lab, b in labs if lab in only]
    if args.reference and any(len(b) < 2 for _, b in labs):
        raise ValueError("--reference: a lab has no reference experiment")
    return labs, flags, args.out, args.reference, args.redraw


def headline(lab, results):
    """(label, this run's figure, the reference run's) of `lab`'s run
    `results`: its score where the lab has one (SCORES, read as the board
    reads it), beside the reference's and the other designs' (runs
    committed in docs/img/, tools/report/results.py's SCORED_BESIDE), else the
    headline the lab declares."""
    score = score_of(lab, results)
    if score is None:
        return headline_of(results)
    label, figure = score
    return (label, figure or "n/a (the run has no %s row)" % SCORES[lab],
            beside_line(lab) or
            "the chapter's \"Your score\" table (docs/labs/%s.md)" % lab)


def score_table_rows(lab, loaded):
    """The rows of SCORE_HEADER for a scored lab: this tour's runs, then the
    runs it is shown beside (docs/img/); [] for a lab without a
    score."""
    if lab not in SCORES:
        return []
    return score_rows(lab, [("%s (this tour)" % name, results)
                            for name, results in loaded] +
                      [("%s (docs/img/)" % name, results)
                       for name, results in scores_beside(lab)])


def run_experiment(binary, flags, json_path, log):
    """Runs one experiment, its output shown as it comes; True when it ran."""
    if os.path.exists(json_path):
        os.remove(json_path)
    command = [binary, "--quick"] + flags + ["--json=" + json_path]
    print("$ %s" % " ".join(
        [os.path.basename(binary)] + command[1:]), flush=True)
    status = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT)
    if status != 0:
        return "exited with %d" % status
    if not os.path.isfile(json_path):
        return "wrote no JSON"
    return None


def main(argv):
    try:
        labs, flags, out, reference, redraw = parse_args(argv[1:])
    except ValueError as e:
        print("tour: %s\n%s" % (e, USAGE), file=sys.stderr)
        return 2
    if out is None:
        out = "alloclab-tour-" + datetime.datetime.now().strftime(
            "%Y%m%d-%H%M%S")
    folder = resolve(out)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        print("tour: cannot create %s: %s" %
              (folder, e.strerror), file=sys.stderr)
        return 2

    if redraw and not os.path.isdir(folder):
        print("tour: --redraw: %s is no folder" % on_host(folder),
              file=sys.stderr)
        return 2

    summary, problems, pages, scored = [], [], [], []
    for lab, binaries in labs:
        if redraw:
            print("\n=== %s: the runs in %s, drawn again" %
                  (lab, on_host(folder)), flush=True)
        else:
            print("\n=== %s: bazel run //%s/%s -- --quick" %
                  (lab, "labs", lab), flush=True)
        runs = [(YOURS if not reference else STARTER, binaries[0],
                 os.path.join(folder, lab + ".json"))]
        if reference:
            runs.append((REFERENCE, binaries[1],
                         os.path.join(folder, lab + "_reference.json")))
        loaded = []
        for name, binary, json_path in runs:
            if redraw:
                problem = (None if os.path.isfile(json_path) else
                           "no %s to draw again" % os.path.basename(json_path))
            else:
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
            pages.append((lab, None, loaded, "failed: see the tour's output"))
            continue
        label, text, ref = headline(lab, loaded[-1][1])
        summary.append([lab, label, text, ref])
        svg = os.path.join(folder, lab + ".svg")
        try:
            draw(loaded, svg)
        except PlotError as e:
            problems.append("%s: no picture: %s" % (lab, e))
            svg = None
        pages.append((lab, svg and os.path.basename(svg), loaded, None))
        scored.append((lab, score_table_rows(lab, loaded)))

    print(
        "\n=== summary: each lab's headline figure%s, beside the reference "
        "run's\n" %
        (" (the reference solution)" if reference else " on your task.cc"))
    header = ["lab", "headline", "this machine", "reference run"]
    print(table(header, summary, text_columns=4))
    with open(os.path.join(folder, "summary.txt"), "w") as f:
        f.write(table(header, summary, text_columns=4) + "\n")
    for lab, rows in scored:
        if rows:
            print("\n=== %s: the score of each run (score.h), beside the "
                  "reference's and the other designs'\n" % lab)
            print(table(SCORE_HEADER, rows, text_columns=1))
    page = os.path.join(folder, "index.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(html_page(header, summary, pages, reference))
    files = sorted(f for f in os.listdir(folder)
                   if f.endswith((".json", ".svg")))
    print("\ntour: %d files (results JSON and pictures) in %s" %
          (len(files), on_host(folder)))
    print("tour: the tour as one page, to open in a browser: %s" %
          on_host(page))
    for problem in problems:
        print("tour: %s" % problem, file=sys.stderr)
    return 1 if problems else 0


# A page table's metric columns at most: more are split into tables of
# this many, so that no table is wider than the page.
COLUMNS_PER_TABLE = 6

STYLE = """
body { font-family: "DejaVu Sans", sans-serif; \
max-width: 60rem; margin: 1rem auto;
       padding: 0 1rem; color: #222; }
.machine { color: #555; font-size: 0.9rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.8rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.15rem 0.4rem; \
text-align: left; }
th { font-weight: 600; vertical-align: bottom; min-width: 4rem; \
overflow-wrap: break-word; }
.tables th { max-width: 7rem; }
td { overflow-wrap: anywhere; }
td:first-child { overflow-wrap: normal; white-space: nowrap; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
.tables { overflow-x: auto; }
.note { font-size: 0.9rem; }
"""


def html_table(header, lines, numeric_from=None, link_first=False):
    """An HTML table; cells from column `numeric_from` on align right; with
    `link_first`, the first cell links to the section of that name."""
    esc = html.escape
    out = ["<table><tr>%s</tr>" %
           "".join("<th>%s</th>" % esc(str(h)) for h in header)]
    for line in lines:
        cells = []
        for i, c in enumerate(line):
            text = esc(str(c))
            if i == 0 and link_first:
                text = '<a href="#%s">%s</a>' % (text, text)
            numeric = numeric_from is not None and i >= numeric_from
            cells.append(
                "<td%s>%s</td>" % (' class="n"' if numeric else "", text))
        out.append("<tr>%s</tr>" % "".join(cells))
    out.append("</table>")
    return "\n".join(out)


def html_page(header, summary, pages, reference):
    """The tour as one self-contained page: the machine line, the summary,
    then each lab's headline, picture, table and notes. The pictures are
    the SVG files beside it; nothing comes from the network."""
    esc = html.escape
    first = next((loaded[0][1] for _, _, loaded, _ in pages if loaded), None)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>Allocator Labs: the tour</title>",
             "<style>%s</style></head><body>" % STYLE,
             "<h1>Allocator Labs: the tour</h1>"]
    if first is not None:
        parts.append('<p class="machine">machine: %s</p>' %
                     esc(machine_line(first)))
    parts.append(
        "<h2>Summary</h2><p>Each lab's headline figure%s, beside the "
        "reference run's.</p>" %
        (" (the reference solution)" if reference else " on your task.cc"))
    parts.append(html_table(header, summary, link_first=True))
    for lab, svg, loaded, failure in pages:
        parts.append('<h2 id="%s">%s</h2>' % (esc(lab), esc(lab)))
        if failure:
            parts.append("<p><strong>%s</strong></p>" % esc(failure))
            continue
        label, text, ref = headline(lab, loaded[-1][1])
        parts.append(
            "<p><strong>%s</strong>: %s (the reference run: %s)</p>" %
            (esc(label), esc(text), esc(ref)))
        rows = score_table_rows(lab, loaded)
        if rows:
            parts.append("<h3>Scores</h3><p>This tour's runs beside the "
                         "reference's and the other designs' (docs/img/), "
                         "each with the load average it began at.</p>")
            parts.append(html_table(SCORE_HEADER, rows, numeric_from=1))
        if svg:
            parts.append('<p><img src="%s" alt="%s: the picture of %s"></p>' % (
                esc(svg), esc(lab), " beside ".join(esc(n) for n, _ in loaded)))
        else:
            parts.append("<p>No picture: see the tour's output.</p>")
        for name, results in loaded:
            rows = results["rows"]
            keys = metric_keys(rows)
            parts.append("<h3>%s</h3>" % esc(name))
            # At most COLUMNS_PER_TABLE metrics a table, each with the
            # variants again: a lab's dozen columns fit a laptop's page.
            for first in range(0, max(len(keys), 1), COLUMNS_PER_TABLE):
                part = keys[first:first + COLUMNS_PER_TABLE]
                parts.append('<div class="tables">%s</div>' % html_table(
                    ["variant", "threads"] +
                    [column_title(lab, k) for k in part],
                    [[r.get("variant"), fmt(r.get("threads", 1))] +
                     [fmt(r.get(k)) for k in part] for r in rows],
                    numeric_from=1))
            for note in results.get("notes", []):
                parts.append('<p class="note">note: %s</p>' % esc(note))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
