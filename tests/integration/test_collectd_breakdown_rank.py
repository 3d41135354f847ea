"""BreakDownRank "cpu" in collectd: the same ranking as --by-rank cpu.

A Python parent attached by Pid forks 20 idle helpers idle00 ... idle19
(prctl PR_SET_NAME) and, once collectd follows it, three CPU burners
hot0, hot1 and hot2, with BreakDown "process", BreakDownLimit 3 and
BreakDownRank "cpu". csv shows the burners as the value sets TREE-hot0 ...
TREE-hot2 at every epoch from two intervals (and half a second) after they
started until they are killed, and no helper's value set then; summed
over the run, the groups' CPU adds up to the tree's (docs/METRICS.md,
"Ranked breakdown").
"""

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import accounting_helpers as ah
import collectd_harness as ch
import harness as h

TARGET = "tree"
HOT = ("hot0", "hot1", "hot2")
INTERVAL = 1.0  # collectd's, the harness's default
LATE = 0.5      # a read late on a loaded host

TREE = textwrap.dedent("""\
    import ctypes, json, os, signal, sys, time
    libc = ctypes.CDLL(None, use_errno=True)

    def child(name, hot):
        pid = os.fork()
        if pid:
            return pid
        libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME: the comm
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: none outlives a failed test
        if hot:
            while True:
                pass
        while True:
            signal.pause()

    idle = [child("idle%02d" % i, False) for i in range(20)]
    sys.stdin.readline()  # collectd follows the tree
    marks = {"hot_start": time.time()}
    hot = [child(name, True) for name in ("hot0", "hot1", "hot2")]
    time.sleep(6)
    marks["kill"] = time.time()
    for pid in idle + hot:
        os.kill(pid, signal.SIGKILL)
    for pid in idle + hot:
        os.waitpid(pid, 0)
    with open(sys.argv[1], "w") as f:
        f.write(json.dumps(marks) + "\\n")  # whole once it ends with a newline (wait_file)
    sys.stdin.read()  # held until EOF: the tree's line goes on
""")


class CollectdBreakdownRank(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-collectd-rank-"))
        script, marks = os.path.join(tmp, "tree.py"), os.path.join(tmp, "marks.json")
        with open(script, "w") as f:
            f.write(TREE)
        cls.tree = subprocess.Popen([sys.executable, script, marks], stdin=subprocess.PIPE)
        stack.callback(h.stop_process, cls.tree)
        cls.collectd = stack.enter_context(ch.Collectd(
            tmp, "  PollInterval 0.05\n" + ch.process_block(TARGET, f"Pid {cls.tree.pid}", 'BreakDown "process"',
                                                             "BreakDownLimit 3", 'BreakDownRank "cpu"')))
        cls.collectd.wait_csv(TARGET, "proc_cpu_user_seconds", count=2)
        cls.tree.stdin.write(b"go\n")
        cls.tree.stdin.flush()
        ah.wait_file(marks, 60, "the burners to end")
        with open(marks) as f:
            cls.marks = json.load(f)
        rows = len(cls.collectd.csv_rows(TARGET, "proc_cpu_user_seconds"))
        cls.collectd.wait_csv(TARGET, "proc_cpu_user_seconds", count=rows + 2)
        cls.collectd.stop()  # its write threads write a read's rows in any order: read them whole

    def epochs(self, name):
        return {e for e, _ in self.collectd.csv_rows(f"{TARGET}-{name}", "proc_cpu_user_seconds")}

    def test_burners_are_the_value_sets_within_two_intervals(self):
        start, kill = self.marks["hot_start"], self.marks["kill"]
        late = sorted(e for e, _ in self.collectd.csv_rows(TARGET, "proc_cpu_user_seconds")
                      if start + 2 * INTERVAL + LATE <= e < kill)
        self.assertGreaterEqual(len(late), 2, self.collectd.log()[-2000:])
        helpers = [g[len(TARGET) + 1:] for g in self.collectd.breakdown_instances(TARGET)
                   if g[len(TARGET) + 1:].startswith("idle")]
        for epoch in late:
            for name in HOT:
                self.assertIn(epoch, self.epochs(name), f"{name} at {epoch - start:.2f} s after the start")
            for name in helpers:
                self.assertNotIn(epoch, self.epochs(name), f"{name} at {epoch - start:.2f} s after the start")

    def test_groups_add_up_to_the_tree(self):
        groups = self.collectd.breakdown_instances(TARGET)
        self.assertLessEqual(set(f"{TARGET}-{name}" for name in HOT), set(groups))
        for metric in ("proc_cpu_user_seconds", "proc_cpu_system_seconds"):
            total = self.collectd.csv_sum(TARGET, metric)
            self.assertLessEqual(abs(sum(self.collectd.csv_sum(g, metric) for g in groups) - total), 0.02, metric)


if __name__ == "__main__":
    unittest.main(verbosity=2)
