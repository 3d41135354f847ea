"""Children forked by a worker thread are part of the tree.

Why: the kernel lists a child in the children file of the thread that forked
it (/proc/PID/task/TID/children), not in the main thread's. Servers commonly
fork helpers from worker threads (a JVM's ProcessBuilder, Python's
subprocess from a thread pool, a Go runtime thread), so a tree walk that
reads only /proc/PID/task/PID/children would silently miss them with all
their memory and CPU. Attached with --pid to such a process, proctree must
count every child in proc_processes and include their memory in the
proc_rss_* gauges.
"""

import unittest

import accounting_helpers as ah
import harness as h

CHILDREN = 4
MIB_EACH = 20


class WorkerThreadChildren(unittest.TestCase):
    def test_children_of_a_worker_thread_are_found(self):
        with h.Workload([ah.threadfork_path(), str(CHILDREN), str(MIB_EACH)],
                        ready_count=CHILDREN + 1) as work:
            # Ground truth: the children hang off the worker thread, not main.
            main_children = self.main_thread_children(work.pid)
            tree = h.descendants_and_self(work.pid)
            self.assertEqual(len(tree), CHILDREN + 1, "threadfork did not start its children")
            self.assertEqual(main_children, [], "children are listed under the main thread: "
                             "the workload does not test what it should")
            truth_rss = h.tree_resident_bytes(tree)

            with h.Execd(["--interval", "0.5s", "--discovery-interval", "0.2s",
                          "--pid", work.pid, "--name", "tf"]) as execd:
                execd.wait_batches(3)
                execd.stop()
            points = ah.target_points(execd, "tf")
            self.assertGreaterEqual(len(points), 3, execd.describe())
            # Each batch after the first discovery must see the whole tree.
            last = points[-1].fields
            msg = f"resident truth {truth_rss}\n{execd.describe()}"
            self.assertEqual(last["proc_processes"], CHILDREN + 1, msg)
            self.assertEqual(last["proc_threads"], CHILDREN + 2, msg)  # main + worker + children
            self.assertTrue(all(p.fields["proc_processes"] == CHILDREN + 1 for p in points[1:]), msg)
            self.assertGreaterEqual(last["proc_rss_max"], CHILDREN * MIB_EACH * h.MIB, msg)
            # Within 10% of /proc's own sum (children's stacks and libraries vary a little).
            self.assertLessEqual(abs(last["proc_rss_max"] - truth_rss), 0.1 * truth_rss, msg)

    @staticmethod
    def main_thread_children(pid):
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]


if __name__ == "__main__":
    unittest.main(verbosity=2)
