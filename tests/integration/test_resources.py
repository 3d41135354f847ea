"""Open descriptors: the budget, and running out of them anyway.

Why: proctree keeps /proc files open so that a poll is one pread per file,
but every kept descriptor counts against the agent's open-files limit. It
keeps at most its descriptor budget and reads the rest by open-read-close,
slower but with the same numbers. When descriptors run out all the same
(EMFILE: a budget set above the limit, other code of the agent holding
them), a metric that could not be read whole is absent for the interval,
never a partial sum, and each such interval says so in one error line.
"""

import os
import resource
import unittest

import harness as h

SLEEPERS = 8
BIG_TREE = 3000      # children of fdtree: more than the limit below lets proctree keep
BIG_LIMIT = 4096     # open-files limit (soft and hard) for the big tree
FDS_EACH = 9         # child i of fdtree holds i % (FDS_EACH + 1) more descriptors


def fdtree_path():
    return h.program("PROCTREE_FDTREE", "tests/workload/fdtree")


def fd_limit(n):
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))


def open_fds(pids):
    """What proc_fds must report: the descriptors of pids, now."""
    return sum(len(os.listdir(f"/proc/{p}/fd")) for p in pids)


def target_lines(execd):
    return [p for _, points in execd.batches() for p in points if p.tags]


class DescriptorBudgetTest(unittest.TestCase):
    def test_budget_zero_measures_the_whole_tree_by_open_read_close(self):
        # hard limit 24 leaves no budget (the reserve is 64): nothing is kept
        command = ["sh", "-c", f"for i in $(seq {SLEEPERS}); do sleep 3 & done; wait"]
        with h.Execd(["--interval", "0.3s", "--discovery-interval", "0.1s", "--", *command],
                     preexec_fn=fd_limit(24)) as execd:
            execd.wait_batches(3)
            pids = h.descendants_and_self(execd.worker_pid())[1:]
            truth = open_fds(pids)
            execd.wait_batches(5)
            lines = target_lines(execd)[2:]
            self.assertEqual(execd.wait_exit(10), 0, execd.describe())
        self.assertTrue(lines, execd.describe())
        for line in lines[:2]:
            self.assertEqual(line.fields["proc_processes"], SLEEPERS + 1, execd.describe())
            self.assertEqual(line.fields["proc_fds"], truth, execd.describe())
            self.assertGreater(line.fields["proc_rss_max"], 0, execd.describe())
            self.assertIn("proc_cpu_user_seconds", line.fields, execd.describe())
            self.assertIn("proc_ctx_switches_voluntary", line.fields, execd.describe())
            self.assertIn("proc_pss_max", line.fields, execd.describe())
        stderr = execd.stderr_lines()
        self.assertFalse([l for l in stderr if l.startswith("E! ")], execd.describe())
        budget = [l for l in stderr if "descriptor budget" in l]
        self.assertEqual(len(budget), 1, execd.describe())
        self.assertTrue(budget[0].startswith("W! "), execd.describe())

    def test_out_of_descriptors_leaves_metrics_out_never_a_partial_sum(self):
        # a budget above the limit: opens fail with EMFILE
        command = ["sh", "-c", f"for i in $(seq {SLEEPERS}); do sleep 3 & done; wait"]
        with h.Execd(["--interval", "0.3s", "--discovery-interval", "0.1s", "--descriptor-budget", "1000",
                      "--", *command], preexec_fn=fd_limit(24)) as execd:
            execd.wait_batches(4)
            self.assertTrue(execd.running(), execd.describe())
            lines = target_lines(execd)[:4]
            errors = [l for l in execd.stderr_lines() if l.startswith("E! ")]
            self.assertEqual(execd.wait_exit(10), 0, execd.describe())
        self.assertTrue(errors, execd.describe())
        self.assertLessEqual(len(errors), execd.batch_count(), "one error line per interval at most")
        for line in errors:
            self.assertIn("out of file descriptors", line)
            self.assertIn("LimitNOFILE", line)
        short = 0
        for line in lines:
            processes = line.fields.get("proc_processes")
            if processes is None:
                short += 1
                self.assertEqual({f for f in line.fields if f.startswith("proc_")}, set(),
                                 f"an incomplete tree must report no proc_* sum\n{execd.describe()}")
                self.assertIn("collector_samples", line.fields)
            else:
                self.assertEqual(processes, SLEEPERS + 1, execd.describe())
        self.assertGreater(short, 0, execd.describe())

    def test_fds_of_a_tree_larger_than_the_budget(self):
        with h.Workload([fdtree_path(), str(BIG_TREE), str(FDS_EACH)], timeout=60) as tree, \
                h.Execd(["--pid", str(tree.pid), "--interval", "2s", "--no-global"],
                        preexec_fn=fd_limit(BIG_LIMIT)) as execd:
            pids = h.descendants_and_self(tree.pid)
            self.assertEqual(len(pids), BIG_TREE + 1)
            truth = open_fds(pids)
            execd.wait_batches(2, timeout=30)
            line = target_lines(execd)[1]
        self.assertEqual(line.fields["proc_processes"], BIG_TREE + 1, execd.describe())
        self.assertAlmostEqual(line.fields["proc_fds"], truth, delta=truth * 0.01, msg=execd.describe())
        self.assertIn("proc_rss_max", line.fields)
        self.assertIn("proc_ctx_switches_voluntary", line.fields)
        self.assertFalse([l for l in execd.stderr_lines() if l.startswith("E! ")], execd.describe())
        self.assertTrue([l for l in execd.stderr_lines() if "descriptor budget" in l], execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
