# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""What //:report, //:tour and //:board share about results JSON: where a
path on the command line points, how a number and a table are written, the
machine line, a lab's headline and a lab's score.

One module, so that the report and the tour cannot disagree about the
directory a relative path means or how a column is aligned.

Example:

    from tools.report.results import resolve, table, fmt
    path = resolve("mine.json")    # the directory `bazel run` was typed in
    print(table(["variant", "ns_per_call"], [["small_new", fmt(51.6)]]))
"""

import json
import os


def resolve(path):
    """`path` as an absolute path; a relative one means the directory
    `bazel run` was typed in (BUILD_WORKING_DIRECTORY), else this one's."""
    if os.path.isabs(path):
        return path
    base = os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd()
    return os.path.join(base, path)


def on_host(path):
    """`path` as the learner knows it. In the course's container (README.md,
    "Any machine with Docker") the clone is mounted at the workspace
    (BUILD_WORKSPACE_DIRECTORY) and ALLOCLAB_CLONE names it on the learner's
    machine: a path in the clone is then given both ways, e.g.
    "/course/tour (on your machine: C:\\labs\\tour)". Elsewhere, `path`."""
    clone = os.environ.get("ALLOCLAB_CLONE")
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not clone or not workspace:
        return path
    relative = os.path.relpath(path, workspace)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return path
    separator = "\\" if "\\" in clone else "/"
    parts = [clone.rstrip(separator)] + (
        [] if relative == os.curdir else relative.split(os.sep))
    return "%s (on your machine: %s)" % (path, separator.join(parts))


def fmt(value):
    """A table cell: null as n/a, integers without a point, at most four
    significant digits, never e-notation below 10^15."""
    if value is None:
        return "n/a"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return "%.4g" % value if abs(value) < 1e4 else "%.0f" % value


def metric_keys(rows):
    """Every key but the variant, in order of first appearance.

    Sample arrays (RSS over time, ...) are left to the pictures: a table
    cell of hundreds of numbers reads as nothing.
    """
    keys = []
    for row in rows:
        for key, value in row.items():
            if isinstance(value, list):
                continue
            if key not in ("variant", "threads") and key not in keys:
                keys.append(key)
    return keys


