"""BreakDown "process" in collectd: the same breakdown as --by process.

A `sh` attached by Pid runs three programs (copies of cpuburn named
alpha, beta and gamma) once collectd follows it. csv shows one value set
per program, plugin instance TREE-NAME, each with its own CPU, and the
groups' CPU and I/O add up to the tree's; carbon (write_graphite) stores
the group's path.
"""

import contextlib
import os
import subprocess
import tempfile
import unittest

import accounting_helpers as ah
import collectd_harness as ch
import harness as h

TARGET = "tree"
PROGRAMS = {"alpha": 0.6, "beta": 0.4, "gamma": 0.3}  # CPU seconds each


class CollectdBreakdown(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-collectd-by-"))
        # starts the programs at the first line on stdin, says when they
        # are done, holds until EOF
        done = os.path.join(tmp, "done")
        script = f"read go; {ah.burn_script(tmp, PROGRAMS, 'beta')}; echo done >{done}; cat >/dev/null"
        cls.sh = subprocess.Popen(["sh", "-c", script], stdin=subprocess.PIPE)
        stack.callback(h.stop_process, cls.sh)
        cls.carbon = stack.enter_context(ch.Carbon(tmp))
        cls.collectd = stack.enter_context(ch.Collectd(
            tmp, "  PollInterval 0.02\n" + ch.process_block(TARGET, f"Pid {cls.sh.pid}", 'BreakDown "process"'),
            ch.graphite_output(cls.carbon.line_port)))
        cls.collectd.wait_csv(TARGET, "proc_cpu_user_seconds")
        cls.sh.stdin.write(b"go\n")
        cls.sh.stdin.flush()
        ah.wait_file(done, 60, "the three programs to end")
        rows = len(cls.collectd.csv_rows(TARGET, "proc_cpu_user_seconds"))
        cls.collectd.wait_csv(TARGET, "proc_cpu_user_seconds", count=rows + 2)

    def test_one_value_set_per_program_with_its_cpu(self):
        got = {name: self.collectd.csv_sum(f"{TARGET}-{name}", "proc_cpu_user_seconds", "proc_cpu_system_seconds")
               for name in PROGRAMS}
        log = self.collectd.log()
        ah.check_program_cpu(self, got, PROGRAMS, log, f"{got}\n{log[-2000:]}")

    def test_groups_add_up_to_the_tree(self):
        groups = self.collectd.breakdown_instances(TARGET)
        self.assertLessEqual(set(f"{TARGET}-{name}" for name in PROGRAMS), set(groups))
        for metric, slack in (("proc_cpu_user_seconds", 0.02), ("proc_cpu_system_seconds", 0.02),
                              ("proc_io_read_bytes", 0)):
            total = self.collectd.csv_sum(TARGET, metric)
            self.assertLessEqual(abs(sum(self.collectd.csv_sum(g, metric) for g in groups) - total), slack, metric)

    def test_graphite_path_shows_the_group(self):
        self.carbon.wait_points(f"{ch.HOSTNAME}.proctree-{TARGET}-alpha.duration-proc_cpu_user_seconds")


if __name__ == "__main__":
    unittest.main(verbosity=2)
