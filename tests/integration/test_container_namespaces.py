"""proctree-execd in a real container, in and out of the host's namespaces.

Why: in its own pid namespace proctree took what that namespace's /proc
showed of it for the host's view: it listened for process events, which
another listener on the host makes arrive with host pids, and waited for an
answer that never came; --cgroup said "has no process" beside cgroup_pids=6;
a proc root of another namespace was taken for its own; a pid file mounted as
a single file never followed a restart, without a word; and the lines blamed
the network namespace where the pid namespace was the reason.

Each test runs the document's image (container_harness.py) with the
document's docker run flags, less what the case leaves out, and
proctree-execd through the image's entrypoint (as the telegraf user, with
the binary's file capabilities), on a service on the host, and compares the
numbers with the host's own files: the members' resident memory (statm,
within 2%: an idle tree), their count, their descriptors (exactly).
"""

import os
import subprocess
import unittest

import container_harness as ch
import harness as h
import telegraf_harness as th

RSS_TOLERANCE = 0.02


def lines_of(execd, target):
    return [p for _, points in execd.batches() for p in points if p.tags.get("target") == target]


def last(execd, target):
    found = lines_of(execd, target)
    return found[-1] if found else None


def field(execd, target, name):
    line = last(execd, target)
    return line.fields.get(name) if line else None


def said(execd, level, *words):
    return [line for line in execd.stderr_lines() if line.startswith(level) and all(w in line for w in words)]


class Namespaces(ch.ContainerTestCase):
    def setUp(self):
        self.service = ch.Service()
        self.addCleanup(self.service.stop)

    def restart(self):
        self.service = self.service.restarted()
        self.addCleanup(self.service.stop)

    def follows_service(self, execd, target="svc"):
        """Wait for the service whole; compare with the host's files."""
        def whole(e):
            line = last(e, target)
            return line is not None and line.fields.get("proc_processes") == 2
        execd.wait_for(whole, h.START_TIMEOUT, "the service's two processes")
        execd.wait_batches(execd.batch_count() + 2)
        line = last(execd, target)
        members = self.service.members()
        resident = h.tree_resident_bytes(members)
        msg = execd.describe()
        self.assertEqual(line.fields["proc_processes"], 2, msg)
        self.assertLessEqual(abs(line.fields["proc_rss_max"] - resident), RSS_TOLERANCE * resident, msg)
        self.assertEqual(line.fields["proc_fds"], ch.fd_count(members), msg)
        return line, msg

    def test_host_pid_and_network_namespaces_follow_events(self):
        execd = self.execd(self.flags, "--pidfile", self.service.in_container(), "--name", "svc")
        _, msg = self.follows_service(execd)
        self.service.command("fates", "done fates")
        execd.wait_batches(execd.batch_count() + 2)
        lines = lines_of(execd, "svc")
        # every fork is an event here: the three short children are counted
        self.assertEqual(sum(p.fields["proc_processes_started"] for p in lines), 3, execd.describe())
        self.assertEqual(sum(p.fields["proc_processes_killed"] for p in lines), 1, execd.describe())
        self.assertTrue(said(execd, "I! ", "following the kernel's process events"), msg)
        self.assertFalse(h.load_free(said(execd, "W! ")), msg)

    def test_host_pid_namespace_without_the_network_one(self):
        flags = ch.without(self.flags, "--network=host") + ["--network=none"]
        execd = self.execd(flags, "--pidfile", self.service.in_container(), "--name", "svc")
        _, msg = self.follows_service(execd)
        self.assertTrue(said(execd, "I! ", "no process events", "given only in the host's network namespace",
                             "--network=host"), msg)
        self.assertFalse(said(execd, "I! ", "no process events", "pid namespace"), msg)

    def test_own_pid_namespace_with_the_hosts_proc(self):
        """HOST_PROC: the host's pids, the same numbers, no events, and the
        pid namespace (not the network) named as the reason."""
        flags = ch.without(self.flags, "--pid=host", "--network=host") + ["--network=none"]
        execd = self.execd(flags, "--pidfile", self.service.in_container(), "--name", "svc")
        _, msg = self.follows_service(execd)
        self.assertTrue(said(execd, "I! ", "is another pid namespace's", "taken as the proc root's"), msg)
        self.assertTrue(said(execd, "I! ", "no process events", "host's pid and network namespaces",
                             "this process runs in another pid namespace"), msg)
        self.assertFalse(h.load_free(said(execd, "W! ")), msg)

    def test_own_pid_namespace_and_its_own_proc(self):
        """No HOST_PROC: a host pid names nothing (the line says what to do);
        the container's own command is measured."""
        flags = ch.without(self.flags, "--pid=host", "--network=host", ("-e", "HOST_PROC"),
                           ("-v", "/proc")) + ["--network=none"]
        seconds = f"300.{os.getpid()}"  # finds the launched sleep among the host's processes
        execd = self.execd(flags, "--name", "job", "--pid", self.service.root, "--name", "host", "--", "sleep",
                           seconds)
        execd.wait_for(lambda e: said(e, "W! ", 'target "host"', "no live process", "not the host's", "HOST_PROC"),
                       h.START_TIMEOUT, "the hint about host pids")
        execd.wait_for(lambda e: field(e, "job", "proc_processes") == 1, h.START_TIMEOUT, "the launched sleep")
        sleep, = [p for p in th.pids_with_cmdline(seconds) if h.read_text(f"/proc/{p}/comm").strip() == "sleep"]
        execd.wait_batches(execd.batch_count() + 2)
        line, resident = last(execd, "job"), h.tree_resident_bytes([sleep])
        msg = execd.describe()
        self.assertTrue(said(execd, "I! ", "no process events", "host's pid and network namespaces"), msg)
        self.assertLessEqual(abs(line.fields["proc_rss_max"] - resident), RSS_TOLERANCE * resident, msg)

    def test_pidfile_by_its_directory_follows_a_restart(self):
        execd = self.execd(self.flags, "--pidfile", self.service.in_container(), "--name", "svc")
        self.follows_service(execd)
        old = self.service.root
        self.restart()
        # said as the old tree leaves (one of its processes was still there)
        # or as the target comes back (none was)
        execd.wait_for(lambda e: said(e, "I! ", f"pid file names pid {self.service.root} now") or
                       said(e, "I! ", f"following pid {self.service.root}"), h.START_TIMEOUT, "the restart")
        _, msg = self.follows_service(execd)
        self.assertNotEqual(self.service.root, old)
        self.assertFalse(said(execd, "W! ", "mount of its own"), msg)

    def test_pidfile_mounted_alone_is_warned(self):
        flags = self.flags + ["-v", f"{self.service.pidfile}:/hostfs/service.pid:ro"]
        execd = self.execd(flags, "--pidfile", "/hostfs/service.pid", "--name", "svc")
        _, msg = self.follows_service(execd)
        warned = said(execd, "W! ", 'pid file "/hostfs/service.pid" is a mount of its own', "mount the directory")
        self.assertEqual(len(warned), 1, msg)
        # and what it warns of: the restart's new file is never seen
        old = self.service.root
        self.restart()
        execd.wait_for(lambda e: said(e, "W! ", "no live process", f"pid {old}"), h.START_TIMEOUT,
                       "the old root to be gone")
        execd.wait_batches(execd.batch_count() + 2)
        self.assertEqual(field(execd, "svc", "proc_processes"), 0, execd.describe())
        self.assertFalse(said(execd, "I! ", f"following pid {self.service.root}"), execd.describe())


