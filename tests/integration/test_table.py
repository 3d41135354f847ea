"""--format table: what a person at a terminal reads.

Why: a person who runs `proctree-execd -- make -j8` asks what the build
cost, children included: line protocol of 1,900 characters a line does not
answer. At a terminal (or with --format table) each interval is one aligned
row per target in human units, and a launched command's end prints the
summary of its whole tree. Its figures are the same numbers as the line
protocol's, folded over the run (common/include/proctree/runsummary.h), so each is checked
against the kernel's own account of a known workload: it forks five
children (two exit non-zero with itself), then holds 64 MiB, reads and
writes known amounts, and exits 7, writing its own VmHWM, rchar, wchar and
CPU time (children included) just before. Where stdout is a pipe, nothing
changes: line protocol, as --format influx writes it.
"""

import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
import unittest

import harness as h

WORKLOAD = r'''
import os, sys, time
truth = sys.argv[1]
kids = []
for i in range(5):
    pid = os.fork()
    if pid == 0:
        os._exit(1 if i == 0 else 0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
held = b"\1" * (64 << 20)
with open("/dev/zero", "rb", buffering=0) as f:
    for _ in range(16):
        f.read(1 << 20)
with open("/dev/null", "wb", buffering=0) as f:
    for _ in range(8):
        f.write(held[: 1 << 20])
time.sleep(1.0)
with open("/proc/self/status") as f:
    hwm = [l.split()[1] for l in f if l.startswith("VmHWM:")][0]
with open("/proc/self/io") as f:
    io = dict(l.split(": ") for l in f.read().splitlines())
t = os.times()
with open(truth + ".tmp", "w") as f:
    f.write(f"{int(hwm) * 1024} {io['rchar']} {io['wchar']} {t.user + t.children_user} {t.system + t.children_system}\n")
os.rename(truth + ".tmp", truth)
sys.exit(7)
'''

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size(text):
    number, unit = text.split()
    return float(number) * UNITS[unit]


def seconds(text):
    m = re.fullmatch(r"(?:(\d+) min )?([\d.]+) s", text)
    return int(m.group(1) or 0) * 60 + float(m.group(2))


