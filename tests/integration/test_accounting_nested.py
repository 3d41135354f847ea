"""A grandchild reaped by a child that is itself reaped, between two polls.

Why: this is the everyday shape of a build or a script: make runs sh, sh runs
the compiler; the compiler exits and sh reaps it, sh exits and make reaps it,
all within a millisecond. The compiler's usage then travels up the tree: into
sh's counters when sh reaps it, into make's when make reaps sh. proctree saw
the compiler alive (it is a long-lived member, read at interval closes), so
when it finds both the compiler and sh gone it must recognise that the
compiler was reaped inside the tree and not add its last values a second
time. Each byte of the grandchild must be counted exactly once, whether the
root lives on or exits right after.
"""

import os
import shutil
import tempfile
import unittest

import accounting_helpers as ah
import harness as h

BYTES = 50_000_000
SLACK = 500_000  # shells and the dynamic loader


class GrandchildReapedByReapedChild(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-nested-")
        self.release = os.path.join(self.tmp, "release")   # lets the grandchild exit
        self.hold = os.path.join(self.tmp, "hold")         # keeps the root alive
        os.mkfifo(self.release)
        os.mkfifo(self.hold)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tree(self, root_waits):
        # root sh -> middle sh -> iochild (moves BYTES, then waits for EOF on
        # the release FIFO). The middle sh reaps iochild and exits at once;
        # the root reaps the middle one.
        middle = f'sh -c "{ah.iochild_path()} {BYTES} {self.release} & wait; exit 0"'
        tail = f"read x < {self.hold}; " if root_waits else ""
        with h.Execd(["--interval", "0.5s", "--", "sh", "-c", f"{middle}; {tail}exit 0"]) as execd:
            # iochild has done its I/O and proctree has read it alive.
            execd.wait_for(
                lambda e: ah.field_sum(ah.target_points(e, "sh"), "proc_io_write_bytes") >= BYTES,
                h.START_TIMEOUT, "the grandchild's bytes in a batch")
            self.assertEqual(len(h.descendants_and_self(execd.worker_pid())), 4, "proctree's worker, sh, sh, iochild")
            ah.write_fifo(self.release)
            if root_waits:
                # Two more closes with only the root left, then let it go.
                execd.wait_batches(execd.batch_count() + 2)
                ah.write_fifo(self.hold)
            status = execd.wait_exit(h.START_TIMEOUT)
        self.assertEqual(status, 0, execd.describe())
        points = ah.target_points(execd, "sh")
        self.assertEqual(ah.negative_deltas(points), [], "negative delta")
        per_batch = [p.fields["proc_io_write_bytes"] for p in points]
        for field in ("proc_io_read_bytes", "proc_io_write_bytes"):
            total = ah.field_sum(points, field)
            self.assertGreaterEqual(total, BYTES, f"{field} lost bytes {per_batch}\n{execd.describe()}")
            self.assertLessEqual(total, BYTES + SLACK,
                                 f"{field} counted the grandchild twice? write per batch {per_batch}\n"
                                 f"{execd.describe()}")

    def test_root_lives_on(self):
        self.run_tree(root_waits=True)

    def test_root_exits_right_after(self):
        self.run_tree(root_waits=False)


if __name__ == "__main__":
    unittest.main(verbosity=2)
