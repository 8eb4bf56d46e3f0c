# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The kinds of picture the course draws, for any lab: each kind one set
of functions, drawing a lab's runs into a `Canvas` (tools/plot/plot_canvas.py).

The panels a JSON chose (`from_specs`, the default picture), one panel per
entry of its "plots":

    bars     one horizontal bar per row and run: "y" per variant
    lines    "y" against "x" (a metric, or "threads"), one line per value of
             "series" (a text field such as "mode", or "variant")
    scatter  one point per row at ("x", "y"), named by "series"
    samples  each row's "y" samples over time; "x" is the sample array of
             their times, or a metric holding the time between two samples;
             left out, with the reason on the picture, where a run has too
             few samples to be a curve

and two whole pictures a lab may choose by its PICTURE (lab_facts.py):
`modes` (one line per counting mode against the thread count, the
learner's mode thicker, a column per run) and `matrix` (small multiples,
one row per workload, time as a ratio to the RATIO_BASE allocator with its
interval beside the peak-RSS ratio, the memory budget as a line, the
recommendation named). Nothing here names a lab: what differs between labs
is in their lab_facts.py and their JSON.

Example:

    from tools.plot import plot_kinds
    fig = plot_kinds.from_specs(mpl, [("mine.json", mine)])
    fig = plot_kinds.matrix(mpl, [("mine", mine), ("reference", ref)])
"""

import re

from tools.plot import palette
from tools.plot.plot_canvas import (Canvas, PlotError, check_has, chosen, gid,
                                    row_labels, row_value, specs_of)
from tools.plot.plot_units import (axis_label, lab_fact, number, plain,
                                   set_plain_ticks, spec_title, unit_for)

# Where a run's samples are too few to be a curve: fewer than this many in
# any row, and the panel is left out with the reason.
MIN_CURVE_SAMPLES = 20


# ----------------------------------------------------------------------------
# Panels.

def draw_bars(canvas, ax, runs, spec, colors=None):
    """Horizontal bars, one per row and run, each with its value."""
    mpl, lab = canvas.mpl, canvas.lab
    y = spec["y"]
    check_has(runs, y, "the metric", spec)
    name_of = row_labels([r for _, res in runs for r in res["rows"]])
    labels = []
    for _, results in runs:
        for row in results["rows"]:
            if name_of(row) not in labels and number(row.get(y)):
                labels.append(name_of(row))
    if not labels:
        raise PlotError("plot bars: no row has a number \"%s\"" % y)
    every = [r.get(y) for _, res in runs for r in res["rows"]]
    log = bool(spec.get("log_y")) and all(
        v > 0 for v in every if number(v))
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
            if not number(value):
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


def draw_lines(canvas, ax, runs, spec):
    mpl, lab = canvas.mpl, canvas.lab
    x, y, series = spec["x"], spec["y"], spec.get("series") or "variant"
    check_has(runs, x, "the x metric", spec)
    check_has(runs, y, "the metric", spec)
    every = [r.get(y) for _, res in runs for r in res["rows"]]
    factor, unit = unit_for(y, every)
    xfactor, xunit = unit_for(x, [row_value(r, x)
                              for _, res in runs for r in res["rows"]])
    for i, (name, results) in enumerate(runs):
        groups = {}
        for row in results["rows"]:
            if number(row_value(row, x)) and number(row.get(y)):
                groups.setdefault(str(row_value(row, series)), []).append(
                    (row_value(row, x) * xfactor, row[y] * factor))
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
    check_has(runs, x, "the x metric", spec)
    check_has(runs, y, "the metric", spec)
    factor, unit = unit_for(y, [r.get(y)
                            for _, res in runs for r in res["rows"]])
    xfactor, xunit = unit_for(x, [r.get(x)
                              for _, res in runs for r in res["rows"]])
    for i, (name, results) in enumerate(runs):
        for row in results["rows"]:
            if not (number(row_value(row, x)) and number(row.get(y))):
                continue
            label = str(row_value(row, series))
            color = series_color(series, label)
            point = ax.scatter([row_value(row, x) * xfactor], [row[y] * factor],
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
            elif number(times):
                times = [k * times for k in range(len(values))]
            else:
                times = list(range(len(values)))
            pairs = [(t, v) for t, v in zip(times, values)
                     if number(t) and number(v)]
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
        shown = chosen(runs, spec)
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
        check_has(runs, y, "the metric", spec)
        shown = chosen(runs, spec)
        factor, unit = unit_for(y, [row.get(y)
                                for _, res in shown for row in res["rows"]])
        top = 0
        for c, (name, results) in enumerate(shown):
            ax = canvas.axes[r][c]
            groups, apart = _mode_points(results, y, factor)
            column_top, hollow = _mode_lines(canvas, ax, c, groups, apart)
            top = max(top, column_top)
            any_hollow = any_hollow or hollow
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
        canvas.add_entry(mpl.lines.Line2D([], [], color="gray", marker="o",
                                          linestyle="",
                                          markerfacecolor="white"),
                         "hollow: threads never ran together")
    return canvas.finish()


def _mode_points(results, y, factor):
    """(groups, apart) of one run: each mode's (threads, `y` x `factor`)
    points, and each mode's thread counts whose rounds never overlapped."""
    groups = {}
    for row in results["rows"]:
        mode = row.get("mode") or row.get("variant")
        if number(row.get("threads", 1)) and number(row.get(y)):
            groups.setdefault(str(mode), []).append(
                (row.get("threads", 1), row[y] * factor))
    apart = {}
    for row in results["rows"]:
        if row.get("rounds_together") == 0 and row.get("threads", 1) != 1:
            apart.setdefault(str(row.get("mode") or row.get("variant")),
                             set()).add(row.get("threads"))
    return groups, apart


