"""A daemonised grandchild stays in the tree after its parent exits.

Why: services and scripts detach helpers all the time (`setsid cmd &`, double
fork). When the parent exits, the helper is re-parented out of the tree, but
it is still the job's work: membership is sticky, so proctree must keep
counting it, report it in proc_processes after the parent is gone, and in
launch mode (where proctree-execd is the child subreaper) wait for it before
its final batch and take its last counters before reaping it. A launched job
is only over when its last detached helper is over.
"""

import os
import shutil
import tempfile
import time
import unittest

import accounting_helpers as ah
import harness as h

BYTES = 5_000_000
SLACK = 500_000  # the shells, setsid, head and the dynamic loader read a little


class DetachedGrandchild(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-orphans-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_launch_mode_waits_for_and_counts_the_orphan(self):
        os.mkfifo(self.path("go"))
        os.mkfifo(self.path("bye"))
        d = self.tmp
        # The grandchild: records its pid, waits for "go", reads BYTES,
        # records that it is done, waits for "bye" and exits.
        grandchild = (f"echo \\$\\$ > {d}/gc.pid; read x < {d}/go; "
                      f"head -c {BYTES} /dev/zero >/dev/null; echo done > {d}/gc.done; "
                      f"read x < {d}/bye; exit 0")
        script = f'setsid sh -c "{grandchild}" & echo $$ > {d}/sh.pid; exit 0'
        with h.Execd(["--interval", "0.5s", "--", "sh", "-c", script]) as execd:
            sh_pid = int(ah.wait_file(self.path("sh.pid"), h.START_TIMEOUT, "sh.pid"))
            gc_pid = int(ah.wait_file(self.path("gc.pid"), h.START_TIMEOUT, "gc.pid"))
            h.wait_until(lambda: ah.pid_gone(sh_pid), h.START_TIMEOUT, "sh to exit and be reaped")
            sh_gone_at = time.monotonic()
            self.assertTrue(execd.running(), "proctree-execd exited with its command, before the orphan\n"
                            + execd.describe())

            # A batch that closed after sh was gone still has the orphan.
            def orphan_reported(e):
                return any(when > sh_gone_at and p.fields["proc_processes"] >= 1
                           for when, p in ah.target_points_with_time(e, "sh"))
            execd.wait_for(orphan_reported, h.START_TIMEOUT, "proc_processes >= 1 after sh exited")

            ah.write_fifo(self.path("go"), b"go\n")
            ah.wait_file(self.path("gc.done"), h.START_TIMEOUT, "the orphan's I/O")
            # Still running: the orphan has not exited yet.
            execd.wait_batches(execd.batch_count() + 1)
            self.assertTrue(execd.running(), "proctree-execd exited before the orphan\n" + execd.describe())
            self.assertFalse(ah.is_gone_or_zombie(gc_pid))

            ah.write_fifo(self.path("bye"), b"bye\n")
            status = execd.wait_exit(h.START_TIMEOUT)
        self.assertEqual(status, 0, execd.describe())
        self.assertTrue(ah.pid_gone(gc_pid), "the orphan outlived proctree-execd")

        points = ah.target_points(execd, "sh")
        self.assertEqual(ah.negative_deltas(points), [], "negative delta")
        self.assertEqual(points[-1].fields["proc_processes"], 0, execd.describe())
        read = ah.field_sum(points, "proc_io_read_bytes")
        self.assertGreaterEqual(read, BYTES, execd.describe())
        self.assertLessEqual(read, BYTES + SLACK, execd.describe())
        # sh, setsid's sh and head joined (at least sh and the orphan were
        # seen alive) and every one of them left.
        started = ah.field_sum(points, "proc_processes_started")
        exited = ah.field_sum(points, "proc_processes_exited")
        self.assertGreaterEqual(started, 2, execd.describe())
        self.assertEqual(started, exited, execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
