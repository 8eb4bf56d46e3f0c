#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""`bazel run //:report -- --plot=out.svg` on fixtures of each picture kind.

The fixtures are shaped as the labs write their rows (allocator_cost's
counts per variant; counter_contention's threads, mode and ns_per_call;
jemalloc_adoption's wall_s, peak_rss_kib and allocator, with RSS samples);
each plot must be a real SVG holding exactly the expected series, the two
runs' series when given two files, and every unusable input a clear error
with exit status 2.

Usage (//tools:plot_test writes the arguments):
    plot_test.py REPORT TESTDATA_RESULTS_JSON   (its directory holds plots/)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

SVG = "{http://www.w3.org/2000/svg}"

REPORT = None
FIXTURES = None


def run(*args, env=None):
    proc = subprocess.run(["/usr/bin/python3", REPORT] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env, check=False, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def series_ids(svg_path):
    """The ids of the drawn series, after checking the file is an SVG."""
    root = ElementTree.parse(svg_path).getroot()
    if root.tag != SVG + "svg":
        raise AssertionError("%s: root element is %s, not svg" % (svg_path, root.tag))
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
        self.assertEqual(self.plot(self.fixture("plots/counter_contention.json")), [
            "series-0-off", "series-0-per_thread", "series-0-shared"])

    def test_scatter_one_point_per_allocator_and_rss_over_time(self):
        # mimalloc's row is unmeasured (null): no point, no samples.
        self.assertEqual(self.plot(self.fixture("plots/jemalloc_adoption.json")), [
            "series-0-churn_glibc", "series-0-churn_jemalloc",
            "series-0-churn_tcmalloc",
            "series-0-glibc", "series-0-jemalloc", "series-0-tcmalloc"])

    def test_two_runs_side_by_side(self):
        with open(self.fixture("plots/counter_contention.json")) as f:
            other = json.load(f)
        other["rows"] = [r for r in other["rows"] if r["mode"] != "shared"]
        path = os.path.join(self.tmp, "other.json")
        with open(path, "w") as f:
            json.dump(other, f)
        self.assertEqual(self.plot(self.fixture("plots/counter_contention.json"), path), [
            "series-0-off", "series-0-per_thread", "series-0-shared",
            "series-1-off", "series-1-per_thread"])

    def test_variants_choose_the_rows(self):
        path = self.with_plots("some.json", [{"kind": "bars", "y": "ns_per_call", "log_y": True,
                                              "variants": ["small_new", "large_new"]}])
        self.assertEqual(self.plot(path), ["series-0-large_new", "series-0-small_new"])

    def test_without_a_choice_bars_of_ns_per_call(self):
        self.assertEqual(self.plot(self.fixture("results.json")),
                         ["series-0-small_new"])

    def test_the_same_input_gives_the_same_file(self):
        a, b = (os.path.join(self.tmp, n) for n in ("a.svg", "b.svg"))
        for out in (a, b):
            self.assertEqual(run("--plot=" + out,
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
        self.assert_refused("cannot read", "--plot=" + os.path.join(self.tmp, "o.svg"),
                            os.path.join(self.tmp, "missing.json"))

    def test_malformed_json(self):
        path = os.path.join(self.tmp, "bad.json")
        with open(path, "w") as f:
            f.write('{"lab": "x", "rows": [')
        self.assert_refused("is not JSON", "--plot=" + os.path.join(self.tmp, "o.svg"), path)

    def test_a_plot_naming_a_missing_metric(self):
        path = self.with_plots("nope.json", [{"kind": "lines", "x": "threads", "y": "nope"}])
        self.assert_refused('no row has the metric "nope"',
                            "--plot=" + os.path.join(self.tmp, "o.svg"), path)

    def test_an_unknown_kind(self):
        path = self.with_plots("pie.json", [{"kind": "pie", "y": "ns_per_call"}])
        self.assert_refused('"kind" must be one of bars, lines, scatter, samples',
                            "--plot=" + os.path.join(self.tmp, "o.svg"), path)

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
        status, stdout, _ = run(self.fixture("plots/allocator_cost.json"), env=env)
        self.assertEqual(status, 0)
        self.assertIn("small_new", stdout)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: plot_test.py REPORT TESTDATA_RESULTS_JSON", file=sys.stderr)
        sys.exit(2)
    REPORT = os.path.abspath(sys.argv[1])
    FIXTURES = os.path.dirname(os.path.abspath(sys.argv[2]))
    # One font cache for every run of the report, not one each (seconds).
    os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    unittest.main(argv=sys.argv[:1], verbosity=2)
