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
import tempfile
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
            statuses = [e.wait_exit(h.START_TIMEOUT) for e in runs]
        finally:
            for e in runs:
                e.stop()
        for e, status in zip(runs, statuses):
            self.assertEqual(status, 0, e.describe())
            self.assertFalse([l for l in e.stderr_lines() if l.startswith(("W! ", "E! "))], e.describe())

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
