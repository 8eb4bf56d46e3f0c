# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The frame every picture of tools/plot.py is drawn in, and the panels a
results JSON asks for.

`Canvas` is a figure of rows x columns of panels: the chapter's question on top
(the lab's QUESTION), then one legend row that also carries the picture's notes
(the lab's PICTURE_NOTES last), the panels, and at the foot which run ran on
which machine, with its load average. `specs_of` reads and checks the panels a
JSON chose ("plots", common/harness/report.h `Results::AddPlot`) or picks the
default; `chosen`, `check_has`, `row_value` and `row_labels` are how every kind
(tools/plot_kinds.py) reads rows. `gid` names each drawn series in the SVG, so
that a test can find it. Kept apart from the kinds so that a new kind draws
into the same frame and reads the rows one way.

Example:

    from tools.plot_canvas import Canvas, specs_of
    specs = specs_of(results, "mine.json")  # [{"kind": "bars", ...}]
    canvas = Canvas(mpl, "allocator_cost", runs, len(specs), 1, 2.6)
    ...                                     # draw into canvas.axes[r][c]
    fig = canvas.finish()                   # legend, notes, machine line
"""

import re

from tools import palette
from tools.plot_units import lab_fact, number, plain, question, wrap

KINDS = ("bars", "lines", "scatter", "samples")

# Figure width, inches: the width of a chapter's column.
WIDTH = 9.0


class PlotError(Exception):
    """A plot that cannot be drawn from this input: exit 2, with why."""


def gid(run, name):
    """An SVG id for one series of one run."""
    return "series-%d-%s" % (run, re.sub(r"[^A-Za-z0-9_.-]", "_", str(name)))


# ----------------------------------------------------------------------------
# Rows and the panels a JSON chose.

def row_value(row, key):
    """A row's `key`; "threads" is 1 where the row names none."""
    if key == "threads":
        return row.get("threads", 1)
    return row.get(key)


def row_labels(rows):
    """The name of each row: its variant, with its thread count where one
    variant runs at several."""
    counts = {}
    for row in rows:
        counts.setdefault(row.get("variant"), set()).add(row.get("threads", 1))
    return lambda row: (str(row.get("variant")) if len(counts.get(
        row.get("variant"), ())) <= 1 else "%s, %s threads" % (
            row.get("variant"), row.get("threads", 1)))


def default_spec(rows):
    for row in rows:
        if number(row.get("ns_per_call")):
            return {"kind": "bars", "y": "ns_per_call"}
    for row in rows:
        for key, value in row.items():
            if key not in ("variant", "threads") and number(value):
                return {"kind": "bars", "y": key}
    raise PlotError("no row has a number to draw")


def specs_of(results, path):
    """The panels the lab chose, checked, or the default."""
    plots = results.get("plots")
    if plots is None:
        return [default_spec(results["rows"])]
    if not isinstance(plots, list) or not plots:
        raise PlotError("%s: \"plots\" must be a non-empty list" % path)
    specs = []
    for spec in plots:
        if not isinstance(spec, dict) or spec.get("kind") not in KINDS:
            raise PlotError("%s: plot %r: \"kind\" must be one of %s" %
                            (path, spec, ", ".join(KINDS)))
        if not spec.get("y"):
            raise PlotError("%s: plot of kind %s names no \"y\"" %
                            (path, spec["kind"]))
        if spec["kind"] in ("lines", "scatter") and not spec.get("x"):
            raise PlotError("%s: plot of kind %s names no \"x\"" %
                            (path, spec["kind"]))
        variants = spec.get("variants")
        if variants is not None and (not isinstance(variants, list) or not all(
                isinstance(v, str) for v in variants)):
            raise PlotError(
                "%s: plot \"variants\" must be a list of names" % path)
        specs.append(spec)
    return specs


def check_has(runs, key, what, spec):
    for _, results in runs:
        if any(row_value(row, key) is not None for row in results["rows"]):
            return
    raise PlotError("plot %s: no row has %s \"%s\"" % (spec["kind"], what, key))


def chosen(runs, spec):
    wanted = spec.get("variants")
    if not wanted:
        return runs
    return [(name, dict(results, rows=[r for r in results["rows"]
                                       if r.get("variant") in wanted]))
            for name, results in runs]


# ----------------------------------------------------------------------------
# The figure: the question on top, then the legend (and notes), the panels,
# and the machine line at the foot.

class Canvas:
    """A figure of `rows` x `cols` panels under a legend row."""

    def __init__(self, mpl, lab, runs, rows, cols, panel_height):
        self.mpl = mpl
        self.lab = lab
        self.runs = runs
        height = 1.6 + rows * panel_height
        self.fig = mpl.figure.Figure(
            figsize=(WIDTH, height), layout="constrained")
        mpl.backends.backend_agg.FigureCanvasAgg(self.fig)
        grid = self.fig.add_gridspec(rows + 1, cols,
                                     height_ratios=[0.05] + [1] * rows)
        self.legend_ax = self.fig.add_subplot(grid[0, :])
        self.legend_ax.axis("off")
        self.axes = [[None] * cols for _ in range(rows)]
        for r in range(rows):
            for c in range(cols):
                self.axes[r][c] = self.fig.add_subplot(grid[r + 1, c])
        self.handles = []
        self.notes = []
        self.fig.suptitle(wrap(question(lab) or "lab %s" % lab),
                          fontsize="large", fontweight="bold")

    def add_entry(self, artist, label):
        if label not in [entry[1] for entry in self.handles]:
            self.handles.append((artist, label))

    def run_entries(self, color=palette.NEUTRAL):
        """One legend entry per run, in words, in the runs' fill."""
        for i, (name, _) in enumerate(self.runs):
            style = palette.RUN_STYLES[i % 2]
            self.add_entry(self.mpl.patches.Patch(
                facecolor=color, alpha=style["alpha"], hatch=style["hatch"],
                edgecolor="white" if style["hatch"] else color),
                run_words(i, name, len(self.runs)))

    def finish(self):
        # The notes head the legend, inside its box: nothing can overlap.
        # The lab's own (its PICTURE_NOTES) come last.
        self.notes.extend(lab_fact(self.lab, "PICTURE_NOTES", []))
        notes = "\n".join(wrap(n, 100) for n in self.notes) or None
        if self.handles or notes:
            self.legend_ax.legend([h for h, _ in self.handles],
                                  [label for _, label in self.handles],
                                  loc="center",
                                  ncol=min(4, len(self.handles) or 1),
                                  fontsize="small", frameon=False, title=notes,
                                  title_fontsize="small", alignment="left")
        # Which run ran where: "starter task.cc and reference solution: CPU,
        # kernel".
        machines = {}
        for name, results in self.runs:
            m = results.get("machine") or {}
            line = "%s, %s" % (m.get("cpu_model", "?"), m.get("kernel", "?"))
            load = m.get("load_average")
            if isinstance(load, list) and load and number(load[0]):
                # A busy machine's timings are noisy: the picture says so.
                line += ", load average %s on %s CPUs" % (
                    plain(load[0]), m.get("logical_cpus", "?"))
            machines.setdefault(line, []).append(name)
        self.fig.supxlabel(wrap("; ".join(
            "%s: %s" % (" and ".join(names), line)
            for line, names in machines.items()), 120),
            fontsize="x-small", color="gray")
        return self.fig


def run_words(i, name, count):
    """How the legend names run `i` of `count`, fill included."""
    if count == 1:
        return name
    return "%s (%s)" % (name, "solid" if i % 2 == 0 else "light, hatched")