def _mode_lines(canvas, ax, run, groups, apart):
    """Draws one line per mode of `groups` for run `run`, the learner's
    thicker, the points of `apart` hollow; returns (the highest point,
    whether a point is hollow)."""
    top, any_hollow = 0, False
    for mode, points in groups.items():
        points.sort()
        learner = mode == palette.LEARNER_MODE
        color = palette.mode_color(mode)
        line, = ax.plot([p[0] for p in points], [p[1] for p in points],
                        marker="o", color=color,
                        linewidth=3.2 if learner else 1.4,
                        markersize=6 if learner else 4,
                        zorder=3 if learner else 2)
        line.set_gid(gid(run, mode))
        hollow = [p for p in points if p[0] in apart.get(mode, ())]
        if hollow:
            # A point whose threads took turns: it cannot show contention,
            # whatever the counter.
            ax.plot([p[0] for p in hollow], [p[1] for p in hollow],
                    linestyle="", marker="o",
                    markersize=8 if learner else 6,
                    markerfacecolor="white", markeredgecolor=color,
                    markeredgewidth=1.5, zorder=4)
            any_hollow = True
        top = max([top] + [p[1] for p in points])
        canvas.add_entry(canvas.mpl.lines.Line2D(
            [], [], color=palette.mode_color(mode), marker="o",
            linewidth=3.2 if learner else 1.4),
            mode + (" (your task.cc)" if learner else ""))
    return top, any_hollow


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
    workloads, allocators = _matrix_rows_and_bars(runs, base)
    if not workloads:
        return from_specs(mpl, runs)
    n = len(runs)
    canvas = Canvas(mpl, lab, runs, len(workloads), 2,
                    max(1.15, 0.35 + 0.24 * len(allocators) * n))
    budget = _budget(runs[-1][1])
    # Every ratio drawn, per column: the axes are logarithmic around 1, so
    # that 0.5x and 2x lie as far from glibc, and a 12x bar leaves the
    # 0.9x ones readable.
    extremes = ([], [])
    for w, workload in enumerate(workloads):
        for c, key in enumerate(("time_ratio", "rss_ratio")):
            ax = canvas.axes[w][c]
            extremes[c].extend(
                _matrix_bars(ax, runs, workload, key, allocators, base))
            _matrix_axes(mpl, ax, key, allocators, base, budget)
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
    _matrix_legend(canvas, allocators, base, budget)
    tuned = _first_tuned(runs, workloads) if allocators else None
    _matrix_notes(canvas, base, tuned)
    return canvas.finish()


def _matrix_rows_and_bars(runs, base):
    """The matrix's rows, the workloads with an untuned time ratio to
    `base`, and the bars of each panel, the allocators other than `base`
    with a time ratio."""
    workloads = []
    for _, results in runs:
        for row in results["rows"]:
            w = row.get("workload")
            if (w and w not in workloads and number(row.get("time_ratio"))
                    and row.get("vs") in (None, base)
                    and not row.get("malloc_conf")):
                workloads.append(w)
    allocators = []
    for _, results in runs:
        for row in results["rows"]:
            a = row.get("allocator")
            if a and a != base and a not in allocators and number(
                    row.get("time_ratio")):
                allocators.append(a)
    return workloads, allocators


