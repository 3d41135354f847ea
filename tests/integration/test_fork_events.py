"""Membership and process counts from the kernel's process events.

Why: /proc forgets a process once it is reaped. A server that forks one
process per connection starts hundreds a second, each living a few
milliseconds: polls see a handful, so proc_processes_started/exited read
a fraction of the forks. And a daemon started the usual way,
`( setsid prog & )`, is re-parented to init at once: discovery, which
walks the members' children, never finds it, and its work is lost. With
the kernel's fork and exit events (the netlink proc connector, which a
proctree in the host's pid namespace can follow), every process a member
forks joins at once and is counted, so:

* the counts equal the forks (and, in a private pid namespace, where the
  events carry pids proctree cannot see, they are lower: processes seen);
* attached by --pid to a shell that starts such a daemon, the tree's CPU is
  the kernel's own accounting of the same processes (cpu.stat usage_usec of
  a cgroup holding just that tree) within 2%;
* so it is, within 0.5%, when the daemon is reaped at once outside the
  tree under load: test_fork_events_load.py.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import accounting_helpers as ah
import harness as h

CONNECTIONS = 600
BURN_SECONDS = 2.0  # the daemon's CPU: 2% of it is four clock ticks of slack
TOLERANCE = 0.02


def forkserver_argv(portfile):
    # the interpreter itself: a shim named python3 (pyenv) would be the
    # target, under its own name, until it execs
    return [sys.executable, os.path.join(h.SOURCE_ROOT, "tests", "workload", "forkserver.py"), portfile]


def hit(portfile, count):
    """count connections to the fork server; returns the last number it sent."""
    port = int(ah.wait_file(portfile, h.START_TIMEOUT, "the fork server's port"))
    last = 0
    for _ in range(count):
        with socket.create_connection(("127.0.0.1", port), timeout=h.BATCH_TIMEOUT) as s:
            last = int(s.makefile().readline())
    return last


def counts(execd):
    points = ah.target_points(execd, "python3")
    return ah.field_sum(points, "proc_processes_started"), ah.field_sum(points, "proc_processes_exited")


class ForkPerConnection(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-forks-")
        self.portfile = os.path.join(self.tmp, "port")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_with_events_every_fork_is_counted(self):
        server = subprocess.Popen(forkserver_argv(self.portfile))
        try:
            with h.Execd(["--interval", "0.5s", "--pid", server.pid]) as execd:
                execd.wait_batches(1)
                forks = hit(self.portfile, CONNECTIONS)
                self.assertEqual(forks, CONNECTIONS)
                execd.wait_for(lambda e: min(counts(e)) >= forks, h.BATCH_TIMEOUT,
                               "started and exited to reach the forks")
                execd.wait_batches(execd.batch_count() + 1)  # and no more
                started, exited = counts(execd)
                mode = [l for l in execd.stderr_lines() if "following the kernel's process events" in l]
        finally:
            h.stop_process(server)
        self.assertEqual((started, exited), (forks, forks), execd.describe())
        self.assertEqual(len(mode), 1, execd.describe())

    def test_without_events_processes_seen(self):
        # A private pid namespace: the events carry pids proctree cannot see.
        wrapper = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
        with h.Execd(["--interval", "0.5s", "--", *forkserver_argv(self.portfile)], wrapper=wrapper) as execd:
            execd.wait_batches(1)
            forks = hit(self.portfile, CONNECTIONS)
            execd.wait_batches(execd.batch_count() + 2)
            started, exited = counts(execd)
            mode = [l for l in execd.stderr_lines() if "no process events" in l]
        self.assertEqual(len(mode), 1, execd.describe())
        self.assertIn("count processes seen", mode[0])
        self.assertLess(started, forks, execd.describe())
        self.assertLess(exited, forks, execd.describe())


def usage_usec(cgroup):
    with open(os.path.join(cgroup, "cpu.stat")) as f:
        for line in f:
            key, value = line.split()
            if key == "usage_usec":
                return int(value)
    raise AssertionError(f"{cgroup}/cpu.stat has no usage_usec")


def sleeping(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rindex(")") + 2] == "S"


class DaemonCase(unittest.TestCase):
    """A double-forked daemon's tree in a cgroup of the test's own: the
    helpers of DoubleForkedDaemon and test_fork_events_load.py."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-daemon-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def moved_and_waiting(shell, cgroup):
        """The shell moved into cgroup and waiting for "go": from here the
        cgroup holds the tree, and what it used so far is its past, not
        ours. The cgroup's usage_usec then, the test's base."""
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
            f.write(f"{shell.pid}\n")
        h.wait_until(lambda: sleeping(shell.pid), h.START_TIMEOUT, "the shell to wait for go")
        return usage_usec(cgroup)

    def assert_tree_cpu_is_the_cgroups(self, execd, used, burned_seconds, tolerance):
        """The tree's CPU over its lines within tolerance of the cgroup's
        growth, which holds at least the burn; no delta negative."""
        points = ah.target_points(execd, "tree")
        self.assertEqual(ah.negative_deltas(points), [], "negative delta")
        cpu = ah.field_sum(points, "proc_cpu_user_seconds") + ah.field_sum(points, "proc_cpu_system_seconds")
        self.assertGreaterEqual(used, burned_seconds * 1e6)
        self.assertLess(abs(cpu * 1e6 - used), tolerance * used,
                        f"tree {cpu:.3f}s, cgroup {used / 1e6:.3f}s\n{execd.describe()}")


class DoubleForkedDaemon(DaemonCase):
    def test_daemon_cpu_matches_the_cgroup(self):
        d = self.tmp
        os.mkfifo(f"{d}/bye")
        # The daemon burns, says so, and stays until told to go (a daemon's
        # own exit, reaped by init, would lose its last poll's worth).
        daemon = f"{ah.cpuburn_path()} {BURN_SECONDS}; echo done > {d}/done; read x < {d}/bye"
        script = f"read go; ( setsid sh -c '{daemon}' & ); read bye"
        cgroup = os.path.join(ah.cgroup2_mount(), f"proctree-daemon-{os.getpid()}")
        with ah.cgroup_dirs(cgroup):
            shell = subprocess.Popen(["sh", "-c", script], stdin=subprocess.PIPE)
            try:
                base = self.moved_and_waiting(shell, cgroup)
                with h.Execd(["--interval", "0.5s", "--pid", shell.pid, "--name", "tree"]) as execd:
                    execd.wait_batches(1)
                    shell.stdin.write(b"go\n")
                    shell.stdin.flush()
                    ah.wait_file(f"{d}/done", h.START_TIMEOUT * 2, "the daemon's burn")
                    done_at = time.monotonic()
                    used = usage_usec(cgroup) - base
                    execd.wait_for(lambda e: any(when > done_at for when, _ in ah.target_points_with_time(e, "tree")),
                                   h.BATCH_TIMEOUT, "a batch after the burn")
                    execd.stop()
            finally:
                ah.write_fifo(f"{d}/bye", b"bye\n")
                shell.stdin.close()
                shell.wait(h.BATCH_TIMEOUT)
        self.assert_tree_cpu_is_the_cgroups(execd, used, BURN_SECONDS, TOLERANCE)


if __name__ == "__main__":
    unittest.main(verbosity=2)
