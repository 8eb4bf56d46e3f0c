#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""`bazel run //:tour` on stand-in experiments that write fixture JSON.

Stand-ins, so that this test neither takes the labs' time nor changes its
verdict when a learner solves a lab: each is a script that records its
arguments and copies a fixture (shaped as labs 4 and 7 write their JSON) to
the --json path it is given, or fails.

Usage (//tools/report:tour_test writes the arguments):
tour_test.py TOUR RESULTS_JSON (the directory of RESULTS_JSON holds plots/).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from tools import labs

TOUR = None
FIXTURES = None


class TourTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def experiment(self, name, fixture, status=0):
        """A stand-in experiment: logs its arguments, writes `fixture`."""
        path = os.path.join(self.tmp, name)
        log = path + ".args"
        with open(path, "w") as f:
            f.write(
                "#!/bin/bash\n"
                "echo \"$*\" >> %s\n"
                "for arg in \"$@\"; do\n"
                "  case \"$arg\" in --json=*) "
                "cp %s \"${arg#--json=}\" ;; esac\n"
                "done\n"
                "echo \"%s ran\"\n"
                "exit %d\n" %
                (log, os.path.join(
                    FIXTURES, fixture), name, status))
        os.chmod(path, 0o755)
        return path, log

    def tour(self, *args):
        proc = subprocess.run([TOUR] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, check=False, cwd=self.tmp)
        return proc.returncode, proc.stdout, proc.stderr

    def test_summary_table_and_one_folder(self):
        counter, counter_log = self.experiment(
            "counter", "plots/counter_contention.json")
        adoption, _ = self.experiment(
            "adoption", "plots/jemalloc_adoption.json")
        out = os.path.join(self.tmp, "out")
        status, stdout, stderr = self.tour(
            "--out=" + out, "--repetitions=3", "--quick", "--cpu=0",
            "counter_contention=" + counter, "jemalloc_adoption=" + adoption)
        self.assertEqual(status, 0, stderr)
        lines = stdout.splitlines()
        header = [line for line in lines if line.startswith("lab ")]
        self.assertEqual(len(header), 1, stdout)
        self.assertRegex(
            header[0], r"^lab +headline +this machine +reference run$")
        self.assertTrue(any(
            line.startswith("counter_contention  shared-counter inflation "
                            "at 2 threads") and "4.6x" in line and
            line.endswith("8-10x at 4 threads") for line in lines), stdout)
        self.assertTrue(any(line.startswith("jemalloc_adoption")
                            and "tcmalloc (fastest" in line
                            for line in lines), stdout)
        self.assertIn(
            "tour: 4 files (results JSON and pictures) in %s" % out, stdout)
        self.assertEqual(sorted(os.listdir(out)), [
            "counter_contention.json", "counter_contention.svg", "index.html",
            "jemalloc_adoption.json", "jemalloc_adoption.svg", "summary.txt"])
        self.assertIn("tour: the tour as one page, to open in a browser: %s" %
                      os.path.join(out, "index.html"), stdout)
        with open(os.path.join(out, "summary.txt")) as f:
            self.assertIn("4.6x", f.read())
        with open(counter_log) as f:
            args = f.read().split()
        self.assertEqual(args[:3], ["--quick", "--repetitions=3", "--cpu=0"])
        self.assertEqual(args[3], "--json=" +
                         os.path.join(out, "counter_contention.json"))

    def test_the_page_holds_the_tour(self):
        counter, _ = self.experiment("counter", "plots/counter_contention.json")
        broken, _ = self.experiment(
            "broken", "plots/allocator_cost.json", status=3)
        out = os.path.join(self.tmp, "page")
        status, _, _ = self.tour("--out=" +
                                 out, "counter_contention=" +
                                 counter, "allocator_cost=" +
                                 broken)
        self.assertEqual(status, 1)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            page = f.read()
        # In order: the machine line, the summary, then each lab's headline,
        # picture, table and notes.
        order = [
            page.index(s) for s in (
                "machine: fixture CPU",
                "<h2>Summary</h2>",
                '<a href="#counter_contention">',
                '<h2 id="counter_contention">',
                "shared-counter inflation at 2 threads</strong>: 4.6x",
                '<img src="counter_contention.svg"',
                "<th>variant</th><th>threads</th>",
                "<td>new_shared</td>",
                '<p class="note">note: ',
                '<h2 id="allocator_cost">',
                "failed: see the tour")]
        self.assertEqual(order, sorted(order), page)
        # Self-contained: every picture beside it, nothing from a network.
        for src in re.findall(r'src="([^"]+)"', page):
            self.assertTrue(os.path.isfile(os.path.join(out, src)), src)
        self.assertNotRegex(page, r"(?i)(https?:)?//[a-z]")

    def test_default_folder_is_new_and_named(self):
        counter, _ = self.experiment("counter", "plots/counter_contention.json")
        status, stdout, stderr = self.tour("counter_contention=" + counter)
        self.assertEqual(status, 0, stderr)
        folders = [d for d in os.listdir(
            self.tmp) if d.startswith("alloclab-tour-")]
        self.assertEqual(len(folders), 1, os.listdir(self.tmp))
        self.assertIn(os.path.join(self.tmp, folders[0]), stdout)

    def test_in_the_container_the_folder_is_named_on_the_host_too(self):
        counter, _ = self.experiment("counter", "plots/counter_contention.json")
        env = dict(os.environ, BUILD_WORKSPACE_DIRECTORY=self.tmp,
                   ALLOCLAB_CLONE="C:\\Users\\me\\labs")
        proc = subprocess.run(
            [TOUR, "--out=" + os.path.join(self.tmp, "t"),
             "counter_contention=" + counter],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            check=False, cwd=self.tmp, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("%s (on your machine: C:\\Users\\me\\labs\\t\\"
                      "index.html)" % os.path.join(self.tmp, "t", "index.html"),
                      proc.stdout)

    def test_a_lab_without_headline_says_so(self):
        fixture, _ = self.experiment("fixture", "results.json")
        status, stdout, _ = self.tour("--out=" + os.path.join(self.tmp, "o"),
                                      "fixture=" + fixture)
        self.assertEqual(status, 0)
        self.assertIn("n/a (the lab declares no headline)", stdout)

    def test_a_scored_lab_shows_its_score_as_the_board_does(self):
        # Lab allocator_design's real JSON, with the rows its experiment
        # writes last in place of its own: score_total, and one trace's.
        with open(os.path.join(labs.ROOT, "docs", "img",
                               "allocator_design.json")) as f:
            results = json.load(f)
        results["rows"] = [
            row for row in results["rows"]
            if not row.get("variant", "").startswith("score_")] + [
            {"variant": "score_phases", "u_points": 0.351, "t_points": 0.4,
             "score": 0.751},
            {"variant": "score_total", "u_points": 0.32, "t_points": 0.4,
             "score": 0.72}]
        scored = os.path.join(self.tmp, "scored.json")
        with open(scored, "w") as f:
            json.dump(results, f)
        design, _ = self.experiment("design", scored)
        out = os.path.join(self.tmp, "o")
        status, stdout, stderr = self.tour("--out=" + out,
                                           "allocator_design=" + design)
        self.assertEqual(status, 0, stderr)
        figure = ("0.720 = utilization part 0.320 (the same on every run) + "
                  "throughput part 0.400 (this machine's)")
        # Beside the reference's and the other designs', from the
        # runs committed in docs/img/ (tools/report/results.py's SCORED_BESIDE).
        self.assertRegex(
            stdout, r"\nallocator_design +score \(malloclab's index, "
            r"labs/allocator_design/score\.h\) +%s +reference %s, "
            r"segregated_fit %s, thread_owned_pages %s \(runs in "
            r"docs/img/\)\n" % ((re.escape(figure),) + (r"\d\.\d{3}",) * 3))
        # And a table of them: this run's, then theirs, with their loads.
        self.assertRegex(
            stdout, r"\nyour task\.cc \(this tour\) +0\.720 +0\.320 +0\.400 "
            r"+%.2f\n" % results["machine"]["load_average"][0])  # the run's
        for run in ("reference", "segregated_fit", "thread_owned_pages"):
            self.assertRegex(
                stdout, r"\n%s \(docs/img/\) +\d\.\d{3} +\d\.\d{3} "
                r"+\d\.\d{3} +\d+\.\d\d\n" % run)
        # Not the time ratio the experiment declares as its headline.
        self.assertNotIn(results["headline"]["text"], stdout)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            page = f.read()
        self.assertIn("labs/allocator_design/score.h)</strong>: %s" %
                      figure.replace("'", "&#x27;"), page)
        self.assertIn("<h3>Scores</h3>", page)
        self.assertIn("<td>thread_owned_pages (docs/img/)</td>", page)
        # A run without the row says so, rather than show another figure.
        results["rows"] = [r for r in results["rows"]
                           if not r["variant"].startswith("score_")]
        with open(scored, "w") as f:
            json.dump(results, f)
        status, stdout, stderr = self.tour("--out=" + out,
                                           "allocator_design=" + design)
        self.assertEqual(status, 0, stderr)
        self.assertIn("n/a (the run has no score_total row)", stdout)

    def test_a_failing_experiment_is_shown_and_fails_the_tour(self):
        broken, _ = self.experiment(
            "broken", "plots/counter_contention.json", status=3)
        adoption, _ = self.experiment(
            "adoption", "plots/jemalloc_adoption.json")
        status, stdout, stderr = self.tour(
            "--out=" + os.path.join(self.tmp, "o"),
            "counter_contention=" + broken, "jemalloc_adoption=" + adoption)
        self.assertEqual(status, 1)
        self.assertRegex(stdout, r"\ncounter_contention +- +failed: see above")
        self.assertIn("tcmalloc (fastest", stdout)
        self.assertIn(
            "counter_contention (your task.cc): exited with 3", stderr)

    def test_reference_runs_starter_and_solution_side_by_side(self):
        starter, _ = self.experiment("starter", "plots/counter_contention.json")
        solution, _ = self.experiment(
            "solution", "plots/counter_contention.json")
        out = os.path.join(self.tmp, "img")
        status, _, stderr = self.tour(
            "--reference", "--out=" + out, "counter_contention=%s,%s" %
            (starter, solution))
        self.assertEqual(status, 0, stderr)
        self.assertIn("counter_contention_reference.json", os.listdir(out))
        with open(os.path.join(out, "counter_contention.svg")) as f:
            svg = f.read()
        self.assertIn('id="series-0-shared"', svg)
        self.assertIn('id="series-1-shared"', svg)

    def test_redraw_rebuilds_the_page_from_the_folders_runs_alone(self):
        starter, starter_log = self.experiment(
            "starter", "plots/counter_contention.json")
        solution, solution_log = self.experiment(
            "solution", "plots/counter_contention.json")
        out = os.path.join(self.tmp, "img")
        lab = "counter_contention=%s,%s" % (starter, solution)
        status, _, stderr = self.tour("--reference", "--out=" + out, lab)
        self.assertEqual(status, 0, stderr)
        for name in ["index.html", "summary.txt", "counter_contention.svg"]:
            os.remove(os.path.join(out, name))
        os.remove(starter_log)
        status, stdout, stderr = self.tour("--reference", "--out=" + out,
                                           "--redraw", lab)
        self.assertEqual(status, 0, stderr)
        self.assertIn("drawn again", stdout)
        self.assertFalse(os.path.exists(starter_log), "an experiment ran")
        for name in ["index.html", "summary.txt", "counter_contention.svg"]:
            self.assertIn(name, os.listdir(out))
        # A run the folder lacks is named, and fails the redraw.
        os.remove(os.path.join(out, "counter_contention_reference.json"))
        status, _, stderr = self.tour("--reference", "--out=" + out,
                                      "--redraw", lab)
        self.assertEqual(status, 1)
        self.assertIn("no counter_contention_reference.json to draw again",
                      stderr)

    def test_labs_runs_only_those(self):
        counter, counter_log = self.experiment(
            "counter", "plots/counter_contention.json")
        cost, cost_log = self.experiment("cost", "plots/allocator_cost.json")
        status, stdout, stderr = self.tour(
            "--labs=allocator_cost", "--out=only",
            "counter_contention=" + counter, "allocator_cost=" + cost)
        self.assertEqual(status, 0, stderr)
        self.assertIn("cost ran", stdout)
        self.assertNotIn("counter ran", stdout)
        self.assertFalse(os.path.exists(counter_log))
        status, _, stderr = self.tour(
            "--labs=first_call", "allocator_cost=" + cost)
        self.assertEqual(status, 2)
        self.assertIn("--labs: unknown lab first_call; the labs are "
                      "allocator_cost", stderr)

    def test_bad_arguments(self):
        counter, _ = self.experiment("counter", "plots/counter_contention.json")
        for args, message in [
                (["--json=x.json", "counter_contention=" + counter], "--json"),
                ([], "no lab given"),
                (["--reference", "counter_contention=" + counter],
                 "no reference"),
                (["stray"], "is not LAB=STARTER"),
                # A lab's own flag (or a typo) would stop every other lab:
                # refused before the first run.
                (["--cpus=0", "counter_contention=" + counter],
                 "--cpus=0: the tour passes on only the flags every "
                 "experiment takes"),
                (["--bogus", "counter_contention=" + counter], "--bogus: "),
                (["--redraw", "counter_contention=" + counter],
                 "--redraw: name the folder"),
                (["--redraw", "--out=x", "--repetitions=3",
                  "counter_contention=" + counter],
                 "--redraw runs no experiment")]:
            status, stdout, stderr = self.tour(*args)
            self.assertEqual(status, 2, args)
            self.assertIn(message, stderr)
            self.assertNotIn("counter ran", stdout, args)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: tour_test.py TOUR RESULTS_JSON", file=sys.stderr)
        sys.exit(2)
    TOUR = os.path.abspath(sys.argv[1])
    FIXTURES = os.path.dirname(os.path.abspath(sys.argv[2]))
    os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(
        dir=os.environ.get("TEST_TMPDIR"))
    unittest.main(argv=sys.argv[:1], verbosity=2)