def _matrix_bars(ax, runs, workload, key, allocators, base):
    """One panel's bars: each run's ratio `key` of each allocator on
    `workload`, drawn from 1, the run's recommendation outlined in black, a
    time ratio with its interval; returns every ratio drawn."""
    drawn = []
    n = len(runs)
    height = 0.8 / n
    for i, (_, results) in enumerate(runs):
        style = palette.RUN_STYLES[i % 2]
        rec = _recommended(results)
        for j, a in enumerate(allocators):
            rows = [r for r in results["rows"]
                    if r.get("workload") == workload
                    and r.get("allocator") == a
                    and not r.get("malloc_conf")
                    and r.get("vs") in (None, base)]
            pos = j + (i - (n - 1) / 2) * height
            value = rows[0].get(key) if rows else None
            if not number(value):
                ax.annotate("n/a", (0.02, pos),
                            xycoords=("axes fraction", "data"),
                            va="center", fontsize="x-small")
                continue
            drawn.append(value)
            color = palette.allocator_color(a)
            bar = ax.barh([pos], [value - 1], height, left=1,
                          color=color, alpha=style["alpha"],
                          hatch=style["hatch"],
                          edgecolor=("black" if rec == a else
                                     "white" if style["hatch"] else color),
                          linewidth=1.6 if rec == a else 0.5)
            bar.patches[0].set_gid(gid(i, "%s_%s_%s" % (workload, a, key)))
            if key == "time_ratio":
                low, high = rows[0].get("ci_low"), rows[0].get("ci_high")
                if number(low) and number(high) and low > 0:
                    drawn.extend([low, high])
                    ax.errorbar([value], [pos],
                                xerr=[[value - low], [high - value]],
                                fmt="none", ecolor="black", elinewidth=0.9,
                                capsize=2)
    return drawn


def _matrix_axes(mpl, ax, key, allocators, base, budget):
    """One panel's axes: `base` as the line at 1 (and the memory budget on
    a peak-RSS panel), an allocator per row, ratios on a log scale."""
    ax.axvline(1, color=palette.allocator_color(base), linewidth=1.2)
    if key == "rss_ratio" and budget:
        ax.axvline(budget, color="#B22222", linestyle="--", linewidth=1.2)
    ax.set_yticks(range(len(allocators)))
    ax.set_yticklabels(allocators)
    ax.set_ylim(len(allocators) - 0.5, -0.5)
    ax.set_xscale("log")
    # 0.5x, 1x, 2x, 5x...: a ratio axis spans less than a decade on a quiet
    # run, where ticks at powers of ten alone show only 1.
    ax.xaxis.set_major_locator(mpl.ticker.LogLocator(base=10, subs=(1, 2, 5)))
    set_plain_ticks(mpl, ax.xaxis, True)
    ax.grid(True, axis="x", alpha=0.3)


def _matrix_legend(canvas, allocators, base, budget):
    """The legend: a colour per allocator, the line at 1, the budget, the
    interval's whiskers (in words where entries would be too many) and
    the runs."""
    mpl, n = canvas.mpl, len(canvas.runs)
    for a in allocators:
        canvas.add_entry(mpl.patches.Patch(color=palette.allocator_color(a)), a)
    canvas.add_entry(mpl.lines.Line2D([], [],
                                      color=palette.allocator_color(base)),
                     "%s = 1" % base)
    if budget:
        canvas.add_entry(mpl.lines.Line2D([], [], color="#B22222",
                                          linestyle="--"),
                         "memory budget %sx" % plain(budget))
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


def _first_tuned(runs, workloads):
    """The first row tuned with malloc_conf of a workload drawn, or None."""
    for workload in workloads:
        for _, results in runs:
            for r in results["rows"]:
                if r.get("malloc_conf") and r.get("workload") == workload:
                    return r
    return None


def _matrix_notes(canvas, base, tuned):
    """The notes: each run's recommendation, where the `tuned` row went, and
    the panels the JSON chose that the matrix leaves to the table."""
    runs, n = canvas.runs, len(canvas.runs)
    recs = []
    for name, results in runs:
        rec = _recommended(results)
        recs.append("%s%s" % ("%s: " % name if n > 1 else "",
                              rec or "none stated"))
    canvas.notes.append("Recommended (black outline): " + "; ".join(recs) + ".")
    if tuned:
        canvas.notes.append(
            "%s's %s settings (malloc_conf) compare with plain %s, not %s: "
            "see the table." % (tuned["workload"], tuned["allocator"],
                                tuned["allocator"], base))
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
