"""Launch mode: `proctree-execd [options] -- COMMAND ARGS...`.

Why: launching is how a job is profiled from its first to its last byte.
proctree-execd must follow the command's whole tree, account for I/O done by
children that start and finish between two polls (head runs for a few
milliseconds under sh), report the partial last interval after the tree is
gone, and hand the command's exit status back (128+signal if it was killed)
so a wrapper script keeps its meaning. Telegraf or InfluxDB must accept every
batch it printed.
"""

import os
import pty
import signal
import subprocess
import tempfile
import time
import unittest

import harness as h

HEAD_BYTES = 20_000_000
READ_SLACK = 500_000  # sh, the dynamic loader and locale files also read a little


class LaunchTest(h.InfluxTestCase):
    def launch(self, *command, timeout=30, extra=()):
        """Run launch mode to completion (stdin stays open: EOF would stop it)."""
        with h.Execd(["--interval", "0.5s", *extra, "--", *command]) as execd:
            status = execd.wait_exit(timeout)
        return execd, status

    def test_exit_status_and_io_of_a_short_lived_tree(self):
        execd, status = self.launch(
            "sh", "-c", f"head -c {HEAD_BYTES} /dev/zero >/dev/null; exit 3")
        self.assertEqual(status, 3, execd.describe())
        self.assertEqual(execd.out_partial, b"", "a batch ended without a newline")
        self.assertGreaterEqual(execd.batch_count(), 1, execd.describe())
        read = sum(line.fields["proc_io_read_bytes"] for line in self.sh_lines(execd))
        self.assertGreaterEqual(read, HEAD_BYTES, execd.describe())
        self.assertLessEqual(read, HEAD_BYTES + READ_SLACK, execd.describe())
        h.store_and_read_back(self.influx, "launch", execd.stdout_bytes(), execd.points())

    def test_killed_command_gives_128_plus_signal(self):
        execd, status = self.launch("sh", "-c", "kill -9 $$")
        self.assertEqual(status, 128 + 9, execd.describe())
        h.store_and_read_back(self.influx, "killed", execd.stdout_bytes(), execd.points())

    def test_orphans_are_followed_to_the_end(self):
        """I/O of a grandchild orphaned while running still counts.

        The subshell starts head in the background and exits at once, so head
        is re-parented to proctree-execd (the child subreaper) while it works;
        proctree must wait for it and take its final counters before reaping
        it. Both heads' bytes must be in the sum, each exactly once.
        """
        each = HEAD_BYTES // 2
        execd, status = self.launch(
            "sh", "-c", f"(head -c {each} /dev/zero >/dev/null &); "
                        f"head -c {each} /dev/zero >/dev/null; exit 0")
        self.assertEqual(status, 0, execd.describe())
        read = sum(line.fields["proc_io_read_bytes"] for line in self.sh_lines(execd))
        self.assertGreaterEqual(read, 2 * each, execd.describe())
        self.assertLessEqual(read, 2 * each + READ_SLACK, execd.describe())
        h.store_and_read_back(self.influx, "orphans", execd.stdout_bytes(), execd.points())

    def test_member_reaped_by_the_root_is_counted_once(self):
        """A discovered child that the root reaps just before exiting counts once.

        The inner shell lives long enough to be a member; the outer shell
        reaps it and exits at once, so the root's final counters (read from
        its zombie) already hold the child's bytes while the child is still
        on the member list. Counting both would double the sum.
        """
        execd, status = self.launch(
            "sh", "-c", f"sh -c 'head -c {HEAD_BYTES} /dev/zero >/dev/null; sleep 1'; exit 0",
            extra=["--discovery-interval", "0.1s"])
        self.assertEqual(status, 0, execd.describe())
        lines = self.sh_lines(execd)
        self.assertTrue(any(line.fields["proc_processes"] >= 2 for line in lines),
                        "the inner shell was never a member: the test proves nothing\n" + execd.describe())
        read = sum(line.fields["proc_io_read_bytes"] for line in lines)
        self.assertGreaterEqual(read, HEAD_BYTES, execd.describe())
        self.assertLessEqual(read, HEAD_BYTES + READ_SLACK, execd.describe())

    def test_command_output_goes_where_told(self):
        """Default: discarded, never on our stderr (Telegraf's 64 KiB line scanner)."""
        job = ("sh", "-c", "echo to-out; echo to-err >&2")
        execd, status = self.launch(*job)
        self.assertEqual(status, 0, execd.describe())
        self.assertFalse(any("to-" in line for line in execd.stderr_lines()), execd.describe())
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "job.log")
            execd, status = self.launch(*job, extra=["--command-output", path])
            self.assertEqual(status, 0, execd.describe())
            with open(path) as f:
                self.assertEqual(sorted(f.read().split()), ["to-err", "to-out"])
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)

    def test_parallel_launches_end_without_a_warning(self):
        """50 at once, on 2 cores: the launched commands end and their
        trees with them; a discovery between the last reap and the end of a
        run used to warn "no live process: pid N is not running"."""
        runs = [h.Execd(["--interval", "0.2s", "--discovery-interval", "0.05s", "--", "sh", "-c", "sleep 0.3"])
                for _ in range(50)]
        try:
            # each start loads the BPF programs (the verifier: 0.35 s of
            # kernel CPU each here), so 50 of them queue for 2 CPUs
            statuses = [e.wait_exit(4 * h.START_TIMEOUT) for e in runs]
        finally:
            for e in runs:
                e.stop()
        for e, status in zip(runs, statuses):
            self.assertEqual(status, 0, e.describe())
            self.assertFalse(h.load_free([l for l in e.stderr_lines() if l.startswith(("W! ", "E! "))]), e.describe())

    def sh_lines(self, execd):
        """The target lines of every batch; the only target is named after sh."""
        lines = []
        for _, points in execd.batches():
            h.global_line(points)
            for p in points:
                if p.tags:
                    self.assertEqual(p.tags, {"target": "sh"}, "default name = the command's comm")
                    lines.append(p)
        return lines


