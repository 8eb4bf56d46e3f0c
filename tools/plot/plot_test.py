#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""`bazel run //:report -- --plot=out.svg` on fixtures of each picture kind.

The fixtures are shaped as the labs write their rows (allocator_cost's
counts per variant; counter_contention's threads, mode and ns_per_call;
jemalloc_adoption's wall_s, peak_rss_kib and allocator, with RSS samples);
each plot must be a real SVG holding exactly the expected series, the two
runs' series when given two files, and every unusable input a clear error
with exit status 2.

Then each lab's picture as a picture: drawn from a real run of the lab
beside its reference (docs/img/, the committed runs), and checked from
matplotlib's own layout after drawing: no two texts overlap, every text
lies inside the figure, the title is the chapter's question, every axis
label and panel title is words (not a JSON key, no snake_case but a row's
own name), the legend has at most MAX_LEGEND entries, and the expected
series are drawn.

Usage (//tools/plot:plot_test writes the arguments):
    plot_test.py REPORT TESTDATA_RESULTS_JSON   (its directory holds plots/)
"""

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

from tools import labs
from tools.plot import palette
from tools.plot import plot
from tools.plot import plot_units
from tools.checks import shards

SVG = "{http://www.w3.org/2000/svg}"

REPORT = None
FIXTURES = None

# At most this many entries in a picture's legend.
MAX_LEGEND = 8

# The labs, in course order (the root's labs.bzl).
LABS = labs.names()


def run(*args, env=None):
    proc = subprocess.run([REPORT] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env, check=False, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def series_ids(svg_path):
    """The ids of the drawn series, after checking the file is an SVG."""
    root = ElementTree.parse(svg_path).getroot()
    if root.tag != SVG + "svg":
        raise AssertionError("%s: root element is %s, not svg" %
                             (svg_path, root.tag))
    return sorted(e.get("id") for e in root.iter()
                  if (e.get("id") or "").startswith("series-"))


class PlotTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def fixture(self, name):
        return os.path.join(FIXTURES, name)

    def plot(self, *paths):
        out = os.path.join(self.tmp, "out.svg")
        status, stdout, stderr = run("--plot=" + out, *paths)
        self.assertEqual(status, 0, stderr)
        self.assertIn("plot: wrote " + out, stdout)
        return series_ids(out)

    def test_bars_one_per_variant(self):
        self.assertEqual(self.plot(self.fixture("plots/allocator_cost.json")), [
            "series-0-large_new", "series-0-large_reuse",
            "series-0-small_new", "series-0-small_reuse"])

    def test_lines_one_per_mode_against_threads(self):
        self.assertEqual(
            self.plot(self.fixture("plots/counter_contention.json")),
            ["series-0-off", "series-0-per_thread", "series-0-shared"])

    def test_scatter_one_point_per_allocator_and_too_few_samples_left_out(self):
        # mimalloc's row is unmeasured (null): no point. Three or four RSS
        # samples a row make no curve: that panel is left out, and says so.
        self.assertEqual(
            self.plot(self.fixture("plots/jemalloc_adoption.json")),
            ["series-0-glibc", "series-0-jemalloc", "series-0-tcmalloc"])
        with open(os.path.join(self.tmp, "out.svg")) as f:
            self.assertIn("over time is left out", f.read())

    def test_two_runs_side_by_side(self):
        with open(self.fixture("plots/counter_contention.json")) as f:
            other = json.load(f)
        other["rows"] = [r for r in other["rows"] if r["mode"] != "shared"]
        path = os.path.join(self.tmp, "other.json")
        with open(path, "w") as f:
            json.dump(other, f)
        self.assertEqual(
            self.plot(
                self.fixture("plots/counter_contention.json"),
                path),
            [
                "series-0-off",
                "series-0-per_thread",
                "series-0-shared",
                "series-1-off",
                "series-1-per_thread"])

    def test_variants_choose_the_rows(self):
        path = self.with_plots("some.json",
                               [{"kind": "bars",
                                 "y": "ns_per_call",
                                 "log_y": True,
                                 "variants": ["small_new",
                                              "large_new"]}])
        self.assertEqual(self.plot(path), [
                         "series-0-large_new", "series-0-small_new"])

    def test_without_a_choice_bars_of_ns_per_call(self):
        self.assertEqual(self.plot(self.fixture("results.json")),
                         ["series-0-small_new"])

    def test_the_same_input_gives_the_same_file(self):
        a, b = (os.path.join(self.tmp, n) for n in ("a.svg", "b.svg"))
        for out in (a, b):
            self.assertEqual(
                run("--plot=" + out,
                    self.fixture("plots/jemalloc_adoption.json"))[0], 0)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())

    def with_plots(self, name, plots):
        """The allocator_cost fixture with other plots, as a file."""
        with open(self.fixture("plots/allocator_cost.json")) as f:
            results = json.load(f)
        results["plots"] = plots
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(results, f)
        return path

    def assert_refused(self, message, *args, env=None):
        status, _, stderr = run(*args, env=env)
        self.assertEqual(status, 2, stderr)
        self.assertIn(message, stderr)
        self.assertNotIn("Traceback", stderr)

    def test_missing_json(self):
        self.assert_refused(
            "cannot read",
            "--plot=" +
            os.path.join(
                self.tmp,
                "o.svg"),
            os.path.join(
                self.tmp,
                "missing.json"))

    def test_malformed_json(self):
        path = os.path.join(self.tmp, "bad.json")
        with open(path, "w") as f:
            f.write('{"lab": "x", "rows": [')
        self.assert_refused("is not JSON", "--plot=" +
                            os.path.join(self.tmp, "o.svg"), path)

    def test_a_plot_naming_a_missing_metric(self):
        path = self.with_plots(
            "nope.json", [{"kind": "lines", "x": "threads", "y": "nope"}])
        self.assert_refused('no row has the metric "nope"',
                            "--plot=" + os.path.join(self.tmp, "o.svg"), path)

    def test_an_unknown_kind(self):
        path = self.with_plots(
            "pie.json", [{"kind": "pie", "y": "ns_per_call"}])
        self.assert_refused(
            '"kind" must be one of bars, lines, scatter, samples',
            "--plot=" +
            os.path.join(
                self.tmp,
                "o.svg"),
            path)

    def test_not_an_svg_name(self):
        self.assert_refused("name it *.svg", "--plot=out.png",
                            self.fixture("plots/allocator_cost.json"))

    def test_an_unwritable_path(self):
        self.assert_refused("cannot write", "--plot=/nonexistent/dir/o.svg",
                            self.fixture("plots/allocator_cost.json"))

    def test_without_matplotlib_the_error_names_the_debian_package(self):
        # A matplotlib that cannot be imported, ahead of Debian's on the path.
        fake = os.path.join(self.tmp, "fake")
        os.makedirs(os.path.join(fake, "matplotlib"))
        with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named matplotlib')\n")
        env = dict(os.environ, PYTHONPATH=fake)
        self.assert_refused("install Debian's python3-matplotlib",
                            "--plot=" + os.path.join(self.tmp, "o.svg"),
                            self.fixture("plots/allocator_cost.json"), env=env)
        # The tables need no matplotlib.
        status, stdout, _ = run(self.fixture(
            "plots/allocator_cost.json"), env=env)
        self.assertEqual(status, 0)
        self.assertIn("small_new", stdout)


# ----------------------------------------------------------------------------
# The pictures as pictures.

def chapter(lab):
    """docs/labs/<lab>.md in the runfiles, or in the checkout beside tools/."""
    srcdir, workspace = os.environ.get(
        "TEST_SRCDIR"), os.environ.get("TEST_WORKSPACE")
    if srcdir and workspace:
        path = os.path.join(srcdir, workspace, "docs", "labs", lab + ".md")
        if os.path.isfile(path):
            return path
    package = os.path.dirname(os.path.realpath(plot.__file__))
    root = os.path.dirname(os.path.dirname(package))
    return os.path.join(root, "docs", "labs", lab + ".md")


def drawn_texts(fig):
    """(where, text, bbox in pixels) of every text the drawn figure shows:
    titles, axis labels, tick labels in view, annotations, legends."""
    import matplotlib.text  # noqa: PLC0415
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    seen = set()

    def add(where, t):
        if t is None or not t.get_visible() or not t.get_text().strip():
            return
        if id(t) in seen:  # the suptitle is also one of fig.texts
            return
        seen.add(id(t))
        found.append((where, t.get_text(), t.get_window_extent(renderer)))

    for t in [fig._suptitle, fig._supxlabel, fig._supylabel] + list(fig.texts):
        add("figure", t)
    for n, ax in enumerate(fig.axes):
        where = "panel %d" % n
        for t in (ax.title, ax._left_title, ax._right_title):
            add(where + " title", t)
        for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            add(where + " axis label", axis.label)
            add(where + " offset", axis.get_offset_text())
            low, high = sorted(lim)
            span = (high - low) * 1e-6
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if (low - span <= tick.get_loc() <= high + span
                        and tick.label1.get_visible()):
                    add(where + " tick", tick.label1)
        for t in ax.texts:
            add(where + " annotation", t)
        legend = ax.get_legend()
        if legend is not None:
            for t in legend.get_texts() + [legend.get_title()]:
                add(where + " legend", t)
        for child in ax.get_children():
            if isinstance(
                    child,
                    matplotlib.text.Annotation) and child not in ax.texts:
                add(where + " annotation", child)
    return found


def layout_problems(fig, allowed_words=()):
    """Every way the drawn figure breaks the course's rules, in words."""
    problems = []
    texts = drawn_texts(fig)
    box = fig.bbox
    for where, text, b in texts:
        if (b.x0 < box.x0 - 0.5 or b.y0 < box.y0 - 0.5 or
                b.x1 > box.x1 + 0.5 or b.y1 > box.y1 + 0.5):
            problems.append("%s %r lies outside the figure" % (where, text))
    for (wa, ta, a), (wb, tb, b) in itertools.combinations(texts, 2):
        # Touching edges are no overlap: a pixel of slack.
        if (min(a.x1, b.x1) - max(a.x0, b.x0) > 1 and
                min(a.y1, b.y1) - max(a.y0, b.y0) > 1):
            problems.append("%s %r overlaps %s %r" % (wa, ta, wb, tb))
    for where, text, _ in texts:
        if not (where.endswith("axis label") or where.endswith("title")):
            continue
        for word in re.findall(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+", text):
            if word not in allowed_words:
                problems.append("%s %r: %r is a key, not words" %
                                (where, text, word))
    return problems


def legend_entries(fig):
    return [len(ax.get_legend().get_texts())
            for ax in fig.axes if ax.get_legend()]


def legend_texts(fig):
    return [[t.get_text() for t in ax.get_legend().get_texts()]
            for ax in fig.axes if ax.get_legend()]


def series_gids(fig):
    return sorted(set(a.get_gid() for a in fig.findobj()
                      if (a.get_gid() or "").startswith("series-")))


class PictureTest(unittest.TestCase):
    """Each lab's picture, from a real run and its reference, as a learner
    sees it."""

    def load(self, lab):
        runs = []
        for name, suffix in (("starter task.cc", ""),
                             ("reference solution", "_reference")):
            path = os.path.join(labs.ROOT, "docs", "img",
                                lab + suffix + ".json")
            with open(path) as f:
                runs.append((name, json.load(f)))
        return runs

    def allowed(self, runs):
        """A row's own name (variant, workload, mode) may appear: the table
        names it so."""
        words = set()
        for _, results in runs:
            for row in results["rows"]:
                for key, value in row.items():
                    if isinstance(value, str) and key not in ("cpus",):
                        words.add(value)
        keys = set(k for _, r in runs for row in r["rows"] for k in row)
        return words - keys

    def check(self, lab, runs=None):
        runs = runs or self.load(lab)
        fig = plot.figure(runs)
        self.assertEqual(layout_problems(fig, self.allowed(runs)), [])
        self.assertEqual(" ".join(fig._suptitle.get_text().split()),
                         plot_units.question(lab))
        for entries in legend_entries(fig):
            self.assertLessEqual(entries, MAX_LEGEND)
        labels = [ax.get_xlabel() for ax in fig.axes] + [ax.get_ylabel()
                                                         for ax in fig.axes]
        keys = set(k for _, r in runs for row in r["rows"] for k in row)
        for label in labels:
            self.assertNotIn(label, keys)
        return fig, series_gids(fig)

    def bars_of(self, gids, run):
        return sorted(g[len("series-%d-" % run):] for g in gids
                      if g.startswith("series-%d-" % run))

    def test_allocator_cost(self):
        _, gids = self.check("allocator_cost")
        self.assertEqual(self.bars_of(gids, 0), [
            "large_new", "large_new_first_call", "large_reuse", "small_new",
            "small_new_live_set", "small_reuse"])
        self.assertEqual(self.bars_of(gids, 0), self.bars_of(gids, 1))

    def test_mmap_threshold(self):
        _, gids = self.check("mmap_threshold")
        self.assertEqual(self.bars_of(gids, 1), [
            "dynamic", "dynamic_malloc_trim", "fixed", "tunables"])

    def test_first_call(self):
        _, gids = self.check("first_call")
        self.assertEqual(self.bars_of(gids, 0), [
            "cold_first_call", "hugepage_first_call", "prefault_cost",
            "prefaulted_first_call", "warm"])

    def test_smt_siblings(self):
        # The reference ran on a machine without SMT: no smt_siblings row.
        _, gids = self.check("smt_siblings")
        self.assertEqual(self.bars_of(gids, 0), [
            "distinct_cores", "one_thread", "same_cpu", "smt_siblings"])
        self.assertEqual(self.bars_of(gids, 1), [
                         "distinct_cores", "one_thread", "same_cpu"])

    def test_musl_churn_colours_follow_the_c_library(self):
        fig, gids = self.check("musl_churn")
        self.assertIn("musl_1024", self.bars_of(gids, 0))
        colours = {a.get_gid(): a.get_facecolor()[:3] for a in fig.findobj()
                   if (a.get_gid() or "").startswith("series-0-")}
        import matplotlib.colors  # noqa: PLC0415
        self.assertEqual(
            colours["series-0-musl_1024"],
            matplotlib.colors.to_rgb(
                palette.ALLOCATORS["musl"]))
        self.assertEqual(
            colours["series-0-glibc_256"],
            matplotlib.colors.to_rgb(
                palette.ALLOCATORS["glibc"]))

    def test_counter_contention_one_line_per_mode_learners_thicker(self):
        fig, gids = self.check("counter_contention")
        modes = ["off", "per_thread", "per_thread_packed",
                 "per_thread_padded", "shared"]
        self.assertEqual(gids, ["series-%d-%s" % (r, m)
                         for r in (0, 1) for m in modes])
        widths = {a.get_gid(): a.get_linewidth() for a in fig.findobj()
                  if (a.get_gid() or "").startswith("series-0-")}
        self.assertGreater(widths["series-0-per_thread"],
                           widths["series-0-shared"])
        # Rows whose threads never ran together are drawn hollow, and the
        # legend says what hollow means.
        runs = self.load("counter_contention")
        self.assertTrue(any(r.get("rounds_together") == 0 for _, res in runs
                            for r in res["rows"]
                            if r["variant"].startswith("new_")))
        legend = [t for n in legend_texts(fig) for t in n]
        self.assertIn("hollow: threads never ran together", legend)
        for _, res in runs:
            for row in res["rows"]:
                row["rounds_together"] = 3
        fig, _ = self.check("counter_contention", runs)
        self.assertNotIn("hollow: threads never ran together",
                         [t for n in legend_texts(fig) for t in n])

    def test_counter_contention_tolerates_new_rows(self):
        # Rows of a workload and a mode the picture does not know (another
        # experiment's, e.g. a ping-pong of one cache line) are drawn or left
        # out, never a crash or a broken layout.
        runs = self.load("counter_contention")
        for _, results in runs:
            extra = []
            for row in results["rows"]:
                if row["variant"] == "new_shared":
                    extra.append(
                        dict(
                            row,
                            variant="new_ping_pong",
                            mode="ping_pong",
                            ns_per_call=row["ns_per_call"] *
                            2))
                    extra.append(
                        dict(row, variant="pingpong_shared", mode="shared"))
            results["rows"].extend(extra)
            for spec in results["plots"]:
                spec["variants"] = spec["variants"] + ["new_ping_pong"]
        _, gids = self.check("counter_contention", runs)
        self.assertIn("series-0-ping_pong", gids)

    def check_small_multiples(self, lab, allocators):
        """Lab `lab`'s matrix: a panel per workload, titled with its name,
        and in each of the two runs a bar per workload, allocator and
        ratio. Returns check()'s figure and workloads."""
        fig, gids = self.check(lab)
        workloads = ["churn", "large_blocks", "msgsend",
                     "scalability_1024", "scalability_8", "treemap"]
        titles = sorted(ax.get_title(loc="left")
                        for ax in fig.axes if ax.get_title(loc="left"))
        self.assertEqual(titles, workloads)
        for run in (0, 1):
            for w in workloads:
                for a in allocators:
                    for key in ("time_ratio", "rss_ratio"):
                        self.assertIn("series-%d-%s_%s_%s" %
                                      (run, w, a, key), gids)
        return fig, workloads

    def test_jemalloc_adoption_small_multiples(self):
        fig, workloads = self.check_small_multiples(
            "jemalloc_adoption", ("jemalloc", "tcmalloc", "mimalloc"))
        # The budget, one line per RSS panel, at the memo's 1.25x.
        budget = [line for ax in fig.axes for line in ax.get_lines()
                  if line.get_linestyle() == "--"
                  and list(line.get_xdata()) == [1.25, 1.25]]
        self.assertEqual(len(budget), len(workloads))
        notes = [ax.get_legend().get_title().get_text() for ax in fig.axes
                 if not ax.axison]
        # The legend names each run's choice, as its memo says it.
        for name, run in self.load("jemalloc_adoption"):
            chosen = [note[len("memo: recommended: "):] for note in run["notes"]
                      if note.startswith("memo: recommended: ")]
            self.assertEqual(len(chosen), 1, name)
            self.assertIn("%s: %s" % (name, chosen[0]),
                          " ".join(notes[0].split()))

    def test_allocator_design_small_multiples_with_yours(self):
        # Lab 7's picture with yours as one more allocator: a bar per
        # workload, allocator and ratio, in each run; the trace rows
        # (no time ratio) are not workloads.
        fig, _ = self.check_small_multiples(
            "allocator_design", ("jemalloc", "tcmalloc", "mimalloc", "yours"))
        # Ratios on log axes, as far out on each side of 1: the starter's
        # 12-18x must not squeeze a 0.9x bar to a sliver.
        panels = [ax for ax in fig.axes if ax.axison]
        self.assertTrue(panels)
        for ax in panels:
            self.assertEqual(ax.get_xscale(), "log", ax.get_title())
            low, high = ax.get_xlim()
            self.assertAlmostEqual(low * high, 1.0, places=6)
        colours = {a.get_gid(): a.get_facecolor()[:3] for a in fig.findobj()
                   if (a.get_gid() or "").startswith("series-0-")}
        import matplotlib.colors  # noqa: PLC0415
        self.assertEqual(colours["series-0-churn_yours_time_ratio"],
                         matplotlib.colors.to_rgb(
                             palette.ALLOCATORS["yours"]))

    def test_every_lab_alone(self):
        # The tour without --reference draws one run: the same rules hold,
        # and the picture names whose run it is.
        for lab in LABS:
            with self.subTest(lab=lab):
                fig, gids = self.check(lab, self.load(lab)[:1])
                self.assertTrue(gids)
                self.assertFalse([g for g in gids if g.startswith("series-1-")])
                self.assertTrue(
                    fig._supxlabel.get_text().startswith("starter task.cc: "))

    def test_the_machine_line_says_how_busy_the_machine_was(self):
        runs = self.load("first_call")
        for _, run in runs:
            run["machine"].update(cpu_model="AMD EPYC", logical_cpus=2,
                                  kernel="Linux 6.18.44-fc-v857")
        runs[0][1]["machine"]["load_average"] = [11.24, 10.92, 7.94]
        runs[1][1]["machine"]["load_average"] = [0.31, 0.5, 0.6]
        fig, _ = self.check("first_call", runs)
        self.assertEqual(
            " ".join(
                fig._supxlabel.get_text().split()),
            "starter task.cc: AMD EPYC, Linux 6.18.44-fc-v857, load average "
            "11.2 on 2 CPUs; reference solution: AMD EPYC, Linux "
            "6.18.44-fc-v857, load average 0.31 on 2 CPUs")

    def test_every_title_is_its_chapters_question(self):
        # One source of truth: the title quotes the chapter's "The question"
        # (or its heading), markdown aside; every lab states it as QUESTION
        # in its labs/<lab>/lab_facts.py, and a lab without that file fails
        # here, the file named.
        for lab in LABS:
            with self.subTest(lab=lab):
                try:
                    title = labs.facts(lab).QUESTION
                except labs.MissingFacts as e:
                    self.fail(str(e))
                except AttributeError:
                    self.fail("labs/%s/lab_facts.py states no QUESTION, the "
                              "chapter's question" % lab)
                with open(chapter(lab), encoding="utf-8") as f:
                    text = f.read()
                question = text.split(
                    "## The question", 1)[-1].split("\n## ", 1)[0]
                heading = text.split("\n", 1)[0].split(" — ", 1)[-1]
                words = " ".join(
                    re.sub(r"[*`]", "", heading + " " + question).split())
                self.assertIn(title.rstrip("?").lower(), words.lower())

    def test_a_broken_picture_fails_these_checks(self):
        # The checks can fail: texts on top of each other, one outside the
        # figure, and a JSON key as an axis label.
        import matplotlib.figure  # noqa: PLC0415
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415
        fig = matplotlib.figure.Figure(figsize=(4, 3))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.set_xlabel("peak_rss_kib")
        ax.text(0.5, 0.5, "5.21e+04", transform=ax.transAxes)
        ax.text(0.5, 0.5, "5.92e+04", transform=ax.transAxes)
        ax.text(1.2, 0.5, "far out", transform=ax.transAxes)
        problems = layout_problems(fig)
        self.assertTrue(
            any("'5.21e+04' overlaps" in p for p in problems), problems)
        self.assertTrue(
            any("'far out' lies outside" in p for p in problems), problems)
        self.assertTrue(
            any("'peak_rss_kib' is a key" in p for p in problems), problems)

    def test_a_labs_facts_choose_its_picture(self):
        # A lab's labs/<lab>/lab_facts.py names its picture, its words and
        # its ratio base; a picture that tools/plot/plot.py does not have is
        # refused with the file named.
        rows = [{"variant": "a", "threads": 1, "mode": "off",
                 "time_ratio": 1.0}]
        runs = [("run", {"lab": "stand_in", "rows": rows})]
        labs._FACTS["stand_in"] = type("Facts", (), {
            "QUESTION": "Is this a stand-in?", "PICTURE": "nope",
            "RATIO_BASE": "a", "LABELS": {"time_ratio": "own words"}})
        try:
            self.assertEqual(
                plot_units.axis_label("stand_in", "time_ratio", None),
                "own words (x a)")
            with self.assertRaisesRegex(plot.PlotError,
                                        "labs/stand_in/lab_facts.py"):
                plot.figure(runs)
        finally:
            del labs._FACTS["stand_in"]

    def test_plain_numbers_and_human_units(self):
        self.assertEqual([plot_units.plain(v) for v in (52100,
                                                        249425,
                                                        37.94,
                                                        0.014,
                                                        0,
                                                        1.0,
                                                        1e-5,
                                                        130)],
                         ["52,100",
                          "249,000",
                          "37.9",
                          "0.014",
                          "0",
                          "1",
                          "0.00001",
                          "130"])
        self.assertEqual(plot_units.unit_for(
            "ns_per_call", [59200]), (1e-3, "µs"))
        self.assertEqual(plot_units.unit_for(
            "peak_rss_kib", [52124]), (1 / 1024, "MiB"))
        self.assertEqual(plot_units.unit_for("sys_s", [0.23])[1], "ms")
        # On a log axis the middle value chooses: 50.9 µs, not 0.0509 ms.
        self.assertEqual(
            plot_units.unit_for(
                "ns_per_call", [
                    50900, 177000, 6530000], log=True), (1e-3, "µs"))
        self.assertEqual(
            plot_units.axis_label(
                "jemalloc_adoption",
                "rss_ratio",
                None),
            "peak RSS relative to the baseline (x glibc)")


def load_tests(loader, tests, pattern):
    return shards.this_shard(tests)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: plot_test.py REPORT TESTDATA_RESULTS_JSON",
              file=sys.stderr)
        sys.exit(2)
    REPORT = os.path.abspath(sys.argv[1])
    FIXTURES = os.path.dirname(os.path.abspath(sys.argv[2]))
    # One font cache for every run of the report, not one each (seconds).
    os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(
        dir=os.environ.get("TEST_TMPDIR"))
    unittest.main(argv=sys.argv[:1], verbosity=2)
