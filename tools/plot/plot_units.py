# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""Numbers, units and words for the course's pictures and tables: what a
metric key measures, the unit a person reads its values in, and its name
in words.

A results JSON names its metrics by key (`ns_per_call`, `peak_rss_kib`,
`time_ratio`); the key's unit token says what it measures. A picture shows
it in the unit its magnitude calls for (ns, µs or ms; KiB, MiB or GiB; "x
glibc" for a ratio, by the lab's RATIO_BASE), as a plain number ("52,100",
never 5.21e4), labelled in words: the lab's own (its LABELS in
labs/<lab>/lab_facts.py), the course's (`LABELS`), or the key's words
without the unit. Kept apart from the drawing so that the tables
(tools/report/tour.py `column_title`) and every picture kind say a metric the
same way, and so that the rules can be tested without matplotlib.

Example:

    from tools.plot.plot_units import axis_label, plain, unit_for
    factor, unit = unit_for("ns_per_call", [59200])  # (1e-3, "µs")
    plain(59200 * factor)                            # "59.2"
    axis_label("allocator_cost", "ns_per_call", unit)
    # "time per call (µs)"
"""

import math
import textwrap

from tools import labs

# How wide a title line may be, in characters.
TITLE_CHARS = 72


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


def number(value):
    """Whether `value` is a finite number (not a bool, not null)."""
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
    magnitudes = sorted(abs(v) for v in values if number(v)) or [0]
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


def wrap(text, width=TITLE_CHARS):
    """`text` in lines of at most `width` characters."""
    return "\n".join(textwrap.wrap(text, width)) if text else text


def set_plain_ticks(mpl, axis, log):
    """Plain-number tick labels: "1,000", not 10^3; no labelled minor
    ticks on a log axis."""
    axis.set_major_formatter(mpl.ticker.FuncFormatter(lambda v, _: plain(v)))
    if log:
        axis.set_minor_formatter(mpl.ticker.NullFormatter())


def spec_title(lab, key):
    """A panel's title: the metric in words, as written ("mmap", not
    "Mmap")."""
    return label_of(lab, key)
