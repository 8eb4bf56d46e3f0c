# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""What //:report, //:tour and //:board share about results JSON: where a
path on the command line points, how a number and a table are written, the
machine line, a lab's headline and a lab's score.

One module, so that the report and the tour cannot disagree about the
directory a relative path means or how a column is aligned.

Example:

    from tools.results import resolve, table, fmt
    path = resolve("mine.json")    # the directory `bazel run` was typed in
    print(table(["variant", "ns_per_call"], [["small_new", fmt(51.6)]]))
"""

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


def score_of(lab, results):
    """(label, figure) of the score in `lab`'s results, or None when the lab
    has no score (SCORES). The figure is the total and its two parts, e.g.
    "0.775 = utilization part 0.410 (the same on every run) + throughput
    part 0.365 (this machine's)", a part the run could not measure as n/a;
    None when the run has no such row."""
    if lab not in SCORES:
        return None
    label = "score (malloclab's index, labs/%s/score.h)" % lab
    rows = results.get("rows") if isinstance(results, dict) else None
    row = next((r for r in rows if isinstance(r, dict) and
                r.get("variant") == SCORES[lab]),
               None) if isinstance(rows, list) else None
    if row is None:
        return label, None

    def cell(key):
        value = row.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "n/a"
        return "%.3f" % value

    return (label,
            "%s = utilization part %s (the same on every run) + throughput "
            "part %s (this machine's)" % (cell("score"), cell("u_points"),
                                          cell("t_points")))
