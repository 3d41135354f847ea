"""A child whose usage never reaches its parent does not hide later work.

Why: a parent that ignores SIGCHLD has its children reaped by the kernel,
which then does not add their usage to the parent (nor does init, for a
re-parented child). The tree's total drops for good when such a child
leaves. Reported amounts are differences of a high-water mark of that
total, and proctree used to keep the mark above the total until the tree
had done as much again: a parent whose child read 100 MiB and exited, then
read 50 MiB itself, was reported 0 for its own 50 MiB. Here the child's
100 MiB is read while proctree watches (a batch closes while the child is
alive, so its last values hold all of it), then the parent reads 50 MiB:
the sum over all batches must be both, in full, and no more.
"""

import unittest

import accounting_helpers as ah
import harness as h

CHILD = 100 * 1024 * 1024
PARENT = 50 * 1024 * 1024
SLACK = 64  # the step lines, read one byte at a time


class IgnoredSigchld(unittest.TestCase):
    def test_parent_work_after_an_auto_reaped_child_is_reported(self):
        with h.Workload([ah.ignchild_path(), str(CHILD), str(PARENT)], ready_count=2) as tree, \
                h.Execd(["--pid", tree.pid, "--name", "ign"]) as execd:
            execd.send()
            execd.wait_batches(1)  # the baseline, with the child as a member
            tree.send(b"\n")
            tree.read_lines(1, h.START_TIMEOUT, "the child's read")
            execd.send()
            execd.wait_batches(2)  # the child's 100 MiB, read while it lives
            tree.send(b"\n")
            tree.read_lines(1, h.START_TIMEOUT, "the child reaped by the kernel")
            tree.send(b"\n")
            tree.read_lines(1, h.START_TIMEOUT, "the parent's read")
            # The parent owes the child's last values until a read in a
            # later interval shows they never arrived: two more batches.
            for count in (3, 4, 5):
                execd.send()
                execd.wait_batches(count)

        points = ah.target_points(execd, "ign")
        self.assertEqual(len(points), 5, execd.describe())
        self.assertEqual(ah.negative_deltas(points), [], "negative delta")
        self.assertEqual(points[1].fields["proc_processes"], 2, execd.describe())
        self.assertEqual(points[-1].fields["proc_processes"], 1, execd.describe())
        child = points[1].fields["proc_io_read_bytes"]
        self.assertGreaterEqual(child, CHILD, execd.describe())
        read = ah.field_sum(points, "proc_io_read_bytes")
        self.assertGreaterEqual(read - child, PARENT, "the parent's own read is hidden\n" + execd.describe())
        self.assertLessEqual(read, CHILD + PARENT + SLACK, execd.describe())
        self.assertEqual(points[-1].fields["proc_io_read_bytes"], 0, execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
