"""PSS read only when it can have moved: the reads it skips never show.

Why: a member's smaps_rollup is read at a sample only when something of
its tree moved since its last read (docs/METRICS.md, PSS): a member joined,
left or exec'd, or any member's statm or faults moved; else its last values
stand in. The hard cases are a member whose PSS moves while its own
counters stay still: a parent that forks (its PSS halves), a parent whose
child writes the pages they share (copy on write: the copied pages become
wholly the parent's again, its own statm and faults unchanged; the child's
faults move), a parent whose sharing child execs or exits. Each must show
at the very next batch.

How: a parent holds 64 MiB of private anonymous memory (tests/workload/
cowtree.c: in C, so that nothing but the child's faults moves at its copy
on write) and forks one child that shares it, both idle; then the child
writes half of the pages, then the other half (which moves no statm of
either, only the child's faults: checked), then execs sleep (one test) or
exits (the other). proctree-execd runs with --pss-every 1000, so the
bound (a read at least every N samples) cannot be what catches a change:
the rule must. After each step the tree is still; the test reads the
members' own smaps_rollup Pss, asks for one batch (the first to end after
the step), reads them again (the tree held still), and compares. Between
steps, idle batches carry the values: they must still match, and
collector_pss_stale stays 0 (a carried value the rule vouches for is not
stale).
"""

import time
import unittest

import harness as h

MIB = 64
TOLERANCE = 0.02
STABLE = 0.005  # the members' own sum may move this much while the tree holds still
COW = [h.program("PROCTREE_COWTREE", "tests/workload/cowtree"), str(MIB)]
EXECD = ["--name", "cow", "--pss-every", "1000"]


class PssCowTest(unittest.TestCase):
    longMessage = False

    def setUp(self):
        self.count = 0

    def batch_against_truth(self, execd, members, what):
        """Ask for one batch; its target line against the members' own Pss,
        read before and after it."""
        truth = sum(h.pss_bytes(pid) for pid in members)
        self.count += 1
        execd.send()
        batches = execd.wait_batches(self.count)
        after = sum(h.pss_bytes(pid) for pid in members)
        self.assertLessEqual(abs(after - truth), STABLE * truth,
                             f"{what}: the tree did not hold still ({truth} then {after})")
        line = h.target_line(batches[-1][1], "cow")
        self.assertIsNotNone(line, execd.describe())
        self.assertEqual(line.fields["proc_processes"], len(members), f"{what}: {line.raw}")
        for field in ("proc_pss_min", "proc_pss_max"):
            got = line.fields.get(field)
            self.assertIsNotNone(got, f"{what}: no {field}\n{execd.describe()}")
            self.assertLessEqual(abs(got - truth), TOLERANCE * truth,
                                 f"{what}: {field}={got} ({100 * (got - truth) / truth:+.1f} %), the members' "
                                 f"own Pss sum to {truth}\n{line.raw}")
        self.assertEqual(line.fields.get("collector_pss_stale"), 0, f"{what}: {line.raw}")
        return truth

    def fork(self, tree, execd):
        """Fork the child; its pid once it is a member. It joins at once with
        the process events, else at the next discovery: batches until then."""
        tree.send(b"f\n")
        child = int(tree.read_lines(1, h.START_TIMEOUT, "the child")[0].split()[1])
        for _ in range(50):
            self.count += 1
            execd.send()
            line = h.target_line(execd.wait_batches(self.count)[-1][1], "cow")
            if line is not None and line.fields["proc_processes"] == 2:
                return child
            time.sleep(0.05)
        self.fail(f"the child did not join\n{execd.describe()}")

    def fork_and_write(self, tree, execd):
        """The parent alone, then with a child sharing its pages, then the
        child's copy of every page. The parent's pid and the child's."""
        parent = int(tree.pid)
        alone = self.batch_against_truth(execd, [parent], "the parent alone")
        self.batch_against_truth(execd, [parent], "the parent alone, idle")
        child = self.fork(tree, execd)
        shared = self.batch_against_truth(execd, [parent, child], "forked, both idle")
        self.assertLess(h.pss_bytes(parent), 0.75 * MIB * 2**20, "the fork did not share the parent's pages")
        self.batch_against_truth(execd, [parent, child], "forked, both idle, a batch later")
        tree.send(b"w\n")  # the first half of the pages
        tree.read_lines(1, h.START_TIMEOUT, "written")
        half = self.batch_against_truth(execd, [parent, child], "the child wrote half of the pages")
        # The second half: now that the child's code for it is mapped, the
        # copy on write moves nothing but the child's fault counts (checked:
        # else the test would not show that the faults are what tells)
        before = [h.statm(pid)[:3] for pid in (parent, child)]
        tree.send(b"w\n")
        tree.read_lines(1, h.START_TIMEOUT, "written")
        self.assertEqual([h.statm(pid)[:3] for pid in (parent, child)], before,
                         "a statm moved at the copy on write: this test shows nothing")
        written = self.batch_against_truth(execd, [parent, child], "the child wrote the other half")
        self.assertGreater(h.pss_bytes(parent), 0.9 * MIB * 2**20, "the copy on write did not make the pages the parent's")
        self.assertGreater(written, half + 0.4 * MIB * 2**20, (alone, shared, half, written))
        self.assertGreater(half, shared + 0.4 * MIB * 2**20, (alone, shared, half, written))
        self.batch_against_truth(execd, [parent, child], "the child wrote every page, a batch later")
        return parent, child

    def test_fork_copy_on_write_exec(self):
        with h.Workload(COW) as tree:
            with h.Execd(["--pid", tree.pid, *EXECD]) as execd:
                parent, child = self.fork_and_write(tree, execd)
                tree.send(b"e\n")
                tree.read_lines(1, h.START_TIMEOUT, "execd")
                self.batch_against_truth(execd, [parent, child], "the child exec'd sleep")
                self.assertGreater(h.pss_bytes(parent), 0.9 * MIB * 2**20)
                self.batch_against_truth(execd, [parent, child], "the child exec'd sleep, a batch later")

    def test_fork_exit(self):
        """The child exits, reaped by the parent: the pages are the parent's
        alone again. (The parent's own faults may move as it reaps, a write
        to a page it still shared; the departure alone reading the tree
        again is unit acct_pss's pss_across_a_fork_and_copy_on_write.)"""
        with h.Workload(COW) as tree:
            with h.Execd(["--pid", tree.pid, *EXECD]) as execd:
                parent = int(tree.pid)
                self.batch_against_truth(execd, [parent], "the parent alone")
                child = self.fork(tree, execd)
                self.batch_against_truth(execd, [parent, child], "forked, both idle")
                self.assertLess(h.pss_bytes(parent), 0.75 * MIB * 2**20, "the fork did not share the parent's pages")
                self.batch_against_truth(execd, [parent, child], "forked, both idle, a batch later")
                tree.send(b"x\n")
                tree.read_lines(1, h.START_TIMEOUT, "reaped")
                self.batch_against_truth(execd, [parent], "the child exited")
                self.assertGreater(h.pss_bytes(parent), 0.9 * MIB * 2**20)
                self.batch_against_truth(execd, [parent], "the child exited, a batch later")


if __name__ == "__main__":
    unittest.main()
