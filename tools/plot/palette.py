# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The course's colours: one per allocator, one per counting mode, one look
per run, the same in every picture of every lab.

A learner who has learnt that jemalloc is green in lab 7 must not meet a
green glibc in lab 6, nor a blue that means "shared counter" in one picture
and "tcmalloc" in the next. tools/plot/plot.py takes every colour from here.

Example:

    from palette import allocator_color, mode_color, RUN_STYLES
    ax.bar(x, y, color=allocator_color("jemalloc"), **RUN_STYLES[0])

The colours are those of the colour-blind-safe Okabe-Ito set; the runs are
told apart by fill (solid, then light and hatched) and by name in the
legend, never by hatching alone.
"""

# Allocators and C libraries: what labs 6, 7 and 8 compare.
ALLOCATORS = {
    "glibc": "#0072B2",     # blue
    "jemalloc": "#009E73",  # green
    "tcmalloc": "#E69F00",  # orange
    "mimalloc": "#CC79A7",  # purple
    "musl": "#D55E00",      # vermilion
    "yours": "#56B4E9",     # sky blue: lab allocator_design's, your own
}

# Lab 4's counting modes, in the experiment's order (labs/counter_contention/
# counters.h kModes). per_thread is the learner's task.cc.
MODES = {
    "off": "#000000",               # black: the truth without a counter
    "shared": "#D55E00",            # vermilion: the one that lies
    "per_thread": "#0072B2",        # blue: your task.cc
    "per_thread_packed": "#E69F00",  # orange
    "per_thread_padded": "#009E73",  # green
}

# The mode the learner writes: drawn thicker, named so in the legend.
LEARNER_MODE = "per_thread"

# A row that names no allocator: one neutral colour.
NEUTRAL = "#56677A"  # slate

# What a new name (a mode or allocator no one listed yet) gets, in order:
# distinct from every colour above.
SPARE = ["#7F7F7F", "#8C564B", "#17BECF", "#BCBD22", "#9467BD", "#F0E442"]

# The look of run 0 (a learner's run, or the starter) and of run 1 (the
# reference solution): the fill tells them apart, the legend names them.
RUN_STYLES = [
    {"alpha": 1.0, "hatch": None},
    {"alpha": 0.45, "hatch": "///"},
]
RUN_LINESTYLES = ["-", "--"]
RUN_MARKERS = ["o", "s"]

_spares = {}


def _spare(name):
    if name not in _spares:
        _spares[name] = SPARE[len(_spares) % len(SPARE)]
    return _spares[name]


def allocator_of(name):
    """The allocator a row or variant name names ("musl_1024" is musl), or
    None."""
    for token in str(name).split("_"):
        if token in ALLOCATORS:
            return token
    return None


def allocator_color(name):
    """The colour of allocator `name`; a spare one for a name not listed."""
    return ALLOCATORS.get(name) or _spare("allocator:" + str(name))


def mode_color(mode):
    """The colour of counting mode `mode`; a spare one for a new mode."""
    return MODES.get(mode) or _spare("mode:" + str(mode))
