"""I/O of children that live far less than one poll.

Why: real trees are full of tiny processes (a shell running sed, grep, head in
a loop; make running the compiler for each file). Each one lives a
millisecond, so proctree never sees most of them alive, yet together they
move most of the bytes. The kernel adds a reaped child's rchar/wchar into its
parent's /proc/PID/io, so proctree must get every byte through the parent:
the sums of proc_io_read_bytes and proc_io_write_bytes over all intervals
must be at least what the children moved (nothing lost) and at most a few
percent above it (nothing counted twice; the shell and the dynamic loader
add a few KiB). Checked in launch mode and attached with --pid to a parent
that was already running before its children started.
"""

import subprocess
import time
import unittest

import accounting_helpers as ah
import harness as h

CHILDREN = 300
BYTES = 1_000_000          # per child, read from /dev/zero and written to /dev/null
EXPECTED = CHILDREN * BYTES
SLACK = 0.05               # at most 5% above: loader and shell reads, "go"/"done" lines


def loop_script(prefix="", suffix=""):
    """A sh script running CHILDREN iochild processes one after the other."""
    return (f"{prefix}i=0; while [ $i -lt {CHILDREN} ]; do "
            f"{ah.iochild_path()} {BYTES} || exit 1; i=$((i+1)); done{suffix}")


def wait_batch_after(execd, when_ns, what):
    """Wait for a batch whose timestamp (the wall clock) is past when_ns.
    A count of the batches read so far can lag behind what proctree-execd
    wrote, so waiting for one more than counted can be met by a batch made
    before the event (CI once: the children's last 1.8 MB lost with the
    parent, whose last read came before its last two children's reaping)."""
    execd.wait_for(lambda e: any(ts > when_ns for ts, _ in e.batches()), h.BATCH_TIMEOUT, what)


class ShortLivedChildrenIO(unittest.TestCase):
    def check_sums(self, execd, points):
        self.assertEqual(ah.negative_deltas(points), [], "negative delta")
        for field in ("proc_io_read_bytes", "proc_io_write_bytes"):
            total = ah.field_sum(points, field)
            self.assertGreaterEqual(total, EXPECTED, f"{field}: bytes lost\n{execd.describe()}")
            self.assertLessEqual(total, EXPECTED * (1 + SLACK),
                                 f"{field}: counted twice?\n{execd.describe()}")

    def test_launch_mode(self):
        with h.Execd(["--interval", "0.5s", "--", "sh", "-c", loop_script()]) as execd:
            status = execd.wait_exit(120)
        self.assertEqual(status, 0, execd.describe())
        points = ah.target_points(execd, "sh")
        self.assertGreaterEqual(len(points), 1, execd.describe())
        self.check_sums(execd, points)

    def test_attached_to_a_parent_started_before_its_children(self):
        # The parent waits for "go" on stdin, runs the children, says "done",
        # then waits for end of file on stdin before exiting.
        script = loop_script(prefix="read go; ", suffix="; echo done; read bye; exit 0")
        parent = subprocess.Popen(["sh", "-c", script], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        try:
            with h.Execd(["--interval", "0.5s", "--pid", parent.pid]) as execd:
                execd.wait_batches(1)
                parent.stdin.write(b"go\n")
                parent.stdin.flush()
                self.assertEqual(ah.read_lines_from(parent.stdout, 1, 120, "parent done"), ["done"])
                # One batch made after the last child was reaped: its read
                # of the parent's io holds every child's bytes, which go
                # with the parent when it exits
                wait_batch_after(execd, time.time_ns(), "a batch after the last child's reaping")
                parent.stdin.close()
                self.assertEqual(parent.wait(h.BATCH_TIMEOUT), 0)
                wait_batch_after(execd, time.time_ns(), "a batch after the parent's exit")
                execd.stop()
        finally:
            h.stop_process(parent)
            parent.stdout.close()
        points = ah.target_points(execd, "sh")
        self.check_sums(execd, points)


if __name__ == "__main__":
    unittest.main(verbosity=2)
