"""collectd under systemd's usual open-files limit, with a large tree.

Why: collectd shares one RLIMIT_NOFILE (1,024 under systemd by default)
among all its plugins. A proctree that kept every /proc file of a tree of
300 processes open would take it all: the csv and logfile plugins would
fail for every plugin, and collectd would abort on SIGTERM. proctree keeps
within its descriptor budget (half the soft limit unless DescriptorBudget
says otherwise) and reads the rest by open-read-close, so for a whole
minute every plugin's values keep coming, collectd's descriptors stay
within the budget, and it stops with status 0.
"""

import glob
import os
import resource
import signal
import tempfile
import time
import unittest

import collectd_harness as ch
import harness as h

LIMIT = 1024
BUDGET = LIMIT // 2   # the default: half the soft limit
CHILDREN = 299        # with the root: 300 processes
MINUTE = 60.0


def fdtree_path():
    return h.program("PROCTREE_FDTREE", "tests/workload/fdtree")


def systemd_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def csv_rows(pattern):
    rows = 0
    for path in glob.glob(pattern):
        with open(path) as f:
            rows += sum(1 for line in f if line[:1].isdigit())
    return rows


class CollectdDescriptors(unittest.TestCase):
    def test_large_tree_under_the_usual_limit(self):
        with h.Workload([fdtree_path(), str(CHILDREN), "2"], timeout=60) as tree, \
                tempfile.TemporaryDirectory(prefix="proctree-collectd-fds-") as tmp:
            collectd = ch.Collectd(tmp, ch.process_block("tree", f"Pid {tree.pid}"),
                                   outputs="LoadPlugin load\nLoadPlugin memory\n", preexec_fn=systemd_limit)
            with collectd:
                collectd.wait_csv("tree", "proc_processes", count=1)
                base = descriptors(collectd.proc.pid)
                most = base
                end = time.monotonic() + MINUTE
                while time.monotonic() < end:
                    self.assertTrue(collectd.running(), collectd.log()[-3000:])
                    most = max(most, descriptors(collectd.proc.pid))
                    time.sleep(0.5)
                load = csv_rows(os.path.join(collectd.csv_dir, ch.HOSTNAME, "load", "load-*"))
                memory = csv_rows(os.path.join(collectd.csv_dir, ch.HOSTNAME, "memory", "memory-used-*"))
                processes = collectd.csv_rows("tree", "proc_processes")
                collectd.proc.send_signal(signal.SIGTERM)
                status = collectd.proc.wait(h.START_TIMEOUT)
            log = collectd.log()
        self.assertEqual(status, 0, log[-3000:])
        self.assertIn("Exiting normally", log)
        self.assertLessEqual(most, BUDGET + 64, f"collectd held {most} descriptors\n{log[-3000:]}")
        # one value a second for a minute, from every plugin
        self.assertGreaterEqual(load, MINUTE - 5, log[-3000:])
        self.assertGreaterEqual(memory, MINUTE - 5, log[-3000:])
        self.assertGreaterEqual(len(processes), MINUTE - 5, log[-3000:])
        self.assertTrue(all(v == CHILDREN + 1 for _, v in processes[1:]), processes)
        self.assertNotIn("Too many open files", log)
        self.assertIn("descriptor budget reached", log)


if __name__ == "__main__":
    unittest.main(verbosity=2)
