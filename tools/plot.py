# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Draws a lab's natural picture from its results JSON, as an SVG file.

The lab chooses the picture: its JSON's "plots" list (common/report.h,
`Results::AddPlot`) names, for each panel, a kind and the keys to draw:

    bars     one bar per row: "y" per variant (e.g. allocations per call)
    lines    "y" against "x" (a metric, or "threads"), one line per value of
             "series" (a text field such as "mode", or "variant")
    scatter  one point per row at ("x", "y"), named by "series"
    samples  each row's "y" samples over time; "x" is the sample array of
             their times, or a metric holding the time between two samples

Optional in each: "title", "variants" (the rows to draw, by variant; all
when absent) and "log_y" (a logarithmic y axis).

Without "plots", one panel of bars of "ns_per_call" (or of the first metric
of the rows). Two runs of one lab draw into the same panels: the first solid
and the second hatched or dashed, named in the legend.

Every drawn series carries an SVG id "series-<run>-<name>", so a test (and a
curious learner) can find it in the file.

matplotlib comes from Debian's python3-matplotlib, which tools/setup.sh
installs; it is imported only when a plot is asked for.
"""

import math
import re

# The interpreter Debian's python3-matplotlib serves.
DEBIAN_PYTHON = "/usr/bin/python3"

KINDS = ("bars", "lines", "scatter", "samples")

# Beyond this many points a scatter names them in its legend only; beyond
# this many series the legend moves beside the panel.
MAX_NAMED_POINTS = 12
MAX_LEGEND_INSIDE = 10


class PlotError(Exception):
    """A plot that cannot be drawn from this input: exit 2, with why."""


def load_matplotlib():
    """pyplot on the headless backend, or a PlotError naming the package."""
    try:
        import matplotlib  # noqa: PLC0415
        matplotlib.use("svg")
        import matplotlib.pyplot as pyplot  # noqa: PLC0415
    except ImportError as e:
        import sys  # noqa: PLC0415
        raise PlotError(
            "plots need matplotlib (%s) in the Python that runs this, %s: "
            "install Debian's python3-matplotlib (sudo tools/setup.sh does) "
            "and run with %s" % (e, sys.executable, DEBIAN_PYTHON)) from None
    # Same input, same file: no random ids or dates in the SVG.
    matplotlib.rcParams["svg.hashsalt"] = "alloclab"
    matplotlib.rcParams["svg.fonttype"] = "none"
    return pyplot


def _number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def gid(run, name):
    """An SVG id for one series of one run."""
    return "series-%d-%s" % (run, re.sub(r"[^A-Za-z0-9_.-]", "_", str(name)))


def color(colors, label):
    """One colour per series name, the same in both runs."""
    return colors.setdefault(label, "C%d" % (len(colors) % 10))


def row_label(row):
    threads = row.get("threads", 1)
    if threads not in (None, 1):
        return "%s x%s" % (row["variant"], threads)
    return str(row["variant"])


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
            raise PlotError("%s: plot \"variants\" must be a list of names" % path)
        specs.append(spec)
    return specs


def _value(row, key):
    if key == "threads":
        return row.get("threads", 1)
    if key == "variant":
        return row.get("variant")
    return row.get(key)


def _check_has(runs, key, what, spec):
    for _, results in runs:
        if any(_value(row, key) is not None for row in results["rows"]):
            return
    raise PlotError("plot %s: no row has %s \"%s\"" % (spec["kind"], what, key))


def draw_bars(ax, runs, spec):
    y = spec["y"]
    _check_has(runs, y, "the metric", spec)
    labels = []
    for _, results in runs:
        for row in results["rows"]:
            if row_label(row) not in labels and _number(row.get(y)):
                labels.append(row_label(row))
    width = 0.8 / len(runs)
    for i, (name, results) in enumerate(runs):
        values = {row_label(r): r.get(y) for r in results["rows"]}
        xs = [j + (i - (len(runs) - 1) / 2) * width for j in range(len(labels))]
        heights = [values.get(label) if _number(values.get(label)) else 0
                   for label in labels]
        bars = ax.bar(xs, heights, width, label=name,
                      hatch=None if i == 0 else "//", alpha=1 if i == 0 else 0.7)
        for patch, label in zip(bars, labels):
            patch.set_gid(gid(i, label))
        ax.bar_label(bars, labels=[("%.3g" % values[label]) if _number(values.get(label))
                                   else "" for label in labels], fontsize="x-small")
        for x, label in zip(xs, labels):
            if not _number(values.get(label)):
                ax.annotate("n/a", (x, 0), ha="center", va="bottom")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylabel(y)


def _series_of(row, key):
    return _value(row, key) if key else row.get("variant")


def draw_lines(ax, runs, spec):
    x, y, series = spec["x"], spec["y"], spec.get("series") or "variant"
    _check_has(runs, x, "the x metric", spec)
    _check_has(runs, y, "the metric", spec)
    colors = {}
    for i, (name, results) in enumerate(runs):
        groups = {}
        for row in results["rows"]:
            if _number(_value(row, x)) and _number(row.get(y)):
                groups.setdefault(str(_series_of(row, series)), []).append(
                    (_value(row, x), row[y]))
        for label, points in groups.items():
            points.sort()
            line, = ax.plot([p[0] for p in points], [p[1] for p in points],
                            marker="o", linestyle="-" if i == 0 else "--",
                            color=color(colors, label),
                            label="%s (%s)" % (label, name) if len(runs) > 1 else label)
            line.set_gid(gid(i, label))
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if x == "threads":
        ax.xaxis.get_major_locator().set_params(integer=True)


def draw_scatter(ax, runs, spec):
    x, y, series = spec["x"], spec["y"], spec.get("series") or "variant"
    _check_has(runs, x, "the x metric", spec)
    _check_has(runs, y, "the metric", spec)
    markers = ["o", "s"]
    colors = {}
    for i, (name, results) in enumerate(runs):
        for row in results["rows"]:
            if not (_number(_value(row, x)) and _number(row.get(y))):
                continue
            label = str(_series_of(row, series))
            point = ax.scatter([_value(row, x)], [row[y]], marker=markers[i % 2],
                               color=color(colors, label),
                               label="%s (%s)" % (label, name) if len(runs) > 1 else label)
            point.set_gid(gid(i, label))
            if len(results["rows"]) <= MAX_NAMED_POINTS:
                ax.annotate(label, (_value(row, x), row[y]), textcoords="offset points",
                            xytext=(5, 5), fontsize="small")
    ax.set_xlabel(x)
    ax.set_ylabel(y)


def draw_samples(ax, runs, spec):
    x, y = spec.get("x"), spec["y"]
    drawn = 0
    colors = {}
    for i, (name, results) in enumerate(runs):
        for row in results["rows"]:
            values = row.get(y)
            if not isinstance(values, list) or not values:
                continue
            times = row.get(x) if x else None
            if isinstance(times, list):
                if len(times) != len(values):
                    raise PlotError("plot samples: row %s has %d \"%s\" but %d \"%s\"" %
                                    (row_label(row), len(values), y, len(times), x))
            elif _number(times):
                times = [k * times for k in range(len(values))]
            else:
                times = list(range(len(values)))
            pairs = [(t, v) for t, v in zip(times, values) if _number(t) and _number(v)]
            label = row_label(row)
            line, = ax.plot([p[0] for p in pairs], [p[1] for p in pairs],
                            linestyle="-" if i == 0 else "--",
                            color=color(colors, label),
                            label="%s (%s)" % (label, name) if len(runs) > 1 else label)
            line.set_gid(gid(i, label))
            drawn += 1
    if not drawn:
        raise PlotError("plot samples: no row has samples \"%s\"" % y)
    ax.set_xlabel(x if x else "sample")
    ax.set_ylabel(y)


DRAW = {"bars": draw_bars, "lines": draw_lines, "scatter": draw_scatter,
        "samples": draw_samples}


def draw(runs, out_path):
    """Writes the SVG of `runs`, a list of (name, results) of one lab.

    The panels are those of the first run's JSON.
    """
    lab = runs[0][1]["lab"]
    specs = specs_of(runs[0][1], runs[0][0])
    pyplot = load_matplotlib()
    figure, axes = pyplot.subplots(len(specs), 1, squeeze=False,
                                   figsize=(8, 4.5 * len(specs)))
    for ax, spec in zip(axes[:, 0], specs):
        wanted = spec.get("variants")
        shown = runs if not wanted else [
            (name, dict(results, rows=[r for r in results["rows"]
                                       if r.get("variant") in wanted]))
            for name, results in runs]
        DRAW[spec["kind"]](ax, shown, spec)
        if spec.get("log_y"):
            ax.set_yscale("log")
        ax.set_title(spec.get("title") or lab)
        ax.grid(True, alpha=0.3)
        entries = len(ax.get_legend_handles_labels()[1])
        if entries > MAX_LEGEND_INSIDE:
            ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1),
                      ncol=1 + entries // 30)
        else:
            ax.legend(fontsize="small")
    machine = runs[0][1].get("machine", {})
    figure.text(0.01, 0.005, "%s: %s, %s" % (runs[0][0], machine.get("cpu_model", "?"),
                                            machine.get("kernel", "?")),
                fontsize="x-small", color="gray")
    try:
        # "tight": the file grows to hold a legend beside its panel.
        figure.savefig(out_path, format="svg", metadata={"Date": None},
                       bbox_inches="tight")
    except OSError as e:
        raise PlotError("cannot write %s: %s" % (out_path, e.strerror)) from None
    finally:
        pyplot.close(figure)
