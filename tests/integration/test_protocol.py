"""proctree-execd driven the way Telegraf's inputs.execd drives it.

Why: with signal = "STDIN" Telegraf writes one newline per tick and expects
one batch per newline; it may also signal the child (SIGHUP/SIGUSR1/SIGUSR2),
it stops the child by closing stdin (then SIGTERM after 5 s), and it may go
away and leave the child writing into a closed pipe. Each of these must do
exactly what Telegraf expects, or points go missing, double, or the agent
hangs at shutdown.

The target is a `sleep` started by the test. Signals are sent only after a
first batch proves the program is in its main loop with its handlers set.
"""

import signal
import subprocess
import time
import unittest

import harness as h

# A gap longer than the default 1 s interval: a program that wrongly ran its
# own timer without --interval would print an extra batch in it. The gap can
# only make the test fail, never pass.
GAP = 1.2
EXIT_DEADLINE = 1.0  # the spec: exit within 1 s of stdin EOF


class ProtocolTest(unittest.TestCase):
    def setUp(self):
        self.sleeper = subprocess.Popen(["sleep", "600"])
        self.addCleanup(self.sleeper.wait)
        self.addCleanup(self.sleeper.kill)

    def start(self, *extra):
        """proctree-execd in STDIN mode (no --interval) on the sleeper, first batch seen."""
        execd = h.Execd(["--pid", self.sleeper.pid, "--name", "sleeper", *extra])
        self.addCleanup(execd.stop)
        execd.send()
        execd.wait_batches(1)
        return execd

    def assert_batches_complete(self, execd):
        """Every batch: one sleeper line and one global line, same timestamp."""
        for _, points in execd.batches():
            self.assertIsNotNone(h.target_line(points, "sleeper"), points)
            h.global_line(points)
            self.assertEqual(len(points), 2, points)

    def test_one_batch_per_newline(self):
        execd = self.start()
        for n in (2, 3):
            self.wait_gap(execd, n - 1)
            execd.send()
            execd.wait_batches(n)
        self.wait_gap(execd, 3)
        self.assertEqual(execd.batch_count(), 3, execd.describe())
        self.assert_batches_complete(execd)
        self.assert_exits_on_eof(execd)

    def wait_gap(self, execd, expected):
        """Let GAP pass, failing early if a batch nobody asked for shows up."""
        deadline = time.monotonic() + GAP
        while time.monotonic() < deadline:
            self.assertEqual(execd.batch_count(), expected,
                             f"a batch without a newline\n{execd.describe()}")
            time.sleep(0.05)

    def test_signals_trigger_one_batch_each(self):
        execd = self.start()
        for n, sig in enumerate((signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2), start=2):
            execd.signal(sig)
            execd.wait_batches(n)
            self.wait_gap(execd, n)
            self.assertTrue(execd.running(), f"{sig!r} ended it\n{execd.describe()}")
        self.assert_batches_complete(execd)
        self.assert_exits_on_eof(execd)

    def test_queued_newlines_are_coalesced(self):
        """Newlines sent while a batch is being made give 1..N batches, never more.

        Five back-to-back writes reach the program while it works on (or
        right before) the first; its queue is drained to the end by closing
        stdin and waiting for the exit, then every batch is counted.
        """
        execd = self.start()
        for _ in range(5):
            execd.send()
        execd.wait_batches(2)
        execd.close_stdin()
        self.assertEqual(execd.wait_exit(), 0, execd.describe())
        newline_batches = execd.batch_count() - 1  # minus the start() batch
        self.assertGreaterEqual(newline_batches, 1)
        self.assertLessEqual(newline_batches, 5, execd.describe())
        self.assert_batches_complete(execd)

    def assert_exits_on_eof(self, execd):
        """Closing stdin (Telegraf's stop) -> exit 0 within EXIT_DEADLINE, measured."""
        start = time.monotonic()
        execd.close_stdin()
        status = execd.wait_exit(timeout=10)
        elapsed = time.monotonic() - start
        self.assertEqual(status, 0, execd.describe())
        self.assertLess(elapsed, EXIT_DEADLINE, f"exit took {elapsed:.2f}s after stdin EOF")

    def test_stdin_eof_exits_zero_within_a_second(self):
        self.assert_exits_on_eof(self.start())

    def test_newline_then_eof_in_one_read_gives_its_batch(self):
        """`printf '\\n' | proctree-execd`: the newline and EOF arrive together.

        The batch the newline asked for is printed before the exit, as it
        would be had EOF come a moment later.
        """
        writer = subprocess.Popen(["printf", "\\n"], stdout=subprocess.PIPE)
        self.addCleanup(writer.wait)
        writer.wait()  # the pipe now holds "\n" and its write end is closed
        execd = h.Execd(["--pid", self.sleeper.pid, "--name", "sleeper"], stdin=writer.stdout)
        self.addCleanup(execd.stop)
        writer.stdout.close()
        self.assertEqual(execd.wait_exit(), 0, execd.describe())
        self.assertEqual(execd.batch_count(), 1, execd.describe())
        self.assert_batches_complete(execd)

    def test_sigterm_exits_zero(self):
        execd = self.start()
        execd.signal(signal.SIGTERM)
        self.assertEqual(execd.wait_exit(), 0, execd.describe())

    def test_sigint_exits_zero(self):
        execd = self.start()
        execd.signal(signal.SIGINT)
        self.assertEqual(execd.wait_exit(), 0, execd.describe())

    def test_closed_stdout_ends_it(self):
        """The reader went away: the next batch's write fails (EPIPE) and it exits.

        Any exit status will do (SIGPIPE or an exit on EPIPE); hanging on is
        the failure, as it would block Telegraf's restart of the plugin.
        """
        execd = self.start()
        execd.detach_stdout()
        start = time.monotonic()
        try:
            execd.send()
        except BrokenPipeError:
            pass  # already gone
        try:
            execd.proc.wait(h.BATCH_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.fail(f"still running {h.BATCH_TIMEOUT}s after its stdout lost its reader\n"
                      f"{execd.describe()}")
        elapsed = time.monotonic() - start
        self.assertLess(elapsed, 2.0, f"took {elapsed:.2f}s to notice the closed stdout")


if __name__ == "__main__":
    unittest.main(verbosity=2)
