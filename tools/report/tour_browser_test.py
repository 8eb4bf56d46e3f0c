#!/usr/bin/python3
# Copyright 2026 Allocator Labs. Licensed under the Apache License 2.0.
"""The tour's page in a real browser: headless Chromium loads index.html.

The tour runs on stand-in experiments that copy real runs of all eight labs
and their references (docs/img/, the committed runs), as `bazel run //:tour --
--reference` would, and writes index.html with the eight pictures beside it.
Then Debian's chromium, headless and offline:

  1. loads a copy of the page with a script that records, after the load
     event, each picture's naturalWidth (0 when the browser could not load
     or decode it), and dumps the DOM: every picture of the page must have
     loaded, and a control picture whose file is missing must not (so the
     check can fail);
     the same DOM says how far the page and each table reach past their
     width: neither may (a table of nine columns of JSON keys once pushed
     the page off to the right);
  2. takes a screenshot of the page itself, which must not be blank; it is
     kept as the test's output (tour_page.png in bazel-testlogs/tools/
     tour_browser_test/test.outputs/outputs.zip), to look at.

Tagged manual and browser: a learner's `bazel test //...` needs no browser;
.ci/run installs chromium and runs the tests tagged browser.

Usage (//tools/report:tour_browser_test writes the arguments):
    tour_browser_test.py TOUR RESULTS_JSON   (its directory holds plots/)
"""

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

# The labs, in course order (the root's labs.bzl).
LABS = labs.names()

# Headless, offline, no profile of anyone's: what the browser may do.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars"]

# The window the page is laid out in: a laptop's browser.
PAGE_WIDTH = 1200

# Records each picture's natural width once the page has loaded.
PROBE = """<img id="control" src="no-such-picture.svg" alt="control">
<script>
window.addEventListener("load", function () {
  for (const img of document.images) {
    img.setAttribute("data-natural-width", String(img.naturalWidth));
  }
  const root = document.documentElement;
  document.body.setAttribute("data-page-overflow",
                             String(root.scrollWidth - root.clientWidth));
  const wide = [];
  for (const table of document.querySelectorAll("table")) {
    if (table.offsetWidth > table.parentElement.clientWidth + 1) {
      wide.push(table.rows[0].textContent.trim().slice(0, 60));
    }
  }
  document.body.setAttribute("data-wide-tables", wide.join(" | "));
  document.body.setAttribute("data-loaded", "yes");
});
</script>
</body>"""


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class TourPageInBrowserTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.browser = chromium()
        if cls.browser is None:
            raise AssertionError(
                "no chromium on PATH: install Debian's chromium "
                "(apt-get install -y chromium); .ci/run does")
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        args = []
        for lab in LABS:
            binaries = [cls.experiment(lab + suffix)
                        for suffix in ("", "_reference")]
            args.append("%s=%s" % (lab, ",".join(binaries)))
        cls.out = os.path.join(cls.tmp, "tour")
        proc = subprocess.run([TOUR, "--reference",
                               "--out=" + cls.out] + args,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, check=False, cwd=cls.tmp)
        if proc.returncode != 0:
            raise AssertionError("the tour failed: %s\n%s" %
                                 (proc.stdout, proc.stderr))
        cls.page = os.path.join(cls.out, "index.html")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    @classmethod
    def experiment(cls, name):
        """A stand-in experiment: writes the fixture `name`.json as its JSON."""
        path = os.path.join(cls.tmp, name)
        with open(path, "w") as f:
            f.write(
                "#!/bin/bash\n"
                "for arg in \"$@\"; do\n"
                "  case \"$arg\" in --json=*) "
                "cp %s \"${arg#--json=}\" ;; esac\n"
                "done\n" %
                os.path.join(labs.ROOT, "docs", "img", name + ".json"))
        os.chmod(path, 0o755)
        return path

    def run_browser(self, *args):
        profile = tempfile.mkdtemp(dir=self.tmp)  # a new, empty profile
        env = dict(os.environ, HOME=profile)
        proc = subprocess.run([self.browser] + CHROMIUM_FLAGS +
                              ["--user-data-dir=" + profile] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, check=False, env=env, timeout=180)
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        return proc.stdout

    def test_every_picture_loads(self):
        with open(self.page, encoding="utf-8") as f:
            page = f.read()
        self.assertEqual(page.count("<img "), len(LABS))
        probe = os.path.join(self.out, "probe.html")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", PROBE))
        dom = self.run_browser("--virtual-time-budget=20000",
                               "--window-size=%d,4000" % PAGE_WIDTH,
                               "--dump-dom", "file://" + probe)
        self.assertIn('data-loaded="yes"', dom, dom[-2000:])
        widths = {}
        for tag in re.findall(r"<img [^>]*>", dom):
            src = re.search(r'src="([^"]+)"', tag).group(1)
            width = re.search(r'data-natural-width="(\d+)"', tag)
            widths[src] = int(width.group(1)) if width else None
        self.assertEqual(widths.pop("no-such-picture.svg"), 0)
        self.assertEqual(sorted(widths), sorted(lab + ".svg" for lab in LABS))
        for src, width in widths.items():
            # 9 inches at 72 points an inch: matplotlib's SVG is 648pt wide.
            self.assertGreater(width or 0, 300, "%s did not load" % src)

    def test_tables_fit_and_name_their_columns_in_words(self):
        with open(self.page, encoding="utf-8") as f:
            page = f.read()
        probe = os.path.join(self.out, "probe_fit.html")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", PROBE))
        dom = self.run_browser("--virtual-time-budget=20000",
                               "--window-size=%d,4000" % PAGE_WIDTH,
                               "--dump-dom", "file://" + probe)
        self.assertIn('data-loaded="yes"', dom, dom[-2000:])
        overflow = re.search(r'data-page-overflow="(-?\d+)"', dom)
        self.assertEqual(int(overflow.group(1)), 0,
                         "the page is wider than a %d-pixel window" %
                         PAGE_WIDTH)
        wide = re.search(r'data-wide-tables="([^"]*)"', dom).group(1)
        self.assertEqual(wide, "", "tables wider than the page: " + wide)
        headers = re.findall(r"<th>([^<]*)</th>", page)
        self.assertGreater(len(headers), 20)
        keys = [h for h in headers if re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+",
                                                   h)]
        self.assertEqual(keys, [], "results JSON keys as column titles")

    def test_a_screenshot_of_the_page_is_not_blank(self):
        outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or self.tmp
        shot = os.path.join(outputs, "tour_page.png")
        self.run_browser(
            "--virtual-time-budget=20000",
            "--window-size=%d,4000" % PAGE_WIDTH,
            "--screenshot=" + shot,
            "file://" + self.page)
        import matplotlib.image  # noqa: PLC0415
        pixels = matplotlib.image.imread(shot)
        self.assertGreater(pixels.shape[0], 1000)
        colours = {tuple(p) for p in
                   pixels.reshape(-1, pixels.shape[-1])[::97].tolist()}
        # A page of text, tables and pictures: far more than a blank page's
        # one colour, and the pictures' palette among them.
        self.assertGreater(len(colours), 50)
        print("screenshot of the tour's page: %s" % shot)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: tour_browser_test.py TOUR RESULTS_JSON", file=sys.stderr)
        sys.exit(2)
    TOUR = os.path.abspath(sys.argv[1])
    FIXTURES = os.path.dirname(os.path.abspath(sys.argv[2]))
    os.environ["MPLCONFIGDIR"] = tempfile.mkdtemp(
        dir=os.environ.get("TEST_TMPDIR"))
    unittest.main(argv=sys.argv[:1], verbosity=2)
