# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Draws a lab's picture from its results JSON, as an SVG file: one picture
per lab, made to answer the chapter's question at a glance. This is the
entry //:report and //:tour call; it reads which picture the lab chose from
its lab_facts.py and draws it.

Each picture has the chapter's question as its title, panels titled by what
they show in words, units a person reads (ns, µs or ms by magnitude; KiB,
MiB or GiB; "x glibc" for a ratio), values as plain numbers, and one legend
of a few entries. Colours come from tools/plot/palette.py: one per allocator and
per counting mode in every picture of the course. Two runs of one lab (a
learner's and the reference solution's) draw into the same panels, the
first solid and the second light and hatched, and the legend says which is
which in words.

What this file knows of one lab is in the lab's package, in
labs/<lab>/lab_facts.py (tools/labs.py `facts()`): QUESTION, the title;
optionally LABELS (its own words for a metric), RATIO_BASE (what its ratios
are relative to), PICTURE (a picture of PICTURES other than the panels) and
PICTURE_NOTES (words every picture of it carries). The machinery, for any
lab, is in three files:

    tools/plot/plot_units.py   numbers, units and words: plain numbers, the
                          unit for a magnitude, axis labels, table titles
    tools/plot/plot_canvas.py  the frame (question, legend, notes, machine line)
                          and the panels a JSON chose ("plots")
    tools/plot/plot_kinds.py   the kinds: bars, lines, scatter and samples
                          panels ("panels", the default picture), "modes"
                          and "matrix"

Every drawn series carries an SVG id "series-<run>-<name>", so a test (and a
curious learner) can find it in the file.

Example:

    from tools.plot import plot
    fig = plot.figure([("starter task.cc", mine), ("reference solution", ref)])
    plot.draw([("mine.json", mine)], "mine.svg")

matplotlib comes from Debian's python3-matplotlib, which tools/setup.sh
installs; it is imported only when a picture is asked for.
"""

import sys

from tools.plot.plot_canvas import PlotError
from tools.plot.plot_kinds import from_specs, matrix, modes
from tools.plot.plot_units import lab_fact

# What //:report and //:tour import from here (PlotError from plot_canvas,
# column_title from plot_units).
__all__ = ["draw", "figure"]

# The interpreter Debian's python3-matplotlib serves.
DEBIAN_PYTHON = "/usr/bin/python3"


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
