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


if __name__ == "__main__":
    unittest.main(verbosity=2)
