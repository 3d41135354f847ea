"""PSS where it changes without the member's own memory moving: sharing, exec.

Why: PSS exists for the services that share memory between processes (a
parent's shared buffers, the workers it forked), and smaps_rollup is dear, so
proctree reads it again only when the tree's memory moved. A member's PSS
also changes when *another* member starts sharing its pages, with its own
statm unchanged; and a member that execs has a new memory map, which a
descriptor kept from before cannot show. Both once made proctree report
stale PSS (2.2x the truth for a forked tree; the old program's for ever
after an exec). The truth is the sum of the members' own smaps_rollup Pss,
read when the tree is idle right after each batch.
"""

import os
import sys
import time
import unittest

import harness as h

SHARED_MIB = 64
CHILDREN = 4
TOLERANCE = 0.05
# The defaults: PSS read again whenever the tree moved, and at least every 6th
# sample (--pss-every); the cost guard of slow reads, --pss-budget, is off
# unless asked for (unit acct_pss).
EXECD = ["--name", "pss"]
SHAREMEM = [sys.executable, os.path.join(h.SOURCE_ROOT, "tests", "workload", "sharemem.py")]


class PssTest(unittest.TestCase):
    def batch(self, execd, count):
        """Ask for batch number count; its target line."""
        execd.send()
        batches = execd.wait_batches(count)
        line = h.target_line(batches[-1][1], "pss")
        self.assertIsNotNone(line, execd.describe())
        return line

    def check(self, line, truth, what, execd):
        for field in ("proc_pss_min", "proc_pss_max"):
            got = line.fields.get(field)
            self.assertIsNotNone(got, f"{what}: no {field}\n{execd.describe()}")
            self.assertLessEqual(abs(got - truth), TOLERANCE * truth,
                                 f"{what}: {field}={got}, the members' own Pss sum to {truth}")

    def test_children_sharing_a_parents_region(self):
        with h.Workload(SHAREMEM + ["share", str(SHARED_MIB)]) as tree:
            with h.Execd(["--pid", tree.pid, *EXECD]) as execd:
                count = 1
                self.batch(execd, count)  # the first interval
                deadline = time.monotonic() + h.START_TIMEOUT
                members = [tree.pid]  # in the order they join
                for k in range(1, CHILDREN + 1):
                    tree.send(b"fork\n")
                    members += [int(tree.read_lines(1, h.START_TIMEOUT, f"child {k}")[0].split()[1])]
                    # every batch until the child has joined (at once with
                    # process events, else at the next discovery), and one
                    # more; each against the members it reports
                    joined = 0
                    while joined < 2:
                        count += 1
                        self.assertLess(time.monotonic(), deadline, "the children did not join")
                        line = self.batch(execd, count)
                        n = line.fields["proc_processes"]
                        self.assertIn(n, (k, k + 1), line.raw)
                        truth = sum(h.pss_bytes(pid) for pid in members[:n])
                        self.check(line, truth, f"batch {count}, child {k} touched the region", execd)
                        joined += n == k + 1

    def test_exec_into_a_smaller_program(self):
        with h.Workload(SHAREMEM + ["exec", "200", "16"]) as proc:
            with h.Execd(["--pid", proc.pid, *EXECD]) as execd:
                line = self.batch(execd, 1)
                self.check(line, h.pss_bytes(proc.pid), "before the exec", execd)
                self.batch(execd, 2)  # its smaps_rollup kept open, then idle
                proc.send(b"go\n")
                proc.read_lines(1, h.START_TIMEOUT, "ready after the exec")
                for count in (3, 4):
                    line = self.batch(execd, count)
                    self.check(line, h.pss_bytes(proc.pid), f"batch {count}, after the exec", execd)


if __name__ == "__main__":
    unittest.main()
