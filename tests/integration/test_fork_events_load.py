"""A double-forked daemon reaped at once outside the tree, under load:
its CPU is still the kernel's own accounting of it (test_fork_events.py
has the rest of the process events' cases).

Attached by --pid to a shell that starts the daemon, the tree's CPU is,
within 0.5%, the cpu.stat usage_usec of a cgroup holding just that tree,
when the daemon burns to its end and is reaped at once outside the tree
(by the test, a subreaper, as init would), with both cores busy with load
the test starts and polls a second apart: what it did after its last read
(up to a second) is its exit records' exact run time less that read (unit
test exits, last_moments_of_a_member_reaped_outside, fails without that).
The window is the frozen cgroup's (cgroup.freeze): nothing of the tree
runs after the usage is read.

HostStorm: a fork storm of over 15,000 forks a second elsewhere on the
host (a process of the test's, not of the watched tree) while a launched
tree forks 2,000 children, ten runs. The kernel sends every fork and exit
on the host to every listener, so the storm's events fill proctree's
sockets beside the tree's; their receive buffers hold such a burst
(procevents.c, exitrecords.c). Each run: no loss (no "were lost" line, no
collector_exit_record_losses), and the tree's started and exited are
every fork, plus the command; a run that lost some must have counted
the loss and may only have missed forks, never added any.

It runs alone (tests/integration/meson.build): its load is a burner on
every CPU of the host, which would slow every other test down.
"""

import ctypes
import os
import subprocess
import time
import unittest

import accounting_helpers as ah
import cgroup_helpers as cgh
import harness as h
import test_fork_events as fe

# The daemon reaped at once, polled once a second: its last moments (up to
# a second) are its records' exact run time less its last read, so 0.5% of
# 8 s (four clock ticks) is for each process's user and system times
# truncated to a tick (it read 0.9998x to 0.9999x; the estimate from the
# rate until the last read 0.985x to 0.999x, none at all 0.935x to 0.99x).
REAPED_BURN_SECONDS = 8.0
REAPED_TOLERANCE = 0.005
PR_SET_CHILD_SUBREAPER = 36

# A storm on every CPU: 25,000 to 31,000 forks a second measured here from
# one and two forkers, with the host's two CPUs busy with other tests. The
# rate is the ten runs' together (their forks over their time, by the
# storm's own count and clock): one run's alone is the scheduler's, 16,674
# to 40,183 a second in one test of 2026-12 on the 2-core VM shared with
# other work, the first run beside the previous test's burners ending.
# Built with the sanitizers (suite "sanitizer"), the storm is instrumented
# too and forks slower: its ten runs gave 19,177 a second together in
# one CI run of 2026-12-07 (14,957 to 23,670 each), where 20,000 was the
# bound. The bound is what makes the storm one (its events several times
# the tree's 4,000 a second), not a speed of the host: 15,000.
STORM_RATE = 15_000
STORM_RUNS = 10
TREE_FORKS, TREE_RATE = 2000, 4000


