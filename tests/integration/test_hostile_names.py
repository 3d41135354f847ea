"""Hostile process names and titles, end to end into InfluxDB.

Why: the default target name is the process's comm, which its owner
chooses freely: spaces, commas and '=' must be escaped in the target tag,
and backslashes, newlines and other control characters must not break the
line (lines.h: they become '_'). Whatever proctree prints must be
accepted by InfluxDB 1.6 (HTTP 204), and the tag read back must be the one
printed. The process is a copy of /bin/sleep under the hostile name, so its
comm (the executable's base name, up to 15 bytes) is that name.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import accounting_helpers as ah
import harness as h

SPEC_NAME = "we ird,na=me"
OTHER_NAMES = [
    "tab\there",       # control character
    "new\nline",       # a newline would split the line
    "ends\\",          # a trailing backslash cannot be written in a tag
    'q"uo\'te',        # quotes are literal in tags
    "caf\u00e9 \u2603",  # UTF-8
]


class HostileNameTest(h.InfluxTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.dir = tempfile.mkdtemp(prefix="proctree-names-")

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def measure(self, name, db):
        """Start sleep under name, measure it once without --name, store it; returns the tag."""
        path = os.path.join(self.dir, name)
        shutil.copy("/bin/sleep", path)
        proc = subprocess.Popen([path, "600"])
        try:
            with open(f"/proc/{proc.pid}/stat", "rb") as f:
                stat = f.read()
            comm = stat[stat.index(b"(") + 1:stat.rindex(b")")].decode()
            self.assertEqual(comm, name[:15], "the test process did not get the hostile comm")
            with h.Execd(["--pid", proc.pid, "--interval", "0.3s", "--once"]) as execd:
                self.assertEqual(execd.wait_exit(), 0, execd.describe())
        finally:
            proc.kill()
            proc.wait()
        self.assertEqual(execd.out_partial, b"")
        points = execd.points()  # strict parse: a broken line fails here
        self.assertEqual(len(execd.lines()), 2, f"one target line and one global line: {execd.lines()}")
        tagged = [p for p in points if p.tags]
        self.assertEqual(len(tagged), 1, points)
        h.store_and_read_back(self.influx, db, execd.stdout_bytes(), points)
        stored = self.influx.rows(db, 'SHOW TAG VALUES FROM "proctree" WITH KEY = "target"')
        self.assertEqual([row["value"] for row in stored], [tagged[0].tags["target"]])
        return tagged[0].tags["target"]

    def test_space_comma_equals(self):
        self.assertEqual(self.measure(SPEC_NAME, "spec"), SPEC_NAME)

    def test_other_hostile_names(self):
        for i, name in enumerate(OTHER_NAMES):
            with self.subTest(name=name):
                tag = self.measure(name, f"other{i}")
                self.assertNotIn("\\", tag, "a backslash in a tag is not safe in InfluxDB 1.6")
                self.assertFalse(any(ord(c) < 32 for c in tag), f"control character in {tag!r}")
                self.assertTrue(tag, "empty tag")


# Titles (--by title) their processes' owners chose: any byte but NUL, of
# any length. Each is sleep's argv[0] (sleep 600 after it), and its tag as
# line protocol writes it: a control character or a backslash as '_', a
# byte of no UTF-8 sequence as '?', a title cut at 255 bytes.
HOSTILE_TITLES = [
    (b"we ird,na=me\nE! forged\\", "we ird,na=me_E! forged_ 600"),
    (b"tab\there \xff\xfe caf\xc3\xa9", "tab_here ?? caf\u00e9 600"),
    (b"x" * 5000, "x" * 255),
]


def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read()


class HostileTitles(h.InfluxTestCase):
    def test_hostile_titles_stored_as_printed(self):
        """Three sleeps, each a target broken down by title: each title's
        line is strict line protocol, its tag as above, and InfluxDB stores
        every line (HTTP 204) under those tags."""
        args = []
        for i, (title, _) in enumerate(HOSTILE_TITLES):
            proc = subprocess.Popen([title, b"600"], executable="/bin/sleep")
            self.addCleanup(h.stop_process, proc)
            h.wait_until(lambda: cmdline(proc.pid) == title + b"\x00600\x00", h.START_TIMEOUT,
                         "the test process to exec with its title")
            args += ["--pid", str(proc.pid), "--name", f"t{i}", "--by", "title"]
        with h.Execd(args + ["--interval", "0.3s", "--once"]) as execd:
            self.assertEqual(execd.wait_exit(), 0, execd.describe())
        self.assertEqual(execd.out_partial, b"")
        self.assertEqual(forged_lines(execd.stderr_lines()), [], execd.describe())
        points = execd.points()  # strict parse: a broken line fails here
        for i, (_, tag) in enumerate(HOSTILE_TITLES):
            titled = [p.tags["title"] for p in points if p.tags.get("target") == f"t{i}" and "title" in p.tags]
            self.assertEqual(titled, [tag], execd.describe())
        self.influx.create_database("titles")
        self.influx.write_ok("titles", execd.stdout_bytes())
        stored = self.influx.rows("titles", 'SHOW TAG VALUES FROM "proctree" WITH KEY = "title"')
        self.assertEqual(sorted(row["value"] for row in stored), sorted(tag for _, tag in HOSTILE_TITLES))


FORGED = "a\nE! forged"  # 11 bytes: fits a comm


def forged_lines(lines):
    """Lines that a name split off to pose as proctree's own."""
    return [line for line in lines if line.startswith("E! forged") or line.startswith("forged")]


