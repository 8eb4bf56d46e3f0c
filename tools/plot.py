# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Draws a lab's picture from its results JSON, as an SVG file: one picture
per lab, made to answer the chapter's question at a glance.

Each picture has the chapter's question as its title, panels titled by what
they show in words, units a person reads (ns, µs or ms by magnitude; KiB,
MiB or GiB; "x glibc" for a ratio), values as plain numbers, and one legend
of a few entries. Colours come from tools/palette.py: one per allocator and
per counting mode in every picture of the course. Two runs of one lab (a
learner's and the reference solution's) draw into the same panels, the
first solid and the second light and hatched, and the legend says which is
which in words.

What this file knows of one lab is in the lab's package, in
labs/<lab>/lab_facts.py (tools/labs.py `facts()`): QUESTION, the title;
optionally LABELS (its own words for a metric), RATIO_BASE (what its ratios
are relative to), PICTURE (a picture of PICTURES other than the panels) and
PICTURE_NOTES (words every picture of it carries). Here is only the
machinery, for any lab.

PICTURES: "modes" (one line per counting mode against the thread count,
the learner's mode thicker, a column per run: lab counter_contention) and
"matrix" (small multiples, one row per workload, time as a ratio to the
RATIO_BASE allocator with its interval beside the peak-RSS ratio, the
memory budget as a line, the recommendation named: labs jemalloc_adoption
and allocator_design). Every other lab, and a new one, is drawn from the
panels its JSON chose ("plots", common/report.h `Results::AddPlot`):

    bars     one horizontal bar per row and run: "y" per variant
    lines    "y" against "x" (a metric, or "threads"), one line per value of
             "series" (a text field such as "mode", or "variant")
    scatter  one point per row at ("x", "y"), named by "series"
    samples  each row's "y" samples over time; "x" is the sample array of
             their times, or a metric holding the time between two samples;
             left out, with the reason on the picture, where a run has too
             few samples to be a curve

Optional in each: "variants" (the rows to draw; all when absent) and
"log_y" (a logarithmic value axis). Without "plots", bars of "ns_per_call"
(or of the first metric of the rows).

Every drawn series carries an SVG id "series-<run>-<name>", so a test (and a
curious learner) can find it in the file.

Example:

    from tools import plot
    fig = plot.figure([("starter task.cc", mine), ("reference solution", ref)])
    plot.draw([("mine.json", mine)], "mine.svg")

matplotlib comes from Debian's python3-matplotlib, which tools/setup.sh
installs; it is imported only when a picture is asked for.
"""

import math
import re
import sys
import textwrap

from tools import labs
from tools import palette

# The interpreter Debian's python3-matplotlib serves.
DEBIAN_PYTHON = "/usr/bin/python3"

KINDS = ("bars", "lines", "scatter", "samples")


def lab_fact(lab, name, default=None):
    """A fact of `lab` from its labs/<lab>/lab_facts.py, or `default` where
    the lab states none (or is not one of the course's: a fixture's)."""
    try:
        return getattr(labs.facts(lab), name, default)
    except labs.MissingFacts:
        return default


def question(lab):
    """The lab's picture's title: its chapter's question (its QUESTION)."""
    return lab_fact(lab, "QUESTION")


# What a metric is, in words; its unit comes from its key (_ns, _s, _kib).
LABELS = {
    "ns_per_call": "time per call",
    "cpu_ns_per_call": "CPU time per call",
    "allocs_per_call": "allocations per call",
    "page_faults_per_call": "page faults per call",
    "mmap_per_call": "mmap system calls per call",
    "munmap_per_call": "munmap system calls per call",
    "madvise_per_call": "madvise system calls per call",
    "brk_per_call": "brk system calls per call",
    "top_resident_kib": "resident memory at the top of the heap",
    "peak_rss_kib": "peak RSS",
    "rss_kib": "RSS",
    "wall_s": "wall time",
    "user_s": "user (CPU) time",
    "sys_s": "system (kernel) time",
    "time_ratio": "time relative to the baseline",
    "rss_ratio": "peak RSS relative to the baseline",
    "threads": "number of threads",
    "rss_t_s": "time since the start",
    "rss_t_ms": "time since the start",
}

# Where a run's samples are too few to be a curve: fewer than this many in
# any row, and the panel is left out with the reason.
MIN_CURVE_SAMPLES = 20

# Figure width, inches: the width of a chapter's column.
WIDTH = 9.0

# How wide a title line may be, in characters.
TITLE_CHARS = 72


class PlotError(Exception):
    """A plot that cannot be drawn from this input: exit 2, with why."""


def load_matplotlib():
    """The matplotlib module, set up for files, or a PlotError naming the
    package."""
    try:
        import matplotlib  # noqa: PLC0415
        matplotlib.use("svg")
        import matplotlib.figure  # noqa: PLC0415,F401
        import matplotlib.ticker  # noqa: PLC0415,F401
        import matplotlib.patches  # noqa: PLC0415,F401
        import matplotlib.lines  # noqa: PLC0415,F401
        from matplotlib.backends import backend_agg  # noqa: PLC0415,F401
    except ImportError as e:
        raise PlotError(
            "plots need matplotlib (%s) in the Python that runs this, %s: "
            "install Debian's python3-matplotlib (sudo tools/setup.sh does) "
            "and run with %s" % (e, sys.executable, DEBIAN_PYTHON)) from None
    # Same input, same file: no random ids or dates in the SVG.
    matplotlib.rcParams["svg.hashsalt"] = "alloclab"
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["font.family"] = "DejaVu Sans"
    return matplotlib


# ----------------------------------------------------------------------------
# Numbers and units.

def _number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def plain(value):
    """A number as a person writes it: "52,100", "37.9", "0.014", "0"; three
    significant digits, never e-notation."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 100:
        places = int(math.floor(math.log10(magnitude))) - 2
        return "{:,.0f}".format(round(value, -places))
    digits = max(0, 2 - int(math.floor(math.log10(magnitude))))
    text = "%.*f" % (digits, value)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def quantity(key):
    """What a metric key measures, from its unit token: "time" with its
    base unit in ns, "size" in KiB, "ratio", or "count"."""
    tokens = str(key).split("_")
    if "ns" in tokens:
        return "time", 1.0
    if "ms" in tokens:
        return "time", 1e6
    if tokens[-1] == "s" or "s" in tokens[1:]:
        return "time", 1e9
    if "kib" in tokens:
        return "size", 1.0
    if "bytes" in tokens:
        return "size", 1.0 / 1024
    if "ratio" in tokens:
        return "ratio", 1.0
    return "count", 1.0


def unit_for(key, values, log=False):
    """(factor, unit) to show `values` of `key` in: the unit chosen by the
    largest magnitude (on a log axis, by the middle one: values there span
    decades), and the factor that turns a value into it."""
    kind, base = quantity(key)
    magnitudes = sorted(abs(v) for v in values if _number(v)) or [0]
    biggest = magnitudes[(len(magnitudes) - 1) // 2] if log else magnitudes[-1]
    if kind == "time":
        ns = biggest * base
        for limit, unit, size in ((1e3, "ns", 1), (1e6, "µs", 1e3),
                                  (1e9, "ms", 1e6)):
            if ns < limit:
                return base / size, unit
        return base / 1e9, "s"
    if kind == "size":
        kib = biggest * base
        for limit, unit, size in ((1024, "KiB", 1), (1024 ** 2, "MiB", 1024)):
            if kib < limit:
                return base / size, unit
        return base / 1024 ** 2, "GiB"
    return 1.0, None


def label_of(lab, key):
    """A metric's name in words: the lab's, the course's, or the key's
    words without the unit."""
    own = lab_fact(lab, "LABELS") or {}
    if key in own:
        return own[key]
    if key in LABELS:
        return LABELS[key]
    words = [w for w in str(key).split("_") if w not in ("ns", "ms", "s", "kib",
                                                         "bytes")]
    return " ".join(words) or str(key)


def axis_label(lab, key, unit, log=False):
    """An axis label: the metric in words and its unit."""
    kind, _ = quantity(key)
    text = label_of(lab, key)
    if kind == "ratio":
        base = lab_fact(lab, "RATIO_BASE")
        unit = "x %s" % base if base else "x"
    if unit:
        text += " (%s%s)" % (unit, ", log scale" if log else "")
    elif log:
        text += " (log scale)"
    return text


# The unit a metric key's values are in, as a table prints them unscaled.
KEY_UNITS = {"ns": "ns", "ms": "ms", "s": "s", "kib": "KiB", "bytes": "bytes"}


def column_title(lab, key):
    """A table column's title: the metric in words and the unit its values
    are in ("time per call (ns)"), never the results JSON's key."""
    tokens = str(key).split("_")
    unit = next((KEY_UNITS[t] for t in tokens if t in KEY_UNITS), None)
    return axis_label(lab, key, unit)


def gid(run, name):
    """An SVG id for one series of one run."""
    return "series-%d-%s" % (run, re.sub(r"[^A-Za-z0-9_.-]", "_", str(name)))


def wrap(text, width=TITLE_CHARS):
    return "\n".join(textwrap.wrap(text, width)) if text else text


# ----------------------------------------------------------------------------
# Rows.

def _value(row, key):
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
        if _number(row.get("ns_per_call")):
            return {"kind": "bars", "y": "ns_per_call"}
    for row in rows:
        for key, value in row.items():
            if key not in ("variant", "threads") and _number(value):
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


def _check_has(runs, key, what, spec):
    for _, results in runs:
        if any(_value(row, key) is not None for row in results["rows"]):
            return
    raise PlotError("plot %s: no row has %s \"%s\"" % (spec["kind"], what, key))


def _chosen(runs, spec):
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
            if isinstance(load, list) and load and _number(load[0]):
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


def set_plain_ticks(mpl, axis, log):
    """Plain-number tick labels: "1,000", not 10^3; no labelled minor
    ticks on a log axis."""
    axis.set_major_formatter(mpl.ticker.FuncFormatter(lambda v, _: plain(v)))
    if log:
        axis.set_minor_formatter(mpl.ticker.NullFormatter())


# ----------------------------------------------------------------------------
# Panels.

def draw_bars(canvas, ax, runs, spec, colors=None):
    """Horizontal bars, one per row and run, each with its value."""
    mpl, lab = canvas.mpl, canvas.lab
    y = spec["y"]
    _check_has(runs, y, "the metric", spec)
    name_of = row_labels([r for _, res in runs for r in res["rows"]])
    labels = []
    for _, results in runs:
        for row in results["rows"]:
            if name_of(row) not in labels and _number(row.get(y)):
                labels.append(name_of(row))
    if not labels:
        raise PlotError("plot bars: no row has a number \"%s\"" % y)
    every = [r.get(y) for _, res in runs for r in res["rows"]]
    log = bool(spec.get("log_y")) and all(
        v > 0 for v in every if _number(v))
    factor, unit = unit_for(y, every, log)
    n = len(runs)
    height = 0.8 / n
    shown = []
    for i, (name, results) in enumerate(runs):
        values = {name_of(r): r.get(y) for r in results["rows"]}
        style = palette.RUN_STYLES[i % 2]
        for j, label in enumerate(labels):
            pos = j + (i - (n - 1) / 2) * height
            value = values.get(label)
            color = colors(label) if colors else palette.NEUTRAL
            if not _number(value):
                ax.annotate("n/a", (0, pos), xycoords=("axes fraction", "data"),
                            xytext=(3, 0), textcoords="offset points",
                            va="center", fontsize="small")
                continue
            bar = ax.barh([pos], [value * factor], height, color=color,
                          alpha=style["alpha"], hatch=style["hatch"],
                          edgecolor="white" if style["hatch"] else color)
            bar.patches[0].set_gid(gid(i, label))
            shown.append(value * factor)
            ax.annotate(plain(value * factor), (value * factor, pos),
                        xytext=(3, 0), textcoords="offset points", va="center",
                        fontsize="small")
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    if log:
        ax.set_xscale("log")
        low = min(shown)
        ax.set_xlim(low / 3, max(shown) * 6)
    else:
        ax.set_xlim(0, max(shown + [0]) * 1.25 or 1)
    set_plain_ticks(mpl, ax.xaxis, log)
    ax.set_xlabel(axis_label(lab, y, unit, log))
    ax.set_title(spec_title(lab, y), loc="left", fontsize="medium")
    ax.grid(True, axis="x", alpha=0.3)


def spec_title(lab, key):
    """A panel's title: the metric in words, as written ("mmap", not
    "Mmap")."""
    return label_of(lab, key)


def draw_lines(canvas, ax, runs, spec):
    mpl, lab = canvas.mpl, canvas.lab
    x, y, series = spec["x"], spec["y"], spec.get("series") or "variant"
    _check_has(runs, x, "the x metric", spec)
    _check_has(runs, y, "the metric", spec)
    every = [r.get(y) for _, res in runs for r in res["rows"]]
    factor, unit = unit_for(y, every)
    xfactor, xunit = unit_for(x, [_value(r, x)
                              for _, res in runs for r in res["rows"]])
    for i, (name, results) in enumerate(runs):
        groups = {}
        for row in results["rows"]:
            if _number(_value(row, x)) and _number(row.get(y)):
                groups.setdefault(str(_value(row, series)), []).append(
                    (_value(row, x) * xfactor, row[y] * factor))
        for label, points in groups.items():
            points.sort()
            color = series_color(series, label)
            line, = ax.plot([p[0] for p in points], [p[1] for p in points],
                            marker=palette.RUN_MARKERS[i % 2],
                            linestyle=palette.RUN_LINESTYLES[i % 2],
                            color=color)
            line.set_gid(gid(i, label))
            canvas.add_entry(mpl.lines.Line2D([], [], color=color), label)
    if len(runs) > 1:
        for i, (name, _) in enumerate(runs):
            canvas.add_entry(mpl.lines.Line2D(
                [], [], color="gray", linestyle=palette.RUN_LINESTYLES[i % 2],
                marker=palette.RUN_MARKERS[i % 2]), "%s (%s)" % (
                    name, "solid" if i % 2 == 0 else "dashed"))
    ax.set_xlabel(axis_label(lab, x, xunit))
    ax.set_ylabel(axis_label(lab, y, unit))
    ax.set_title(spec_title(lab, y), loc="left", fontsize="medium")
    if x == "threads":
        ax.xaxis.get_major_locator().set_params(integer=True)
    set_plain_ticks(mpl, ax.yaxis, False)
    ax.grid(True, alpha=0.3)


def series_color(series, label):
    if series == "mode":
        return palette.mode_color(label)
    if palette.allocator_of(label):
        return palette.allocator_color(palette.allocator_of(label))
    return palette.mode_color(label)  # a spare colour per name


def draw_scatter(canvas, ax, runs, spec):
    mpl, lab = canvas.mpl, canvas.lab
    x, y, series = spec["x"], spec["y"], spec.get("series") or "variant"
    _check_has(runs, x, "the x metric", spec)
    _check_has(runs, y, "the metric", spec)
    factor, unit = unit_for(y, [r.get(y)
                            for _, res in runs for r in res["rows"]])
    xfactor, xunit = unit_for(x, [r.get(x)
                              for _, res in runs for r in res["rows"]])
    for i, (name, results) in enumerate(runs):
        for row in results["rows"]:
            if not (_number(_value(row, x)) and _number(row.get(y))):
                continue
            label = str(_value(row, series))
            color = series_color(series, label)
            point = ax.scatter([_value(row, x) * xfactor], [row[y] * factor],
                               marker=palette.RUN_MARKERS[i % 2], color=color,
                               alpha=palette.RUN_STYLES[i % 2]["alpha"])
            point.set_gid(gid(i, label))
            canvas.add_entry(mpl.lines.Line2D([], [], color=color, marker="o",
                                              linestyle=""), label)
    ax.set_xlabel(axis_label(lab, x, xunit))
    ax.set_ylabel(axis_label(lab, y, unit))
    ax.set_title(spec_title(lab, y), loc="left", fontsize="medium")
    ax.grid(True, alpha=0.3)


def sample_rows(runs, spec):
    """(run, row, times, values) of every row with samples of "y"."""
    x, y = spec.get("x"), spec["y"]
    out = []
    for i, (_, results) in enumerate(runs):
        name_of = row_labels(results["rows"])
        for row in results["rows"]:
            values = row.get(y)
            if not isinstance(values, list) or not values:
                continue
            times = row.get(x) if x else None
            if isinstance(times, list):
                if len(times) != len(values):
                    raise PlotError(
                        "plot samples: row %s has %d \"%s\" but %d \"%s\"" %
                        (name_of(row), len(values), y, len(times), x))
            elif _number(times):
                times = [k * times for k in range(len(values))]
            else:
                times = list(range(len(values)))
            pairs = [(t, v) for t, v in zip(times, values)
                     if _number(t) and _number(v)]
            out.append((i, name_of(row), pairs))
    if not out:
        raise PlotError("plot samples: no row has samples \"%s\"" % y)
    return out


def samples_too_few(runs, spec):
    """Why the samples of `spec` are no curve, or None when they are one."""
    rows = sample_rows(runs, spec)
    fewest = min(len(pairs) for _, _, pairs in rows)
    if fewest >= MIN_CURVE_SAMPLES:
        return None
    return ("%s over time is left out: a row of these runs has only %d "
            "sample%s, "
            "too few for a curve (at least %d); the table has the peak." % (
                spec_title(canvas_lab(runs), spec["y"]), fewest,
                "" if fewest == 1 else "s", MIN_CURVE_SAMPLES))


def canvas_lab(runs):
    return runs[0][1].get("lab")


def draw_samples(canvas, ax, runs, spec):
    mpl, lab = canvas.mpl, canvas.lab
    x, y = spec.get("x"), spec["y"]
    rows = sample_rows(runs, spec)
    factor, unit = unit_for(y, [v for _, _, p in rows for _, v in p])
    tfactor, tunit = unit_for(x or "", [t for _, _, p in rows for t, _ in p])
    for i, label, pairs in rows:
        color = series_color("variant", label)
        line, = ax.plot([p[0] * tfactor for p in pairs],
                        [p[1] * factor for p in pairs],
                        linestyle=palette.RUN_LINESTYLES[i % 2], color=color)
        line.set_gid(gid(i, label))
        canvas.add_entry(mpl.lines.Line2D([], [], color=color), label)
    ax.set_xlabel(axis_label(lab, x, tunit) if x else "sample number")
    ax.set_ylabel(axis_label(lab, y, unit))
    ax.set_title(spec_title(lab, y) + " over time",
                 loc="left", fontsize="medium")
    ax.grid(True, alpha=0.3)


DRAW = {"bars": draw_bars, "lines": draw_lines, "scatter": draw_scatter,
        "samples": draw_samples}


def allocator_colors(runs):
    """A colour function by allocator when the rows name allocators (a field
    "allocator", or a variant such as "musl_1024"), else None."""
    names = [r.get("allocator") or palette.allocator_of(r.get("variant"))
             for _, res in runs for r in res["rows"]]
    if not any(names):
        return None
    by_label = {}
    for _, res in runs:
        name_of = row_labels(res["rows"])
        for r in res["rows"]:
            by_label[name_of(r)] = (r.get("allocator") or
                                    palette.allocator_of(r.get("variant")))
    return lambda label: (palette.allocator_color(by_label[label])
                          if by_label.get(label) else palette.NEUTRAL)


def from_specs(mpl, runs):
    """The generic picture: the panels the lab's JSON chose."""
    lab = runs[0][1]["lab"]
    specs = specs_of(runs[0][1], runs[0][0])
    panels, notes = [], []
    for spec in specs:
        shown = _chosen(runs, spec)
        if spec["kind"] == "samples":
            why = samples_too_few(shown, spec)
            if why:
                notes.append(why)
                continue
        panels.append((spec, shown))
    if not panels:
        raise PlotError("lab %s: nothing to draw: %s" % (lab, " ".join(notes)))
    bar_rows = max([len(s[1][0][1]["rows"])
                   for s in panels if s[0]["kind"] == "bars"] or [0])
    height = max(2.6, 0.55 + bar_rows * 0.28 * len(runs))
    canvas = Canvas(mpl, lab, runs, len(panels), 1, height)
    canvas.notes.extend(notes)
    colors = allocator_colors(runs)
    for (spec, shown), row in zip(panels, canvas.axes):
        if spec["kind"] == "bars":
            draw_bars(canvas, row[0], shown, spec, colors)
        else:
            DRAW[spec["kind"]](canvas, row[0], shown, spec)
    if any(s["kind"] == "bars" for s, _ in panels):
        if colors:
            present = []
            for _, res in runs:
                for r in res["rows"]:
                    a = r.get("allocator") or palette.allocator_of(
                        r.get("variant"))
                    if a and a not in present:
                        present.append(a)
            for a in present:
                canvas.add_entry(mpl.patches.Patch(
                    color=palette.allocator_color(a)), a)
            if len(runs) > 1:
                canvas.run_entries(color="gray")
        elif len(runs) > 1:
            canvas.run_entries()
    return canvas.finish()


# ----------------------------------------------------------------------------
# "modes": one line per counting mode, a column per run.

def modes(mpl, runs):
    """One line per counting mode (a row's "mode") against the thread count,
    the learner's mode thicker, a column per run; a point whose threads
    never ran together hollow."""
    lab = runs[0][1]["lab"]
    specs = [s for s in specs_of(runs[0][1], runs[0][0])
             if s["kind"] == "lines"]
    if not specs:
        return from_specs(mpl, runs)
    canvas = Canvas(mpl, lab, runs, len(specs), len(runs), 2.9)
    any_hollow = False
    for r, spec in enumerate(specs):
        y = spec["y"]
        _check_has(runs, y, "the metric", spec)
        shown = _chosen(runs, spec)
        factor, unit = unit_for(y, [row.get(y)
                                for _, res in shown for row in res["rows"]])
        top = 0
        for c, (name, results) in enumerate(shown):
            ax = canvas.axes[r][c]
            groups = {}
            for row in results["rows"]:
                mode = row.get("mode") or row.get("variant")
                if _number(row.get("threads", 1)) and _number(row.get(y)):
                    groups.setdefault(str(mode), []).append(
                        (row.get("threads", 1), row[y] * factor))
            apart = {}  # mode: the thread counts whose rounds never overlapped
            for row in results["rows"]:
                if row.get("rounds_together") == 0 and row.get(
                        "threads", 1) != 1:
                    apart.setdefault(str(row.get("mode") or row.get("variant")),
                                     set()).add(row.get("threads"))
            for mode, points in groups.items():
                points.sort()
                learner = mode == palette.LEARNER_MODE
                color = palette.mode_color(mode)
                line, = ax.plot([p[0] for p in points], [p[1] for p in points],
                                marker="o", color=color,
                                linewidth=3.2 if learner else 1.4,
                                markersize=6 if learner else 4,
                                zorder=3 if learner else 2)
                line.set_gid(gid(c, mode))
                hollow = [p for p in points if p[0] in apart.get(mode, ())]
                if hollow:
                    # A point whose threads took turns: it cannot show
                    # contention, whatever the counter.
                    ax.plot([p[0] for p in hollow],
                            [p[1] for p in hollow],
                            linestyle="",
                            marker="o",
                            markersize=8 if learner else 6,
                            markerfacecolor="white",
                            markeredgecolor=color,
                            markeredgewidth=1.5,
                            zorder=4)
                    any_hollow = True
                top = max([top] + [p[1] for p in points])
                canvas.add_entry(mpl.lines.Line2D(
                    [], [], color=palette.mode_color(mode), marker="o",
                    linewidth=3.2 if learner else 1.4),
                    mode + (" (your task.cc)" if learner else ""))
            ax.set_title("%s: %s" % (spec_title(lab, y), name), loc="left",
                         fontsize="medium")
            ax.set_xlabel("number of threads")
            if c == 0:
                ax.set_ylabel(axis_label(lab, y, unit))
            ax.xaxis.get_major_locator().set_params(integer=True)
            set_plain_ticks(mpl, ax.yaxis, False)
            ax.grid(True, alpha=0.3)
        for ax in canvas.axes[r]:
            ax.set_ylim(0, top * 1.1 or 1)
    if any_hollow:
        canvas.add_entry(
            mpl.lines.Line2D(
                [],
                [],
                color="gray",
                marker="o",
                linestyle="",
                markerfacecolor="white"),
            "hollow: threads never ran together")
    return canvas.finish()


# ----------------------------------------------------------------------------
# "matrix": small multiples, one row per workload.

def _budget(results):
    for note in results.get("notes", []):
        m = re.search(
            r"budget:? (?:peak RSS at most )?([0-9]+(?:\.[0-9]+)?)x", note)
        if m:
            return float(m.group(1))
    return None


def _recommended(results):
    for note in results.get("notes", []):
        m = re.match(r"memo: recommended: (.+)$", note)
        if m:
            return m.group(1).strip()
    return None


def matrix(mpl, runs):
    """Each allocator's time and peak-RSS ratios to the lab's RATIO_BASE
    allocator, a row per workload (lab 7's matrix, and lab 8's: the same
    table with yours in it)."""
    lab = runs[0][1]["lab"]
    base = lab_fact(lab, "RATIO_BASE") or "glibc"
    workloads = []
    for _, results in runs:
        for row in results["rows"]:
            w = row.get("workload")
            if (w and w not in workloads and _number(row.get("time_ratio"))
                    and row.get("vs") in (None, base)
                    and not row.get("malloc_conf")):
                workloads.append(w)
    if not workloads:
        return from_specs(mpl, runs)
    allocators = []
    for _, results in runs:
        for row in results["rows"]:
            a = row.get("allocator")
            if a and a != base and a not in allocators and _number(
                    row.get("time_ratio")):
                allocators.append(a)
    n = len(runs)
    canvas = Canvas(mpl, lab, runs, len(workloads), 2,
                    max(1.15, 0.35 + 0.24 * len(allocators) * n))
    budget = _budget(runs[-1][1])
    height = 0.8 / n
    tuned = []  # rows tuned with malloc_conf, of a workload drawn
    # Every ratio drawn, per column: the axes are logarithmic around 1, so
    # that 0.5x and 2x lie as far from glibc, and a 12x bar leaves the
    # 0.9x ones readable.
    extremes = ([], [])
    for w, workload in enumerate(workloads):
        for c, key in enumerate(("time_ratio", "rss_ratio")):
            ax = canvas.axes[w][c]
            for i, (name, results) in enumerate(runs):
                style = palette.RUN_STYLES[i % 2]
                rec = _recommended(results)
                for j, a in enumerate(allocators):
                    rows = [r for r in results["rows"]
                            if r.get("workload") == workload
                            and r.get("allocator") == a
                            and not r.get("malloc_conf")
                            and r.get("vs") in (None, base)]
                    tuned += [r for r in results["rows"]
                              if r.get("malloc_conf") and
                              r.get("workload") == workload]
                    pos = j + (i - (n - 1) / 2) * height
                    value = rows[0].get(key) if rows else None
                    if not _number(value):
                        ax.annotate(
                            "n/a",
                            (0.02,
                             pos),
                            xycoords=(
                                "axes fraction",
                                "data"),
                            va="center",
                            fontsize="x-small")
                        continue
                    extremes[c].append(value)
                    color = palette.allocator_color(a)
                    bar = ax.barh([pos], [value - 1], height, left=1,
                                  color=color, alpha=style["alpha"],
                                  hatch=style["hatch"],
                                  edgecolor=("black" if rec == a else
                                             "white" if style["hatch"]
                                             else color),
                                  linewidth=1.6 if rec == a else 0.5)
                    bar.patches[0].set_gid(
                        gid(i, "%s_%s_%s" % (workload, a, key)))
                    if key == "time_ratio":
                        low, high = rows[0].get(
                            "ci_low"), rows[0].get("ci_high")
                        if _number(low) and _number(high) and low > 0:
                            extremes[c].extend([low, high])
                            ax.errorbar([value],
                                        [pos],
                                        xerr=[[value - low],
                                              [high - value]],
                                        fmt="none",
                                        ecolor="black",
                                        elinewidth=0.9,
                                        capsize=2)
            ax.axvline(1, color=palette.allocator_color(base), linewidth=1.2)
            if key == "rss_ratio" and budget:
                ax.axvline(budget, color="#B22222",
                           linestyle="--", linewidth=1.2)
            ax.set_yticks(range(len(allocators)))
            ax.set_yticklabels(allocators)
            ax.set_ylim(len(allocators) - 0.5, -0.5)
            ax.set_xscale("log")
            # 0.5x, 1x, 2x, 5x...: a ratio axis spans less than a decade on
            # a quiet run, where ticks at powers of ten alone show only 1.
            ax.xaxis.set_major_locator(
                mpl.ticker.LogLocator(base=10, subs=(1, 2, 5)))
            set_plain_ticks(mpl, ax.xaxis, True)
            ax.grid(True, axis="x", alpha=0.3)
            if c == 0:
                ax.set_title(workload, loc="left", fontsize="medium",
                             fontweight="bold")
            if w == len(workloads) - 1:
                ax.set_xlabel("%s (x %s, log scale)" % (
                    "wall time" if key == "time_ratio" else "peak RSS", base))
            else:
                ax.tick_params(axis="x", labelbottom=False)
    # One x range per column, so that rows compare, as far out on each
    # side of 1 (the budget line inside it).
    for c in range(2):
        values = [v for v in extremes[c] if v > 0] + [
            budget if c and budget else 1.1]
        reach = max([1.1] + [max(v, 1 / v) for v in values]) * 1.08
        for w in range(len(workloads)):
            canvas.axes[w][c].set_xlim(1 / reach, reach)
    for a in allocators:
        canvas.add_entry(mpl.patches.Patch(color=palette.allocator_color(a)), a)
    canvas.add_entry(
        mpl.lines.Line2D(
            [],
            [],
            color=palette.allocator_color(base)),
        "%s = 1" % base)
    if budget:
        canvas.add_entry(
            mpl.lines.Line2D(
                [],
                [],
                color="#B22222",
                linestyle="--"),
            "memory budget %sx" %
            plain(budget))
    # At most eight legend entries: with a fourth allocator (lab
    # allocator_design's yours) and two runs, the interval is said in words.
    entries = len(allocators) + 2 + (1 if budget else 0) + (2 if n > 1 else 0)
    if entries < 8:
        canvas.add_entry(mpl.lines.Line2D([], [], color="black", marker="|",
                                          linestyle="-", linewidth=0.9),
                         "interval")
    else:
        canvas.notes.append("Black whiskers: each time ratio's interval.")
    if n > 1:
        canvas.run_entries(color="gray")
    recs = []
    for name, results in runs:
        rec = _recommended(results)
        recs.append("%s%s" % ("%s: " % name if n > 1 else "",
                              rec or "none stated"))
    canvas.notes.append("Recommended (black outline): " + "; ".join(recs) + ".")
    if tuned:
        canvas.notes.append(
            "%s's %s settings (malloc_conf) compare with plain %s, not %s: "
            "see the table." % (tuned[0]["workload"], tuned[0]["allocator"],
                                tuned[0]["allocator"], base))
    for spec in specs_of(runs[0][1], runs[0][0]):
        if spec["kind"] == "bars" and spec.get("title"):
            # Rows of another kind than the matrix's (allocator_design's
            # trace utilization): in the table, not in these panels.
            canvas.notes.append("%s%s: see the table." % (
                spec["title"][0].upper(), spec["title"][1:]))
    for spec in specs_of(runs[0][1], runs[0][0]):
        if spec["kind"] == "samples":
            try:
                canvas.notes.append(
                    samples_too_few(runs, spec)
                    or "RSS over time: see each run's samples in its JSON.")
            except PlotError:
                pass
    return canvas.finish()


# The pictures a lab may choose by its PICTURE; "panels", the default, is
# drawn from the panels its JSON chose.
PICTURES = {"panels": from_specs, "modes": modes, "matrix": matrix}


def figure(runs):
    """The picture of `runs`, a list of (name, results) of one lab, as a
    matplotlib Figure drawn on an Agg canvas (for a test's layout checks)."""
    mpl = load_matplotlib()
    lab = runs[0][1]["lab"]
    picture = lab_fact(lab, "PICTURE", "panels")
    if picture not in PICTURES:
        raise PlotError("lab %s: PICTURE %r in labs/%s/lab_facts.py is "
                        "none of %s" % (lab, picture, lab,
                                        ", ".join(sorted(PICTURES))))
    return PICTURES[picture](mpl, runs)


def draw(runs, out_path):
    """Writes the SVG of `runs`, a list of (name, results) of one lab."""
    fig = figure(runs)
    try:
        fig.savefig(out_path, format="svg", metadata={"Date": None})
    except OSError as e:
        raise PlotError("cannot write %s: %s" %
                        (out_path, e.strerror)) from None
