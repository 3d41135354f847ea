"""CPU time of children that were reaped inside the tree.

Why: most CPU of a job is burnt by children that are gone by the time the job
is looked at (compilers under make, workers of a batch job, the one-second
helpers a shell script runs). When a member reaps a child the kernel moves
the child's CPU into the parent's cutime/cstime; proctree must pick it up
there, whether or not it ever saw the child alive, and never count it both in
the child and in the parent. The sum of proc_cpu_user_seconds and
proc_cpu_system_seconds over every batch of a launched tree must therefore
match the kernel's own rusage of that tree:

* in the same run: the launched command is `cpuburn tally sh -c ...`, which
  prints getrusage(SELF) + getrusage(CHILDREN) once its whole tree was reaped
  (its stdout reaches proctree-execd's stderr: --command-output stderr);
* in a separate run of the same work under /usr/bin/time. cpuburn spins until
  it has used a given amount of CPU time, so every run does the same work on
  a busy machine too.
"""

import re
import shutil
import subprocess
import unittest

import accounting_helpers as ah
import harness as h

TOLERANCE = 0.10


def workload_script():
    """4 children spinning 0.3 s each in parallel, 20 short ones, one that
    burns 0.1 s in the kernel, and a grandchild reaped by a child."""
    b = ah.cpuburn_path()
    return (f"B={b}; $B 0.3 & $B 0.3 & $B 0.3 & $B 0.3 & "
            f"i=0; while [ $i -lt 20 ]; do $B 0.005; i=$((i+1)); done; "
            f"$B -s 0.1; sh -c \"$B 0.1; $B -s 0.05; exit 0\"; wait")


def time_path():
    path = shutil.which("time", path="/usr/bin:/bin")
    if not path:
        raise AssertionError("/usr/bin/time is missing: install the Debian package 'time'")
    return path


class CpuOfReapedChildren(unittest.TestCase):
    def launch_tally(self):
        with h.Execd(["--interval", "0.5s", "--command-output", "stderr", "--", ah.cpuburn_path(), "tally",
                      "sh", "-c", workload_script()]) as execd:
            status = execd.wait_exit(120)
        self.assertEqual(status, 0, execd.describe())
        points = ah.target_points(execd, "cpuburn")
        self.assertGreaterEqual(len(points), 2, execd.describe())
        self.assertEqual(ah.negative_deltas(points), [], "negative delta")
        tally = [l for l in execd.stderr_lines() if l.startswith("rusage ")]
        self.assertEqual(len(tally), 1, execd.describe())
        user, system = (float(x) for x in tally[0].split()[1:])
        return execd, points, user, system

    def test_matches_the_trees_own_rusage_in_the_same_run(self):
        execd, points, user, system = self.launch_tally()
        got_user = ah.field_sum(points, "proc_cpu_user_seconds")
        got_system = ah.field_sum(points, "proc_cpu_system_seconds")
        truth = user + system
        got = got_user + got_system
        msg = (f"proctree user {got_user:.3f} system {got_system:.3f}; "
               f"rusage user {user:.3f} system {system:.3f}\n{execd.describe()}")
        self.assertGreater(truth, 1.4, msg)  # the work really ran
        self.assertLessEqual(abs(got - truth), TOLERANCE * truth, msg)
        # The kernel splits both the same way (same source, same scaling).
        self.assertLessEqual(abs(got_user - user), TOLERANCE * truth, msg)

    def test_matches_usr_bin_time_of_a_separate_run(self):
        run = subprocess.run([time_path(), "-f", "time %U %S", "sh", "-c", workload_script()],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        found = re.findall(r"^time ([0-9.]+) ([0-9.]+)$", run.stderr, re.M)
        self.assertEqual(len(found), 1, run.stderr)
        truth = float(found[0][0]) + float(found[0][1])

        with h.Execd(["--interval", "0.5s", "--", "sh", "-c", workload_script()]) as execd:
            status = execd.wait_exit(120)
        self.assertEqual(status, 0, execd.describe())
        points = ah.target_points(execd, "sh")
        self.assertEqual(ah.negative_deltas(points), [], "negative delta")
        got = ah.field_sum(points, "proc_cpu_user_seconds") + ah.field_sum(points, "proc_cpu_system_seconds")
        msg = f"proctree {got:.3f} s, /usr/bin/time {truth:.3f} s\n{execd.describe()}"
        self.assertGreater(truth, 1.4, msg)
        self.assertLessEqual(abs(got - truth), TOLERANCE * truth, msg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