class DaemonReapedUnderLoad(fe.DaemonCase):
    def test_daemon_reaped_at_once_matches_the_cgroup_under_load(self):
        d = self.tmp
        burn = ah.cpuburn_path()
        libc = ctypes.CDLL(None, use_errno=True)
        self.assertEqual(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0)
        self.addCleanup(libc.prctl, PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        load = [subprocess.Popen([burn, "600"]) for _ in range(os.cpu_count())]
        for p in load:
            self.addCleanup(p.wait)
            self.addCleanup(p.kill)
        script = f"read go; ( setsid {burn} {REAPED_BURN_SECONDS} & echo $! > {d}/daemon ); read bye"
        cgroup = os.path.join(ah.cgroup2_mount(), f"proctree-daemon-{os.getpid()}")
        with ah.cgroup_dirs(cgroup):
            shell = subprocess.Popen(["sh", "-c", script], stdin=subprocess.PIPE)
            try:
                base = self.moved_and_waiting(shell, cgroup)
                with h.Execd(["--interval", "1s", "--poll-interval", "1s", "--pid", shell.pid,
                              "--name", "tree"]) as execd:
                    execd.wait_batches(1)
                    shell.stdin.write(b"go\n")
                    shell.stdin.flush()
                    daemon = int(ah.wait_file(f"{d}/daemon", h.START_TIMEOUT, "the daemon's pid"))
                    os.waitpid(daemon, 0)  # re-parented to us: reaped the moment it ends
                    cgh.set_frozen(cgroup, True)
                    frozen_at = time.monotonic()
                    used = fe.usage_usec(cgroup) - base
                    execd.wait_for(lambda e: any(when > frozen_at for when, _ in ah.target_points_with_time(e, "tree")),
                                   h.BATCH_TIMEOUT, "a batch after the freeze")
                    execd.wait_batches(execd.batch_count() + 1)
                    execd.stop()
            finally:
                cgh.set_frozen(cgroup, False)
                shell.stdin.close()
                shell.wait(h.BATCH_TIMEOUT)
        self.assert_tree_cpu_is_the_cgroups(execd, used, REAPED_BURN_SECONDS, REAPED_TOLERANCE)


class HostStorm(unittest.TestCase):
    def storm_beside_a_run(self):
        """One run: the storm started, a launched tree's forks followed to
        its end, the storm stopped. Returns (execd, forks, seconds)."""
        storm = subprocess.Popen([h.program("PROCTREE_HOSTSTORM", "tests/workload/hoststorm"),
                                  str(os.cpu_count())], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            self.assertTrue(storm.stdout.readline().startswith("ready "), "the storm's start")
            # built with the sanitizers (suite "sanitizer"), the workload's
            # LeakSanitizer clones a tracer process at its exit, a process
            # of the tree that TREE_FORKS does not count: off for the
            # workload alone (env execs, it forks nothing)
            workload = ["env", "ASAN_OPTIONS=" + ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"),
                                                                          "detect_leaks=0"])),
                        h.program("PROCTREE_FORKSTORM", "tests/workload/forkstorm"), TREE_FORKS, TREE_RATE]
            with h.Execd(["--interval", "0.5s", "--name", "forkstorm", "--", *workload]) as execd:
                status = execd.proc.wait(timeout=h.START_TIMEOUT)
            self.assertEqual(status, 0, execd.describe())
            # still storming when the run ended: it covered the whole run
            self.assertIsNone(storm.poll(), "the storm ended before the run")
            out, _ = storm.communicate(timeout=h.START_TIMEOUT)
        finally:
            if storm.poll() is None:
                storm.kill()
                storm.wait()
        said = dict(line.split() for line in out.splitlines())
        return execd, int(said["forks"]), int(said["ms"]) / 1000

    def test_no_event_of_a_watched_tree_is_lost_to_a_host_storm(self):
        losses = []
        forks = seconds = 0
        for run in range(1, STORM_RUNS + 1):
            execd, n, took = self.storm_beside_a_run()
            forks, seconds = forks + n, seconds + took
            rate = n / took
            msg = f"run {run}, storm {rate:.0f} forks/s:\n{execd.describe()}"
            points = ah.target_points(execd, "forkstorm")
            for p in points:
                h.assert_line_possible(self, p)
            said = [l for l in execd.stderr_lines() if l.startswith("W! ")]
            self.assertEqual(h.load_free(said), [], msg)
            lost = len(said) + ah.field_sum(points, "collector_exit_record_losses")
            counted = (ah.field_sum(points, "proc_processes_started"), ah.field_sum(points, "proc_processes_exited"))
            if lost == 0:
                self.assertEqual(counted, (TREE_FORKS + 1, TREE_FORKS + 1), msg)
            else:  # counted and said; a loss may miss forks, never add one
                losses.append(f"run {run}: {said}")
                self.assertTrue(said, msg)
                self.assertLessEqual(max(counted), TREE_FORKS + 1, msg)
            print(f"run {run}: storm {rate:.0f} forks/s, started/exited {counted}, losses {lost}")
        self.assertGreaterEqual(forks / seconds, STORM_RATE, f"the storm's {forks} forks in {seconds:.2f} s")
        self.assertEqual(losses, [], "runs that lost events or exit records")


if __name__ == "__main__":
    unittest.main(verbosity=2)