class Table(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-table-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.script = os.path.join(self.tmp, "work.py")
        with open(self.script, "w") as f:
            f.write(WORKLOAD)
        self.truth = os.path.join(self.tmp, "truth")

    def test_summary_of_a_known_tree(self):
        proc = subprocess.run([h.execd_path(), "--format", "table", "--interval", "0.3s", "--", sys.executable,
                               self.script, self.truth], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=h.START_TIMEOUT)
        out = proc.stdout
        describe = f"stdout:\n{out}\nstderr:\n{proc.stderr}"
        self.assertEqual(proc.returncode, 7, describe)
        with open(self.truth) as f:
            hwm, rchar, wchar, user, system = (float(x) for x in f.read().split())
        rows = [l for l in out.splitlines() if re.match(r"\d\d:\d\d:\d\d  python3", l)]
        self.assertGreaterEqual(len(rows), 3, describe)
        self.assertTrue(out.startswith("TIME "), describe)
        for row in rows:  # no impossible row: min <= max, nothing negative
            band = re.search(r"([\d.]+ \w+)\.\.([\d.]+ \w+)", row)
            if band:  # else "-..-": no poll read the tree in that interval (absent, never 0)
                self.assertLessEqual(size(band.group(1)), size(band.group(2)), row)
            else:
                self.assertIn(" -..- ", row, describe)
            self.assertNotRegex(row, r"(?<![\w.])-\d", "a negative figure")
        summary = dict(re.findall(r"^  (\S.*?)\s{2,}(.*)$", out, re.M))
        self.assertEqual(summary["exit status"], "7", describe)
        self.assertEqual(summary["processes"], "6 started, 2 failed, 0 killed", describe)
        rss = re.match(r"RSS ([\d.]+ \w+), PSS ([\d.]+ \w+), USS", summary["the tree's memory"])
        # the tree's peak is the parent's (the children exit before it
        # allocates): its own high-water mark, to the printed figures
        self.assertAlmostEqual(size(rss.group(1)), hwm, delta=0.02 * hwm, msg=describe)
        self.assertLessEqual(size(rss.group(2)), size(rss.group(1)) * 1.005, describe)
        io = re.match(r"read ([\d.]+ \w+), written ([\d.]+ \w+)", summary["read() and write()"])
        self.assertAlmostEqual(size(io.group(1)), rchar, delta=0.01 * rchar, msg=describe)
        self.assertAlmostEqual(size(io.group(2)), wchar, delta=0.01 * wchar + 4096, msg=describe)
        cpu = re.match(r"user (.+?), system (.+?) \(", summary["CPU time"])
        # clock ticks (10 ms) and the last moments after the workload's own
        # reading: two ticks each way
        self.assertAlmostEqual(seconds(cpu.group(1)), user, delta=0.025, msg=describe)
        self.assertAlmostEqual(seconds(cpu.group(2)), system, delta=0.025, msg=describe)
        cg = summary.get("its cgroup (exact)")
        if cg is not None:
            peak = re.match(r"memory peak ([\d.]+ \w+) \(page cache included\), OOM kills 0", cg)
            self.assertIsNotNone(peak, describe)
            self.assertGreaterEqual(size(peak.group(1)), 64 << 20, describe)

    def summary_of(self, shell):
        proc = subprocess.run([h.execd_path(), "--format", "table", "--interval", "0.2s", "--", "sh", "-c", shell],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=h.START_TIMEOUT)
        return proc, dict(re.findall(r"^  (\S.*?)\s{2,}(.*)$", proc.stdout, re.M))

    def test_a_dash_says_why(self):
        """A figure the run did not measure is a dash, never a 0, and a line
        after the figures says why: a command that is gone before the first
        interval's end left no smaps_rollup read (PSS, USS). Its JSON has no
        such field at all."""
        js = os.path.join(self.tmp, "summary.json")
        proc = subprocess.run([h.execd_path(), "--format", "table", "--interval", "5s", "--summary-file", js,
                               "--summary", "json", "--", "sh", "-c", "exit 3"], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=h.START_TIMEOUT)
        describe = f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        self.assertEqual(proc.returncode, 3, describe)
        summary = dict(re.findall(r"^  (\S.*?)\s{2,}(.*)$", proc.stdout, re.M))
        self.assertRegex(summary["the tree's memory"], r"^RSS ([\d.]+ \w+|-), PSS -, USS - ", describe)
        self.assertRegex(proc.stdout, r"\n  - PSS, USS: no smaps_rollup read in the run", describe)
        for line in proc.stdout.splitlines():  # every dash of the figures is explained by a line
            if re.match(r"^  \S.*?\s{2,}.*(?<![\w.])-(?![\w.])", line) and not line.startswith("  - "):
                self.assertRegex(proc.stdout, r"\n  - [^\n]*: ", describe)
        with open(js) as f:
            got = json.load(f)
        self.assertEqual(got["exit_status"], 3, describe)
        self.assertNotIn("proc_pss_max", got["metrics"], describe)
        self.assertIn("proc_processes_started", got["metrics"], describe)
        # the intervals' lengths, summed as amounts are: the run's
        self.assertEqual(got["metrics"]["collector_interval_seconds"], got["seconds"], describe)
        self.assertGreater(got["seconds"], 0, describe)

    def test_summary_options_refuse_what_cannot_be(self):
        """--summary and --summary-file need a launched command; json without a
        file, with line protocol on stdout, has nowhere to go; a file that
        cannot be opened stops the run before the command runs. Each: exit 2,
        one E! line naming the option."""
        marker = os.path.join(self.tmp, "ran")
        cases = [(["--pid", "1", "--summary", "json"], "--summary needs -- COMMAND"),
                 (["--pid", "1", "--summary-file", os.path.join(self.tmp, "s")], "--summary-file"),
                 (["--summary", "yaml", "--", "true"], '--summary: "yaml": expected text, json or none'),
                 (["--format", "influx", "--summary", "json", "--", "true"], "give --summary-file FILE"),
                 (["--summary-file", os.path.join(self.tmp, "no", "such"), "--", "touch", marker],
                  "--summary-file: cannot open")]
        for args, said in cases:
            proc = subprocess.run([h.execd_path(), "--interval", "1s"] + args, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=h.START_TIMEOUT)
            describe = f"{args}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
            self.assertEqual(proc.returncode, 2, describe)
            errors = [l for l in proc.stderr.splitlines() if l.startswith("E! ")]
            self.assertEqual(len(errors), 1, describe)
            self.assertIn(said, errors[0], describe)
        self.assertFalse(os.path.exists(marker), "the command ran though its summary file could not be opened")

    def test_an_exit_status_above_128_is_no_signal(self):
        """The summary tells an exit from a death by signal by the wait
        status: exit 200 is exit status 200 (not "signal 72"), a SIGKILL is
        signal 9; proctree-execd itself exits as a shell does (200, 137)."""
        for shell, rc, said in (("sleep 0.5; exit 200", 200, "200"),
                                ("sleep 0.5; kill -9 $$", 137, "killed by signal 9")):
            proc, summary = self.summary_of(shell)
            describe = f"{shell}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
            self.assertEqual(proc.returncode, rc, describe)
            self.assertEqual(summary.get("exit status"), said, describe)

    def test_hostile_names_are_escaped_aligned_and_cut_whole(self):
        """Names reach a terminal: format characters (a right-to-left
        override, zero-width ones, the BOM) come out as \\u{202e}; five CJK
        characters take ten columns and are padded by columns, not bytes; a
        name past the column's 16 is cut at a whole character (never inside
        the euro sign's three bytes). The launched command's name too, in its
        row and its summary."""
        names = ["gnp\u202e.exe", "\u200b\ufeff", "\u4e00\u4e8c\u4e09\u56db\u4e94", "abcdefghijklm\u20ac",
                 "abcdefghijklmn\u20ac\u20ac\u20ac", "plain"]
        self.assertEqual(len(names[3].encode()), 16)
        link = os.path.join(self.tmp, "gnp\u202e.sh")
        os.symlink(shutil.which("sh"), link)
        sleeper = subprocess.Popen(["sleep", "30"])
        self.addCleanup(h.stop_process, sleeper)
        argv = [h.execd_path(), "--format", "table", "--interval", "0.3s"]
        for name in names:
            argv += ["--pid", str(sleeper.pid), "--name", name]
        proc = subprocess.run(argv + ["--", link, "-c", "sleep 0.7"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=h.START_TIMEOUT)
        out = proc.stdout.decode("utf-8")  # never a cut sequence: strict decoding
        describe = f"stdout:\n{out}\nstderr:\n{proc.stderr.decode(errors='replace')}"
        self.assertEqual(proc.returncode, 0, describe)
        for c in "\u202e\u200b\ufeff":
            self.assertNotIn(c, out, describe)

        def columns(text):
            return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

        header = next(l for l in out.splitlines() if l.startswith("TIME "))
        procs_end = header.index("PROCS") + len("PROCS")
        want = ["gnp\\u{202e}.exe", "\\u{200b}\\u{feff}", "\u4e00\u4e8c\u4e09\u56db\u4e94", "abcdefghijklm\u20ac",
                "abcdefghijklmn\u20ac~", "plain", "gnp\\u{202e}.sh"]
        seen = set()
        for row in out.splitlines():
            m = re.match(r"(\d\d:\d\d:\d\d  )(.*?) +(\d+|-) ", row)
            if not m or m.group(2).startswith("(host"):
                continue
            seen.add(m.group(2))
            # the PROCS column ends where the header's does, counted in columns
            self.assertEqual(columns(m.group(0)) - 1, procs_end, f"misaligned row {row!r}\n{describe}")
        for name in want:
            self.assertIn(name, seen, describe)
        self.assertRegex(out, r'\n"[^"\n]*gnp\\u\{202e\}\.sh" and every process it started', describe)

    def test_a_pipe_gets_line_protocol(self):
        """No --format and stdout a pipe: line protocol, the same fields as
        --format influx gives."""
        sleeper = subprocess.Popen(["sleep", "30"])
        self.addCleanup(h.stop_process, sleeper)
        shapes = []
        for extra in ([], ["--format", "influx"]):
            out = subprocess.run([h.execd_path(), "--once", "--interval", "0.2s", "--pid", str(sleeper.pid)] + extra,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                 timeout=h.BATCH_TIMEOUT).stdout
            points = [h.parse_line(line) for line in out.splitlines()]
            for p in points:
                h.assert_line_possible(self, p)
            shapes.append([(p.measurement, sorted(p.tags), sorted(p.fields)) for p in points])
        self.assertEqual(len(shapes[0]), 2, shapes)
        self.assertEqual(shapes[0], shapes[1])

    def read_pty(self, fd, until, timeout):
        data = b""
        deadline = time.monotonic() + timeout
        while until not in data and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    data += os.read(fd, 4096)
                except OSError:
                    break
        return data

    def test_a_terminal_run_says_at_most_one_line_before_the_first_row(self):
        """At a terminal the notes on what this host lets proctree measure
        (the source, process events, exit records, GPU, delay accounting,
        the cgroup's files) are one short line saying what is absent, before
        the first row; --verbose gives them all, and a log (stderr not a
        terminal) always has them all."""
        def run(extra, stderr_tty):
            master, slave = pty.openpty()
            self.addCleanup(os.close, master)
            err = slave if stderr_tty else subprocess.PIPE
            proc = subprocess.Popen([h.execd_path(), "--interval", "0.5s"] + extra + ["--", "sleep", "1.2"],
                                    stdin=subprocess.DEVNULL, stdout=slave, stderr=err)
            os.close(slave)
            try:
                said = self.read_pty(master, b"every process it started", h.START_TIMEOUT)
                said += self.read_pty(master, b"\x00", 1.0)  # the summary's end
                log = proc.communicate(timeout=h.START_TIMEOUT)[1] if not stderr_tty else b""
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            return said.decode(errors="replace").replace("\r\n", "\n"), (log or b"").decode(errors="replace")

        screen, _ = run([], True)
        before = screen.split("TIME ", 1)[0].splitlines()
        self.assertIn("TIME ", screen)
        self.assertLessEqual(len([l for l in before if l.strip()]), 1, screen)
        for l in before:
            self.assertLessEqual(len(l), 200, screen)
        verbose, _ = run(["--verbose"], True)
        self.assertGreater(len([l for l in verbose.split("TIME ", 1)[0].splitlines() if l.startswith("I! ")]), 1,
                           verbose)
        self.assertIn("I! proctree-execd: source: ", verbose)
        _, log = run([], False)
        self.assertIn("I! proctree-execd: source: ", log)
        self.assertGreater(len([l for l in log.splitlines() if l.startswith("I! ")]), 1, log)

    def test_a_terminal_gets_the_table_and_a_word_on_asking(self):
        """Run by hand: stdout a terminal is a table; stdin a terminal
        without --interval gets one line on how to ask for a batch."""
        master, slave = pty.openpty()
        self.addCleanup(os.close, master)
        sleeper = subprocess.Popen(["sleep", "30"])
        self.addCleanup(h.stop_process, sleeper)
        proc = subprocess.Popen([h.execd_path(), "--pid", str(sleeper.pid)], stdin=slave, stdout=slave,
                                stderr=slave)
        os.close(slave)
        try:
            said = self.read_pty(master, b"Enter", h.BATCH_TIMEOUT)
            self.assertIn(b"a batch each time Enter is pressed", said)
            os.write(master, b"\n")
            table = self.read_pty(master, b"(host mem used)", h.BATCH_TIMEOUT)
            self.assertIn(b"TIME ", table)
            self.assertRegex(table.decode(), r"\d\d:\d\d:\d\d  sleep +1 ")
        finally:
            proc.terminate()
            proc.wait(timeout=h.BATCH_TIMEOUT)


if __name__ == "__main__":
    unittest.main(verbosity=2)
