"""Exit records (the kernel's taskstats): what a process that lives less
than a poll leaves behind.

Why: /proc forgets a thread's context switches when it exits, and a process
that exits between two polls is never read at all. With CAP_NET_ADMIN
proctree listens to the kernel's exit records and gets both back; without
it, everything works as before and one I! line says so.

- A parent (exitkids switches) attached by --pid runs children that each
  live ~40 ms, far less than the 0.5 s poll, each sleeping 20 times and
  spinning 20 ms: as root, the tree's CPU is within 5% of the children's
  getrusage and its context switches are at least theirs; as nobody (no
  capability), the same tree gives the CPU as before, no exit-record field,
  and one I! line naming the mode.
- exitkids fates: one child exits 1, one is killed by SIGKILL, one holds
  512 MiB for 30 ms: proc_processes_failed=1, proc_processes_killed=1,
  proc_exited_rss_peak_max >= 512 MiB.
- the same children under --by process: test_exit_record_groups.py.
"""

import unittest

import accounting_helpers as ah
import harness as h

CHILDREN = 25
CPU_SLACK = 0.05
EXIT_FIELDS = ("proc_processes_failed", "proc_processes_killed", "proc_exited_rss_peak_max",
               "collector_exit_records", "collector_exit_record_losses")


def exitkids_path():
    return h.program("PROCTREE_EXITKIDS", "tests/workload/exitkids")


class ExitRecordCase(unittest.TestCase):
    """What both files' tests read: the mode lines, a tree's CPU, and
    proctree-execd as nobody."""

    def mode_lines(self, execd):
        return [line for line in execd.stderr_lines() if line.startswith("I! ") and "exit records" in line]

    def cpu(self, points):
        return ah.field_sum(points, "proc_cpu_user_seconds") + ah.field_sum(points, "proc_cpu_system_seconds")

    def as_nobody(self):
        """(wrapper, program): proctree-execd run as nobody, no capability."""
        return ah.execd_as_nobody(self, "proctree-exit-")


class ExitRecords(ExitRecordCase):
    def run_tree(self, mode, wrapper=(), program=None, poll="0.5s", target_options=(), lines=1):
        """exitkids MODE attached by --pid: (its result line, or its LINES
        lines, execd, the target's points)."""
        results, _, execd = ah.drive(self, [exitkids_path()] + mode,
                                     ["--interval", "0.5s", "--poll-interval", poll, "--name", "kids",
                                      *target_options],
                                     [(b"go\n", lines)], wrapper, program)
        result = results[0][0] if lines == 1 else results[0]
        return result, execd, ah.target_points(execd, "kids")

    def rusage(self, result):
        """The children's CPU and switches, the parent's own switches and CPU."""
        word, cpu, nvcsw, nivcsw, own, own_cpu = result.split()
        self.assertEqual(word, "rusage")
        return float(cpu), int(nvcsw), int(nivcsw), int(own), float(own_cpu)

    def assert_tree_cpu(self, points, children, parent, execd):
        """The tree's CPU is its children's (each within its record or its
        last /proc read) and the parent's since proctree attached, which is
        no more than all of the parent's: between the children's and both
        (5% of the children's for the clock ticks of the split)."""
        got = self.cpu(points)
        msg = f"tree {got}, children {children}, parent {parent}\n{execd.describe()}"
        self.assertGreaterEqual(got, children * (1 - CPU_SLACK), msg)
        self.assertLessEqual(got, children * (1 + CPU_SLACK) + parent, msg)

    def test_switches_of_short_children_are_counted(self):
        result, execd, points = self.run_tree(["switches", str(CHILDREN)])
        cpu, nvcsw, nivcsw, own, own_cpu = self.rusage(result)
        self.assertEqual(len(self.mode_lines(execd)), 1, execd.describe())
        self.assertIn("using the kernel's exit records", self.mode_lines(execd)[0])
        self.assertEqual(ah.negative_deltas(points), [], execd.describe())
        self.assert_tree_cpu(points, cpu, own_cpu, execd)
        # The kernel writes a record before the task's last switches (its
        # final switch out, a preemption while it exits), which getrusage
        # counts: a child's record may be up to two short. The tree holds
        # the parent too, whose own switches count, less the few it made
        # before proctree attached (its past as a new root is not counted).
        switches = (ah.field_sum(points, "proc_ctx_switches_voluntary")
                    + ah.field_sum(points, "proc_ctx_switches_involuntary"))
        self.assertGreaterEqual(switches, nvcsw + nivcsw + own - 2 * CHILDREN - 4, execd.describe())
        self.assertGreaterEqual(ah.field_sum(points, "collector_exit_records"), CHILDREN, execd.describe())
        self.assertEqual(ah.field_sum(points, "collector_exit_record_losses"), 0, execd.describe())

    def test_without_the_privilege_as_before(self):
        wrapper, program = self.as_nobody()
        result, execd, points = self.run_tree(["switches", str(CHILDREN)], wrapper, program)
        cpu, nvcsw, _, _, own_cpu = self.rusage(result)
        lines = self.mode_lines(execd)
        self.assertEqual(len(lines), 1, execd.describe())
        self.assertIn("no exit records", lines[0])
        refused = [line for line in execd.stderr_lines() if line.startswith("I! ") and "no process events" in line]
        if refused:
            # A kernel that refuses the process events to this user (6.1 does,
            # 6.18 does not) says so there; the records come with the events.
            self.assertIn("this kernel wants CAP_NET_ADMIN", refused[0], execd.describe())
            self.assertIn("used with the process events only", lines[0], execd.describe())
        else:
            self.assertIn("CAP_NET_ADMIN", lines[0])
        self.assert_tree_cpu(points, cpu, own_cpu, execd)
        # today's accounting: the children's switches are lost
        self.assertLess(ah.field_sum(points, "proc_ctx_switches_voluntary"), nvcsw, execd.describe())
        for p in points:
            for field in EXIT_FIELDS:
                self.assertNotIn(field, p.fields, p.raw)

    def test_failed_killed_and_peak(self):
        result, execd, points = self.run_tree(["fates"])
        self.assertEqual(result, "done 3")
        self.assertEqual(ah.field_sum(points, "proc_processes_failed"), 1, execd.describe())
        self.assertEqual(ah.field_sum(points, "proc_processes_killed"), 1, execd.describe())
        peak = max(p.fields["proc_exited_rss_peak_max"] for p in points)
        self.assertGreaterEqual(peak, 512 << 20, execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