class ScriptLaunch(unittest.TestCase):
    """Launch mode as a script or a CI job runs it: no --interval, stdin
    /dev/null or a terminal. Only Telegraf's pipe closing is a stop; the end
    of any other stdin must not kill the command and report success (a
    build wrapped so passed without building). The exit status is the
    command's, as time(1) gives it, also when proctree stopped it."""

    SECONDS = 2
    STATUS = 5

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-script-launch-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", self.tmp]))

    def job(self):
        """sleep, then the worker's (its parent's) /proc/PID/io, then a status."""
        io = os.path.join(self.tmp, "worker-io")
        return ["sh", "-c", f'sleep {self.SECONDS}; cat /proc/$PPID/io > "$0"; exit {self.STATUS}', io], io

    def assert_ran_to_the_end(self, run, started, io):
        elapsed = time.monotonic() - started
        self.assertEqual(run.returncode, self.STATUS, run.stderr)
        self.assertGreaterEqual(elapsed, self.SECONDS, run.stderr)
        with open(io) as f:
            syscr = int(dict(line.split(": ") for line in f.read().splitlines())["syscr"])
        # A loop that polled a stdin at end of file would read it again at
        # every wake-up: hundreds of thousands of reads in the 2 s even on a
        # share of a busy core. The polls themselves read a few files per
        # poll interval.
        self.assertLess(syscr, 20_000, f"the worker read {syscr} times: a busy loop on stdin\n{run.stderr}")

    def test_dev_null(self):
        command, io = self.job()
        started = time.monotonic()
        run = subprocess.run([h.execd_path(), "--", *command], stdin=subprocess.DEVNULL, capture_output=True,
                             text=True, timeout=h.START_TIMEOUT)
        self.assert_ran_to_the_end(run, started, io)
        h.assert_no_sanitizer_report(run.stderr.splitlines(), "proctree-execd")
        # the run's one batch, when the tree is gone: the whole run
        points = [h.parse_line(line) for line in run.stdout.splitlines()]
        self.assertEqual(len([p for p in points if p.tags.get("target") == "sh"]), 1, run.stdout)

    def test_terminal_with_end_of_input(self):
        """A terminal's Ctrl-D (read returns 0, as at end of file) is no stop
        either; without it the command's end must end the run too."""
        for ctrl_d in (False, True):
            with self.subTest(ctrl_d=ctrl_d):
                master, slave = pty.openpty()
                try:
                    command, io = self.job()
                    started = time.monotonic()
                    proc = subprocess.Popen([h.execd_path(), "--format", "influx", "--", *command], stdin=slave,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    os.close(slave)
                    slave = None
                    if ctrl_d:
                        os.write(master, b"\x04")
                    try:
                        out, err = proc.communicate(timeout=h.START_TIMEOUT)
                    except subprocess.TimeoutExpired:
                        h.stop_process(proc)
                        self.fail("still running after the command's end")
                finally:
                    os.close(master)
                    if slave is not None:
                        os.close(slave)
                self.assert_ran_to_the_end(subprocess.CompletedProcess(proc.args, proc.returncode, out, err),
                                           started, io)
                self.assertIn("the command's end or Ctrl-C stops", err)

    def test_killed_command_gives_128_plus_signal(self):
        run = subprocess.run([h.execd_path(), "--", "sh", "-c", "sleep 0.5; kill -USR1 $$"],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=h.START_TIMEOUT)
        self.assertEqual(run.returncode, 128 + signal.SIGUSR1, run.stderr)

    def test_a_stop_gives_the_status_of_the_stopped_command(self):
        """Telegraf's stop (its pipe closed) and SIGTERM: proctree's SIGTERM
        ends the command, whose status is then 128+15; a command that
        handles it exits with its own."""
        cases = [("pipe closed", "sleep 100", 128 + signal.SIGTERM),
                 ("SIGTERM", "sleep 100", 128 + signal.SIGTERM),
                 ("pipe closed", "trap 'exit 4' TERM; sleep 100 & wait", 4)]
        for how, script, status in cases:
            with self.subTest(how=how, script=script):
                ready = os.path.join(self.tmp, "ready")
                with h.Execd(["--", "sh", "-c", f'{script.replace("sleep", "touch $0; sleep", 1)}', ready]) as e:
                    h.wait_until(lambda: os.path.exists(ready), h.START_TIMEOUT, "the command's start")
                    if how == "SIGTERM":
                        e.signal(signal.SIGTERM)
                    else:
                        e.close_stdin()
                    self.assertEqual(e.wait_exit(h.START_TIMEOUT), status, e.describe())
                os.unlink(ready)

    def test_without_a_command_dev_null_still_stops(self):
        """Per request with nothing launched, end of file is the only end:
        it stops at once, status 0, as before."""
        run = subprocess.run([h.execd_path(), "--pid", str(os.getpid())], stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=h.START_TIMEOUT)
        self.assertEqual(run.returncode, 0, run.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