class CgroupsElsewhere(ch.ContainerTestCase):
    """--cgroup where the pid namespace cannot name the cgroup's processes."""

    def setUp(self):
        mounts = h.cgroup_mounts()
        self.v2 = mounts["v2"]
        self.name = f"proctree-ct-{os.getpid()}"
        self.cgroup = os.path.join(self.v2, self.name)
        os.mkdir(self.cgroup)
        self.addCleanup(os.rmdir, self.cgroup)
        self.sleeper = subprocess.Popen(["sh", "-c", f'echo $$ > {self.cgroup}/cgroup.procs && exec sleep 300'])
        self.addCleanup(lambda: self.sleeper.wait(10))
        self.addCleanup(self.sleeper.kill)
        h.wait_until(lambda: h.read_text(f"{self.cgroup}/cgroup.procs").split() == [str(self.sleeper.pid)],
                     h.START_TIMEOUT, "the sleeper in its cgroup")

    def test_own_pid_namespace_names_none_and_says_why(self):
        flags = ch.without(self.flags, "--pid=host", "--network=host") + ["--network=none"]
        execd = self.execd(flags, "--cgroup", "/" + self.name, "--name", "cg")
        execd.wait_for(lambda e: said(e, "W! ", f'/{self.name}" has 1 process, none of which this process can name',
                                      "the proc root is another pid namespace's", "--pid=host"),
                       h.START_TIMEOUT, "the line about the cgroup's processes")
        execd.wait_batches(execd.batch_count() + 2)
        line = last(execd, "cg")
        msg = execd.describe()
        self.assertEqual(line.fields["proc_processes"], 0, msg)  # never a process of another's pid
        self.assertIn("cgroup_cpu_user_seconds", line.fields, msg)  # the kernel's own, through HOST_SYS

    def test_without_the_hosts_sys_the_line_says_to_mount_it(self):
        flags = ch.without(self.flags, ("-e", "HOST_SYS"), ("-v", "/sys"))
        execd = self.execd(flags, "--cgroup", "/" + self.name, "--name", "cg")
        execd.wait_for(lambda e: said(e, "W! ", "does not exist here", "runs in a container", "HOST_SYS"),
                       h.START_TIMEOUT, "the hint about the host's /sys")

    def test_a_containers_proc_as_the_proc_root(self):
        """On the host, --proc-root of a container (another pid namespace,
        which does not hold proctree): said, and the cgroup's host pids are
        never looked up there."""
        name = ch.unique("proctree-ct-proc")
        container = subprocess.Popen(["podman", "run", "--rm", "--name", name, "--network=none", "--entrypoint",
                                      "sleep", self.image, "300"], env=ch.env(), stdout=subprocess.DEVNULL)
        self.addCleanup(lambda: (ch.podman("kill", name, check=False), container.wait(30)))
        pid = h.wait_until(lambda: ch.podman("inspect", "--format", "{{.State.Pid}}", name, check=False).stdout.strip()
                           not in ("", "0") and int(ch.podman("inspect", "--format", "{{.State.Pid}}", name).stdout),
                           h.START_TIMEOUT, "the container's pid")
        root = f"/proc/{pid}/root/proc"
        with h.Execd(["--interval", "0.5s", "--no-global", "--proc-root", root, "--cgroup", self.cgroup, "--name",
                      "cg"]) as execd:
            execd.wait_for(lambda e: said(e, "W! ", "none of which", "the proc root is another pid namespace's"),
                           h.START_TIMEOUT, "the line about the cgroup's processes")
            execd.wait_batches(execd.batch_count() + 2)
            line = last(execd, "cg")
        msg = execd.describe()
        self.assertTrue(said(execd, "I! ", "a pid namespace that does not hold this process"), msg)
        self.assertEqual(line.fields["proc_processes"], 0, msg)
        self.assertIn("cgroup_cpu_user_seconds", line.fields, msg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