class HostileNamesInMessages(unittest.TestCase):
    """Names chosen by others reach log lines and errors escaped, on the
    line they belong to, and names written alike are refused.

    Why: Telegraf copies proctree-execd's stderr into its log, one entry per
    line, with the level taken from the "E! "/"W! " prefix: a process named
    "a\nE! forged" must not add an error entry of its own making. And two
    targets whose tags come out the same would be merged into one series.
    """

    def selhold(self, comm):
        """A selhold (no child) renamed comm; stopped at cleanup."""
        work = h.Workload([ah.selhold_path(), "--comm", comm, "0"])
        self.addCleanup(work.stop)
        with open(f"/proc/{work.pid}/comm", "rb") as f:
            self.assertEqual(f.read(), comm.encode() + b"\n", "the workload did not get its comm")
        return work

    def test_process_name_logged_escaped(self):
        """The default name is the comm; a warning about the target quotes it."""
        work = self.selhold(FORGED)
        with h.Execd(["--pid", work.pid, "--interval", "0.2s"]) as execd:
            execd.wait_batches(1)
            work.stop()  # now proctree warns that the target has no live process
            execd.wait_for(lambda e: any("no live process" in l for l in e.stderr_lines()),
                           h.BATCH_TIMEOUT, "the warning about the gone process")
        err = execd.stderr_lines()
        self.assertEqual(forged_lines(err), [], execd.describe())
        self.assertTrue(any('"a\\nE! forged": no live process' in l for l in err), execd.describe())

    def test_option_value_logged_escaped(self):
        res = h.run_execd(["--name", FORGED, "--once"])
        self.assertEqual(res.returncode, 2, res)
        self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
        self.assertIn('"a\\nE! forged"', res.stderr)

    def assert_refused_as_duplicates(self, args, first, second):
        res = h.run_execd(args)
        where = f"args {args!r}: {res!r}"
        self.assertEqual(res.returncode, 2, where)
        lines = res.stderr.splitlines()
        self.assertEqual(len(lines), 1, where)
        self.assertIn("duplicate target name", lines[0], where)
        self.assertIn(f'"{first}" and "{second}"', lines[0], where)

    def test_comms_written_as_one_tag_refused(self):
        """comms "\n" and "\\" both become target=_; they are default names."""
        newline, backslash = self.selhold("\n"), self.selhold("\\")
        self.assert_refused_as_duplicates(["--pid", newline.pid, "--pid", backslash.pid, "--once"],
                                          "\\n", "\\\\")

    def test_names_written_as_one_tag_refused(self):
        self.assert_refused_as_duplicates(["--pid", os.getpid(), "--name", "x_y",
                                           "--pid", os.getpid(), "--name", "x\ty", "--once"],
                                          "x_y", "x\\ty")


if __name__ == "__main__":
    unittest.main(verbosity=2)
