"""One change to one entry of the option table moves both frontends and
the man pages' check with it.

Why: options used to be written twice, in execd-bin/options.c and
collectd-plugin/config.c, and kept in step by a regex over the C source;
they drifted. Now common/include/proctree/optiontable.h is the one place. This test copies
the source tree, renames one option in that table alone (PollInterval,
--poll-interval) and narrows one range (BreakDownLimit, --by-limit), builds
the copy, and sees that proctree-execd and proctree.so both take the new
name and range and refuse the old ones, that --help says the new name, and
that packaging/check-manpages finds the unchanged man pages out of step,
naming the option in both pages.

    test_table_follows.py SOURCE_DIR

Python 3 standard library; the real collectd checks the plugin's config
(collectd -T), as test_collectd_config.py does.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SOURCE, "tests", "integration"))

import collectd_harness as ch  # noqa: E402

TABLE = os.path.join("common", "include", "proctree", "optiontable.h")
# (text of the entry as it is, as the copy gets it): each must be in the
# table exactly once
PATCHES = [
    ('X(PT_O_POLL_INTERVAL, "poll-interval", "PollInterval",',
     'X(PT_O_POLL_INTERVAL, "sample-interval", "SampleInterval",'),
    ('"BreakDownLimit", WHOLE, 1, PT_BREAKDOWN_LIMIT_MAX,', '"BreakDownLimit", WHOLE, 1, 50,'),
]
# what the build needs (the copy builds without its tests)
PARTS = ["meson.build", "meson_options.txt", "common", "execd-bin", "collectd-plugin", "packaging"]


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, **kw)


class TableFollows(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="proctree-optiontable-")
        src = os.path.join(cls.tmp, "src")
        os.makedirs(src)
        for part in PARTS:
            path = os.path.join(SOURCE, part)
            copy = shutil.copytree if os.path.isdir(path) else shutil.copy
            copy(path, os.path.join(src, part))
        table = os.path.join(src, TABLE)
        with open(table, encoding="utf-8") as f:
            text = f.read()
        for old, new in PATCHES:
            if text.count(old) != 1:
                raise AssertionError(f"{TABLE}: {old!r} is there {text.count(old)} times, not once: update this test")
            text = text.replace(old, new)
        with open(table, "w", encoding="utf-8") as f:
            f.write(text)
        build = os.path.join(cls.tmp, "build")
        for argv in (["meson", "setup", build, src, "-Dtests=false", "-Dwerror=true"],
                     ["meson", "compile", "-C", build, "-j", "1"]):  # one core: it runs beside other tests
            r = run(argv)
            if r.returncode != 0:
                raise AssertionError(f"{' '.join(argv)}: {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        cls.src = src
        cls.execd = os.path.join(build, "execd-bin", "proctree-execd")
        cls.plugin = os.path.join(build, "collectd-plugin", "proctree.so")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def execd_run(self, *args):
        return run([self.execd, *args, "--pid", str(os.getpid()), "--once", "--interval", "0.1s"],
                   stdin=subprocess.DEVNULL)

    def test_execd_follows(self):
        r = self.execd_run("--sample-interval", "50ms")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("proctree,target=", r.stdout)
        r = self.execd_run("--poll-interval", "50ms")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn('unknown option "--poll-interval"', r.stderr)
        self.assertEqual(self.execd_run("--by-limit", "50").returncode, 0)
        r = self.execd_run("--by-limit", "51")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("from 1 to 50", r.stderr)
        help_text = run([self.execd, "--help"]).stdout
        self.assertIn("--sample-interval DUR", help_text)
        self.assertNotIn("--poll-interval", help_text)

    def collectd_check(self, body):
        os.environ["PROCTREE_COLLECTD_PLUGIN"] = self.plugin
        with tempfile.TemporaryDirectory(prefix="proctree-optiontable-collectd-") as tmp:
            collectd = ch.Collectd(tmp, body)
            return collectd.check(), collectd.log()

    def test_collectd_follows(self):
        block = ch.process_block("me", f"Pid {os.getpid()}", "BreakDownLimit 50")
        status, log = self.collectd_check("  SampleInterval 0.05\n" + block)
        self.assertEqual(status, 0, log)
        status, log = self.collectd_check("  PollInterval 0.05\n" + block)
        self.assertNotEqual(status, 0, log)
        self.assertIn('option "PollInterval" in <Plugin proctree>: unknown option', log)
        status, log = self.collectd_check(ch.process_block("me", f"Pid {os.getpid()}", "BreakDownLimit 51"))
        self.assertNotEqual(status, 0, log)
        self.assertIn('option "BreakDownLimit" in <Process "me">: expects an integer from 1 to 50', log)

    def test_manpage_check_follows(self):
        r = run([os.path.join(self.src, "packaging", "check-manpages"), "--execd", self.execd, "--source", self.src])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for problem in ("proctree-execd.1: --sample-interval is an option of proctree-execd but has no entry",
                        "proctree-execd.1: --poll-interval is in the man page but is no option",
                        "collectd-proctree.5: option SampleInterval has no entry",
                        "collectd-proctree.5: documents option PollInterval, which the plugin does not have"):
            self.assertIn(problem, r.stdout)
        self.assertIn("FAIL (4 problem(s))", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
