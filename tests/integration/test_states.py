"""Process states and the oldest member's age, through both frontends.

Why: operators alert on zombies piling up, processes blocked in the kernel
(D) and stopped ones, and "did it restart?" is the first question after an
alert; proctree reads every member's stat at each interval's end and used to
throw its state and start time away.

tests/workload/states holds one process of the tree in each state: a busy
loop (R), one stopped by SIGSTOP (T), ZOMBIES unreaped children (Z), one
blocked in vfork() (D), and the parent and the vfork child asleep in read
(S, not counted). The test reads every member's state from /proc itself
and waits until it is steady; then the next line of proctree-execd, and the
next values collectd writes, count each state as the test saw it, and
proc_oldest_age_seconds is the parent's age at the line's time (its
starttime against the line's timestamp) within two ticks: the start's
truncation to a tick and the age's rounding to 0.01 s.
"""

import os
import tempfile
import time
import unittest

import collectd_harness as ch
import harness as h

ZOMBIES = 3
TICK = 1.0 / os.sysconf("SC_CLK_TCK")
STATES = {"running": "R", "blocked": "D", "stopped": "T", "zombie": "Z"}


def states_path():
    return h.program("PROCTREE_STATES", "tests/workload/states")


def state_letters(root):
    letters = {}
    for pid in h.descendants_and_self(root):
        with open(f"/proc/{pid}/stat") as f:
            letters[pid] = f.read().rsplit(")", 1)[1].split()[0]
    return letters


def expected_counts(letters):
    return {name: sum(1 for s in letters.values() if s == letter) for name, letter in STATES.items()}


def started_at(pid):
    """The process's start as wall-clock time (starttime is ticks since boot)."""
    with open(f"/proc/{pid}/stat") as f:
        ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    boot_now = time.clock_gettime(time.CLOCK_BOOTTIME)
    return time.time() - (boot_now - ticks * TICK)


def steady_tree():
    """The workload, once the test sees each state: 1 R, 1 D, 1 T, ZOMBIES Z."""
    tree = h.Workload([states_path(), str(ZOMBIES)], ready_count=4 + ZOMBIES)
    want = {"running": 1, "blocked": 1, "stopped": 1, "zombie": ZOMBIES}
    h.wait_until(lambda: expected_counts(state_letters(tree.pid)) == want, h.START_TIMEOUT,
                 "the workload's states")
    return tree, want


class ExecdStates(unittest.TestCase):
    def test_each_state_counted_and_the_age(self):
        tree, want = steady_tree()
        with tree, h.Execd(["--pid", tree.pid, "--name", "tree", "--interval", "1s"]) as execd:
            begun = started_at(tree.pid)
            execd.wait_batches(3)
            self.assertEqual(expected_counts(state_letters(tree.pid)), want)
            points = [h.target_line(p, "tree") for _, p in execd.batches()]
        for p in points[1:]:
            for name, count in want.items():
                self.assertEqual(p.fields[f"proc_processes_{name}"], count, p.raw)
            # the parent, the vfork child and every other member
            self.assertEqual(p.fields["proc_processes"], 5 + ZOMBIES, p.raw)
            age = p.fields["proc_oldest_age_seconds"]
            at_line = p.timestamp / 1e9 - begun
            # taken at the line's stamp (collectortick.c), however long
            # the reads after it take: the test's start and proctree's are
            # the same truncated tick, the age is rounded to 0.01 s
            self.assertLessEqual(age, at_line + 2 * TICK, p.raw)
            self.assertGreaterEqual(age, at_line - 2 * TICK, p.raw)

    def test_sleeping_tree_counts_none(self):
        with h.Workload([h.program("PROCTREE_SELHOLD", "tests/workload/selhold"), "2"], ready_count=3) as tree, \
                h.Execd(["--pid", tree.pid, "--name", "tree", "--interval", "0.5s"]) as execd:
            execd.wait_batches(3)
            points = [h.target_line(p, "tree") for _, p in execd.batches()]
        for p in points[1:]:
            self.assertEqual(p.fields["proc_processes"], 3, p.raw)
            for name in STATES:
                self.assertEqual(p.fields[f"proc_processes_{name}"], 0, p.raw)


class CollectdStates(unittest.TestCase):
    def test_each_state_counted_and_the_age(self):
        tree, want = steady_tree()
        with tree, tempfile.TemporaryDirectory(prefix="proctree-collectd-states-") as tmp:
            begun = started_at(tree.pid)
            with ch.Collectd(tmp, ch.process_block("tree", f"Pid {tree.pid}")) as collectd:
                rows = {name: collectd.wait_csv("tree", f"proc_processes_{name}", count=3) for name in want}
                ages = collectd.wait_csv("tree", "proc_oldest_age_seconds", count=3)
                log = collectd.log()
        for name, count in want.items():
            self.assertTrue(all(v == count for _, v in rows[name][1:]), f"{name}: {rows[name]}\n{log[-2000:]}")
        for epoch, age in ages[1:]:
            # collectd's csv gives the time of the value with a millisecond
            self.assertLessEqual(age, epoch - begun + 2 * TICK + 0.001, ages)
            self.assertGreaterEqual(age, epoch - begun - 2 * TICK - 0.001, ages)


if __name__ == "__main__":
    unittest.main()