def table(header, lines, text_columns=1):
    """Aligned columns: the first `text_columns` left, the others (numbers)
    right."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *lines)]
    out = []
    for line in [header] + lines:
        cells = [str(c).ljust(w) if i < text_columns else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def machine_line(results):
    """The machine a run ran on, in one line."""
    m = results.get("machine") or {}
    ghz = m.get("effective_ghz")
    line = "%s, %s logical CPUs on %s cores, %s, %s, effective clock %s" % (
        m.get("cpu_model", "?"), fmt(m.get("logical_cpus")),
        fmt(m.get("physical_cores")), m.get("kernel", "?"),
        m.get("libc", "?"), "%.2f GHz" % ghz if ghz else "n/a")
    # What a fault count means on that machine; older results lack them.
    for fact in ("zero_page", "thp"):
        if m.get(fact):
            line += ", " + m[fact]
    load = load_average(results)
    if load is not None:
        line += ", load average %.2f" % load
    return line


def load_average(results):
    """The machine's 1-minute load average when the run started, or None
    (older results, or a machine that does not say)."""
    load = (results.get("machine") or {}).get("load_average")
    if isinstance(load, list) and load and isinstance(load[0], (int, float)):
        return float(load[0])
    return None


def headline_of(results):
    """(label, this run's figure, the reference run's), "n/a" where absent."""
    h = results.get("headline")
    if not isinstance(h, dict):
        return ("n/a", "n/a (the lab declares no headline)", "n/a")
    return (str(h.get("label") or "?"), str(h.get("text") or "n/a"),
            str(h.get("reference") or "n/a"))


# Labs whose experiment scores your allocator (lab allocator_design's
# labs/allocator_design/score.h, malloclab's performance index): the lab,
# and the row of its results JSON with the total (`score`) and its two
# parts (`u_points`, `t_points`). The board and the tour show it.
SCORES = {"allocator_design": "score_total"}

# The runs a lab's score is shown beside (SCORES): the reference's and the
# other designs', each the results JSON of one quick run, committed in
# docs/img/ with the load average it began at in its machine line (the
# throughput part is that load's; the utilization part is the same on
# every run).
# `bazel run //:tour -- --reference --labs=allocator_design --out=docs/img`
# writes the reference's; each design's experiment its own: `bazel run
# //solutions/allocator_design:segregated_fit/allocator_design -- --quick
# --json=$PWD/docs/img/allocator_design_segregated_fit.json`. They are in
# the runfiles of every user of this module (//:scored_runs).
SCORED_BESIDE = {
    "allocator_design": [
        ("reference", "allocator_design_reference.json"),
        ("segregated_fit", "allocator_design_segregated_fit.json"),
        ("thread_owned_pages", "allocator_design_thread_owned_pages.json"),
    ],
}

# docs/img/ in the runfiles, beside this module's package.
IMG = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                   os.pardir, "docs", "img")

# The columns of score_rows().
SCORE_HEADER = ["run", "score", "utilization part", "throughput part",
                "load average"]


def score_parts(lab, results):
    """The score row's (total, utilization part, throughput part) of `lab`'s
    `results`, each "%.3f" or "n/a" where the run could not measure it;
    None when the lab has no score (SCORES) or the run no such row."""
    if lab not in SCORES:
        return None
    rows = results.get("rows") if isinstance(results, dict) else None
    row = next((r for r in rows if isinstance(r, dict) and
                r.get("variant") == SCORES[lab]),
               None) if isinstance(rows, list) else None
    if row is None:
        return None

    def cell(key):
        value = row.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "n/a"
        return "%.3f" % value

    return cell("score"), cell("u_points"), cell("t_points")


def score_of(lab, results):
    """(label, figure) of the score in `lab`'s results, or None when the lab
    has no score (SCORES). The figure is the total and its two parts, e.g.
    "0.775 = utilization part 0.410 (the same on every run) + throughput
    part 0.365 (this machine's)", a part the run could not measure as n/a;
    None when the run has no such row."""
    if lab not in SCORES:
        return None
    label = "score (malloclab's index, labs/%s/score.h)" % lab
    parts = score_parts(lab, results)
    if parts is None:
        return label, None
    return (label,
            "%s = utilization part %s (the same on every run) + throughput "
            "part %s (this machine's)" % parts)


def scores_beside(lab, img=IMG):
    """[(name, results or None)] of the runs `lab`'s score is shown beside
    (SCORED_BESIDE), read from `img`; None where a file is missing or not
    JSON. [] for a lab without them."""
    runs = []
    for name, file_name in SCORED_BESIDE.get(lab, []):
        try:
            with open(os.path.join(img, file_name), encoding="utf-8") as f:
                runs.append((name, json.load(f)))
        except (OSError, ValueError):
            runs.append((name, None))
    return runs


def score_rows(lab, runs):
    """The rows of SCORE_HEADER for `runs`, [(name, results or None)]: each
    run's score, its two parts and the load average it was taken at."""
    rows = []
    for name, results in runs:
        parts = (score_parts(lab, results) if results is not None
                 else None) or ("n/a",) * 3
        load = load_average(results) if results is not None else None
        rows.append([name] + list(parts) +
                    ["n/a" if load is None else "%.2f" % load])
    return rows


def beside_line(lab, img=IMG):
    """One line of the scores `lab`'s is shown beside, e.g. "reference
    0.812, segregated_fit 0.700, thread_owned_pages 0.690 (runs in
    docs/img/)", or None for a lab without them."""
    runs = scores_beside(lab, img)
    if not runs:
        return None
    return "%s (runs in docs/img/)" % ", ".join(
        "%s %s" % (row[0], row[1]) for row in score_rows(lab, runs))
