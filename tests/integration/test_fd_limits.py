"""Descriptor headroom through both frontends: the worst member, and a limit
raised at run time.

Why: proc_fds alone tells a leak only to someone who knows each process's
limit, and a sum of limits over a tree means nothing: the member closest to
its own soft RLIMIT_NOFILE decides (process-exporter's worst_fd_ratio,
netdata's fd-limit alert).

tests/workload/fdlimit.py holds a child that runs with a soft limit of 64
and 60 descriptors open, under a parent with its own (higher) limit and a
few descriptors. The test reads both from the child's /proc itself, then
proctree-execd's lines and collectd's values must say 60/64 = 93.75 % and a
headroom of 4. Then `prlimit --nofile` raises the child's soft limit to 128
from outside, which nothing tells proctree: the new ratio (46.875 %, headroom
68) must be seen within a minute and an interval, and until then only the
old one.
"""

import os
import subprocess
import sys
import tempfile
import time
import unittest

import collectd_harness as ch
import harness as h

FDLIMIT = [sys.executable, os.path.join(h.SOURCE_ROOT, "tests", "workload", "fdlimit.py")]
LIMIT, OPEN, RAISED = 64, 60, 128
BEFORE = (100.0 * OPEN / LIMIT, LIMIT - OPEN)
AFTER = (100.0 * OPEN / RAISED, RAISED - OPEN)
# the limits are read once a minute of the collector's clock, at an interval's end
SEEN_WITHIN = 60 + 2 * 1.0 + 3


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def soft_limit(pid):
    with open(f"/proc/{pid}/limits") as f:
        for line in f:
            if line.startswith("Max open files "):
                return int(line.split()[3])
    raise AssertionError(f"no Max open files line for {pid}")


class FdLimits(unittest.TestCase):
    def test_worst_member_then_a_raise_within_a_minute(self):
        with h.Workload(FDLIMIT + [str(LIMIT), str(OPEN)]) as tree, \
                tempfile.TemporaryDirectory(prefix="proctree-collectd-fdlimits-") as tmp:
            child = tree.ready_pids[0]
            self.assertEqual((open_fds(child), soft_limit(child)), (OPEN, LIMIT))
            parent_room = soft_limit(tree.pid) - open_fds(tree.pid)
            self.assertGreater(parent_room, LIMIT - OPEN, "the parent must not be the worst member")
            with h.Execd(["--pid", tree.pid, "--name", "tree", "--interval", "1s"]) as execd, \
                    ch.Collectd(tmp, ch.process_block("tree", f"Pid {tree.pid}")) as collectd:
                execd.wait_batches(2)
                percent = collectd.wait_csv("tree", "proc_fds_limit_percent", count=2)
                room = collectd.wait_csv("tree", "proc_fds_headroom", count=2)
                self.assertEqual((percent[-1][1], room[-1][1]), BEFORE, collectd.log()[-2000:])
                lines = [h.target_line(p, "tree") for _, p in execd.batches()]
                for p in lines[1:]:
                    self.assertEqual((p.fields["proc_fds_limit_percent"], p.fields["proc_fds_headroom"]), BEFORE,
                                     p.raw)
                    self.assertEqual(p.fields["proc_fds"], OPEN + open_fds(tree.pid), p.raw)

                subprocess.run(["prlimit", f"--pid={child}", f"--nofile={RAISED}:"], check=True)
                raised_at = time.time()
                self.assertEqual((open_fds(child), soft_limit(child)), (OPEN, RAISED))

                def execd_saw(e):
                    return any(h.target_line(p, "tree").fields.get("proc_fds_limit_percent") == AFTER[0]
                               for _, p in e.batches())
                execd.wait_for(execd_saw, SEEN_WITHIN, "the raised limit in proctree-execd's lines")
                h.wait_until(lambda: any(e >= raised_at and v == AFTER[0]
                                         for e, v in collectd.csv_rows("tree", "proc_fds_limit_percent")),
                             SEEN_WITHIN, "the raised limit in collectd's values")
                time.sleep(1.5)  # one more interval: the new figure stays
                after_rows = [(e, v) for e, v in collectd.csv_rows("tree", "proc_fds_limit_percent")]
                room_rows = collectd.csv_rows("tree", "proc_fds_headroom")
                lines = [h.target_line(p, "tree") for _, p in execd.batches()]

        # proctree-execd: the old figure, then the new one from the first line that has it on
        seen = [(p.timestamp / 1e9, (p.fields["proc_fds_limit_percent"], p.fields["proc_fds_headroom"]))
                for p in lines[1:]]
        first_new = next(i for i, (_, v) in enumerate(seen) if v == AFTER)
        self.assertTrue(all(v == BEFORE for _, v in seen[:first_new]), seen)
        self.assertTrue(all(v == AFTER for _, v in seen[first_new:]), seen)
        self.assertLessEqual(seen[first_new][0] - raised_at, SEEN_WITHIN, seen)
        # collectd: the same, value by value
        values = [v for _, v in after_rows[1:]]
        k = values.index(AFTER[0])
        self.assertTrue(set(values[:k]) <= {BEFORE[0]} and set(values[k:]) == {AFTER[0]}, after_rows)
        self.assertLessEqual(after_rows[k + 1][0] - raised_at, SEEN_WITHIN, after_rows)
        self.assertEqual(room_rows[-1][1], AFTER[1], room_rows)


if __name__ == "__main__":
    unittest.main()
