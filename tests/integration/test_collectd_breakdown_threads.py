"""BreakDown "thread" in collectd: the same breakdown as --by thread.

namedthreads (two threads named "worker" burning 0.5 s of CPU each, one
named "gc" burning 0.15 s, each measuring its own CPU) is attached by Pid
before its threads start. csv shows one value set per thread name, plugin
instance TREE-NAME, with the CPU those threads did, as proctree-execd's
thread lines do (test_breakdown_threads.py).
"""

import contextlib
import tempfile
import unittest

import accounting_helpers as ah
import collectd_harness as ch
import harness as h

TARGET = "nt"
THREADS = [("worker", 0.5), ("worker", 0.5), ("gc", 0.15)]


class CollectdBreakdownThreads(unittest.TestCase):
    def test_cpu_per_thread_name(self):
        argv = [ah.namedthreads_path()] + [f"{name}:{seconds}" for name, seconds in THREADS]
        with contextlib.ExitStack() as stack:
            work = stack.enter_context(h.Workload(argv))
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-collectd-thr-"))
            collectd = stack.enter_context(ch.Collectd(
                tmp, "  PollInterval 0.05\n" + ch.process_block(TARGET, f"Pid {work.pid}", 'BreakDown "thread"')))
            collectd.wait_csv(TARGET, "proc_cpu_user_seconds")  # attached: what follows is counted
            work.send(b"go\n")
            truth = {}
            for line in work.read_lines(len(THREADS), 60, "cpu"):
                _, name, seconds, _ = line.split()
                truth[name] = truth.get(name, 0) + float(seconds)
            rows = len(collectd.csv_rows(TARGET, "proc_cpu_user_seconds"))
            collectd.wait_csv(TARGET, "proc_cpu_user_seconds", count=rows + 2)
            for name, seconds in truth.items():
                instance = f"{TARGET}-{name}"
                got = sum(v for metric in ("proc_cpu_user_seconds", "proc_cpu_system_seconds")
                          for _, v in collectd.csv_rows(instance, metric))
                self.assertLessEqual(abs(got - seconds), 0.1 * seconds + 0.03,
                                     f"{instance}: {got} against {seconds}\n{collectd.log()[-2000:]}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
