"""--by-rank cpu: the --by-limit names are the heaviest, not the first seen.

A launched Python parent forks 20 idle helpers named idle00 ... idle19
(prctl PR_SET_NAME) and, two seconds later, three CPU burners hot0, hot1
and hot2. With --by process --by-limit 3 the slots are taken long before
the burners start. Ranked by CPU (docs/METRICS.md, "Ranked breakdown"),
the burners are the named groups from the line after the interval they
first ran a whole of (two intervals after they start, at most), and stay
(idle names never outweigh them); the groups add up to the tree's line in
every interval. Ranked as seen (the default) the burners stay in other.

By cgroup likewise: a --cgroup target with six sub-cgroups of sleepers and,
once they hold the three places, a seventh whose process spins: its line
is named within two intervals and stays, every interval adding up.
"""

import json
import os
import sys
import tempfile
import textwrap
import time
import unittest

import accounting_helpers as ah
import cgroup_helpers as cgh
import harness as h

TARGET = "rank"
INTERVAL = 1.0
HOT = ("hot0", "hot1", "hot2")
# A tick late: the timer's, on a loaded host (line_rules' windows are
# tighter than the slack needed here, a whole interval's choice).
LATE = 0.5

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
    time.sleep(2)
    marks = {"hot_start": time.time()}
    hot = [child(name, True) for name in ("hot0", "hot1", "hot2")]
    time.sleep(float(sys.argv[2]))
    marks["kill"] = time.time()
    for pid in idle + hot:
        os.kill(pid, signal.SIGKILL)
    marks["hot_cpu"] = 0.0
    for pid in idle + hot:
        _, _, usage = os.wait4(pid, 0)
        if pid in hot:
            marks["hot_cpu"] += usage.ru_utime + usage.ru_stime
    with open(sys.argv[1], "w") as f:
        json.dump(marks, f)
""")


def run_tree(tmp, rank, hot_seconds=6):
    """The tree measured with --by-rank rank: (execd, its marks)."""
    script = os.path.join(tmp, f"tree-{rank}.py")
    marks = os.path.join(tmp, f"marks-{rank}.json")
    with open(script, "w") as f:
        f.write(TREE)
    with h.Execd(["--interval", f"{INTERVAL}s", "--poll-interval", "50ms", "--discovery-interval", "100ms",
                  "--name", TARGET, "--by", "process", "--by-limit", "3", "--by-rank", rank, "--",
                  sys.executable, script, marks, str(hot_seconds)]) as execd:
        status = execd.wait_exit(120)
    assert status == 0, execd.describe()
    with open(marks) as f:
        return execd, json.load(f)


def named_groups(points):
    """The names of one batch's group lines but other."""
    return {p.tags["process"] for p in points
            if p.tags.get("target") == TARGET and "process" in p.tags and p.tags["process"] != "other"}


class RankedByCpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = tempfile.TemporaryDirectory(prefix="proctree-rank-")
        cls.addClassCleanup(tmp.cleanup)
        cls.execd, cls.marks = run_tree(tmp.name, "cpu")
        cls.seen, cls.seen_marks = run_tree(tmp.name, "seen", hot_seconds=3)

    def batches_between(self, execd, start, end):
        """The batches (validated by line_rules as they are read) whose
        lines are dated from start to end (epoch seconds)."""
        return [(ts, points) for ts, points in execd.batches() if start <= ts / 1e9 < end]

    def test_burners_are_named_within_two_intervals(self):
        start, kill = self.marks["hot_start"], self.marks["kill"]
        late = self.batches_between(self.execd, start + 2 * INTERVAL + LATE, kill)
        self.assertGreaterEqual(len(late), 2, self.execd.describe())
        for ts, points in late:
            self.assertEqual(named_groups(points), set(HOT),
                             f"batch at {ts / 1e9 - start:.2f} s after the burners started\n{self.execd.describe()}")
        # before them, the first seen held the slots, and never a burner
        early = self.batches_between(self.execd, 0, start)
        self.assertTrue(early, self.execd.describe())
        for _, points in early:
            self.assertFalse(named_groups(points) & set(HOT), self.execd.describe())
            self.assertEqual(len(named_groups(points)), 3, self.execd.describe())

    def test_groups_add_up_to_the_tree_every_interval(self):
        # Each line's CPU is at most what the CPUs can run in its interval,
        # the rest waiting for the next (ledger.h): with the host's CPUs
        # all busy, the tree's and a group's can wait apart by the lag of
        # the burners' reads, two ticks each. Summed over the run, exact.
        lag = 2 * len(HOT) * 0.01 + 0.02
        for ts, points in self.batches_between(self.execd, 0, self.marks["kill"]):
            total = h.target_line(points, TARGET)
            groups = [p for p in points if p.tags.get("target") == TARGET and "process" in p.tags]
            self.assertIsNotNone(total, self.execd.describe())
            self.assertEqual(sum(p.fields["proc_processes"] for p in groups), total.fields["proc_processes"],
                             f"at {ts}\n{self.execd.describe()}")
            cpu = sum(p.fields.get("proc_cpu_user_seconds", 0) + p.fields.get("proc_cpu_system_seconds", 0)
                      for p in groups)
            tree_cpu = total.fields["proc_cpu_user_seconds"] + total.fields["proc_cpu_system_seconds"]
            self.assertLessEqual(abs(cpu - tree_cpu), lag, f"at {ts}\n{self.execd.describe()}")
            if "proc_rss_max" in total.fields:
                self.assertGreaterEqual(sum(p.fields.get("proc_rss_max", 0) for p in groups),
                                        total.fields["proc_rss_max"], f"at {ts}")
        total = ah.target_points(self.execd, TARGET)
        for field in ("proc_cpu_user_seconds", "proc_cpu_system_seconds", "proc_io_read_bytes",
                      "proc_minor_faults"):
            groups = sum(ah.breakdown_sums(self.execd, TARGET, "process", field).values())
            self.assertLessEqual(abs(groups - ah.field_sum(total, field)), 0.02 if "cpu" in field else 0,
                                 f"{field}\n{self.execd.describe()}")

    def test_the_burners_cpu_is_theirs_once_named(self):
        # what they did before they were named is in other's line; after,
        # in theirs: together at least what they ran, less the last
        # moments (killed, their CPU comes with their parent's fold)
        cpu = ah.breakdown_sums(self.execd, TARGET, "process", "proc_cpu_user_seconds", "proc_cpu_system_seconds")
        burned = self.marks["hot_cpu"]
        self.assertGreater(sum(cpu.get(n, 0) for n in HOT), 0.3 * burned, f"{cpu}, burned {burned}")
        self.assertGreaterEqual(sum(cpu.get(n, 0) for n in HOT) + cpu.get("other", 0), burned * 0.9 - 0.05,
                                f"{cpu}, burned {burned}")

    def test_seen_leaves_the_burners_in_other(self):
        lines = ah.breakdown_lines(self.seen, TARGET, "process")
        self.assertTrue(lines, self.seen.describe())
        self.assertFalse({p.tags["process"] for p in lines} & set(HOT), self.seen.describe())
        cpu = ah.breakdown_sums(self.seen, TARGET, "process", "proc_cpu_user_seconds", "proc_cpu_system_seconds")
        burned = self.seen_marks["hot_cpu"]
        self.assertGreaterEqual(cpu.get("other", 0), burned * 0.9 - 0.05, f"{cpu}, burned {burned}")


class RankedCgroups(unittest.TestCase):
    def test_a_busy_cgroup_takes_a_sleepers_place(self):
        cg = cgh.cgroup_for(self, f"pt-rank-{os.getpid()}", ("memory",))
        cg.spawn_in_subs([f"idle{i}" for i in range(6)])
        execd = h.Execd(["--interval", f"{INTERVAL}s", "--cgroup", cg.dir(), "--name", "cg", "--by", "cgroup",
                         "--by-limit", "3", "--by-rank", "cpu"])
        self.addCleanup(execd.stop)
        execd.wait_for(lambda e: any(p.fields.get("proc_processes", 0) >= 7 for p in cgh.total_points(e, "cg")),
                       h.START_TIMEOUT, "the sleepers joined")
        execd.wait_batches(execd.batch_count() + 1)
        cg.make_sub("hot")
        start = time.time()
        cg.spawn(cgh.busy_argv(), sub="hot")
        execd.wait_for(lambda e: any(ts / 1e9 >= start + 2 * INTERVAL + LATE + 2.5 for ts, _ in e.batches()),
                       60, "batches after the spinner's start")
        execd.stop()
        late = [(ts, points) for ts, points in execd.batches() if ts / 1e9 >= start + 2 * INTERVAL + LATE]
        self.assertGreaterEqual(len(late), 2, execd.describe())
        for ts, points in late:
            names = {p.tags["cgroup"] for p in points if p.tags.get("target") == "cg" and "cgroup" in p.tags}
            self.assertIn("hot", names, f"{ts / 1e9 - start:.2f} s after the start\n{execd.describe()}")
        for ts, points in execd.batches():
            total = h.target_line(points, "cg")
            groups = [p for p in points if p.tags.get("target") == "cg" and "cgroup" in p.tags]
            if total is None or not groups:
                continue
            self.assertEqual(sum(p.fields["proc_processes"] for p in groups), total.fields["proc_processes"],
                             f"at {ts}\n{execd.describe()}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
