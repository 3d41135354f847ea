"""Launch mode in a real container stays within the container's limits.

Why: as root in a container with a private cgroup namespace (the default of
Docker and containerd on cgroup v2) and a memory limit, the launched
command's cgroups were made at the host's hierarchy roots: proctree read its
own cgroup through the host's /proc (HOST_PROC), which shows it as its cgroup
namespace does ("/"), and made the cgroup through the host's /sys (HOST_SYS),
whose cgroup mounts show the host's hierarchies from their roots and stay
writable when /sys is mounted :ro. The command escaped the container's limit.

The container here is the document's image run as root (no entrypoint),
with the document's mounts and variables, its own pid, network and cgroup
namespaces and a memory limit, and proctree-execd launching a command that
allocates without end: it is OOM-killed inside the container (the
container's own cgroup on the host counts the kill), in the container's
cgroup where its cgroup filesystem is read-only (said at start), in a
cgroup below the container's, in the host's hierarchy, where it is writable
(privileged), and no proctree-launch-* cgroup is made anywhere else.
"""

import glob
import os
import unittest

import container_harness as ch
import harness as h

LIMIT_MIB = 192
GROW = "tail /dev/zero"  # keeps what it reads: grows until killed


def memory_mount():
    return h.cgroup_mounts().get("memory")


# The container's proctree-execd is its pid 1, and a launch cgroup is named
# after its maker's pid as it sees it (common/launch/launchcg.c): one it made at a
# hierarchy's root is this. Others there are named by the pid of a
# proctree-execd on the host: a test run before this one (this one runs
# alone) whose cgroup is not removed yet, or another run on a shared host.
CONTAINERS_LAUNCH_CGROUP = "proctree-launch-1"


def launch_cgroups_at_roots():
    """The container's launch cgroup at the top of any hierarchy of the host."""
    return [d for d in (os.path.join(mount, CONTAINERS_LAUNCH_CGROUP) for mount in set(h.cgroup_mounts().values()))
            if os.path.isdir(d)]


def v1_value(path, key):
    with open(path) as f:
        return next(int(line.split()[1]) for line in f if line.split()[0] == key)


class ContainerLaunch(ch.ContainerTestCase):
    # root in the container (no entrypoint), in its own namespaces, limited
    RUN_AS = ["--network=none", "--cgroupns=private", "--memory", f"{LIMIT_MIB}m", "--memory-swap", f"{LIMIT_MIB}m",
              "--user", "0", "--entrypoint", ""]

    def setUp(self):
        if not memory_mount():
            self.skipTest("no v1 memory controller on this host")  # the pure v2 VM has its own suite
        self.assertEqual(launch_cgroups_at_roots(), [], "left by something else before the test")

    def launch(self, extra, script):
        """proctree-execd in the container, per request (it stays after the
        command has ended, until stdin closes), launching sh -c script."""
        name = ch.unique("proctree-launch")
        flags = ch.without(self.flags, "--pid=host", "--network=host") + self.RUN_AS + extra
        execd = h.Execd(["--no-global", "--name", "job", "--", "sh", "-c", script],
                        wrapper=ch.in_container(flags, self.image, name), program=ch.EXECD, env=ch.env())
        self.addCleanup(execd.stop)
        supervisor = h.wait_until(lambda: int(ch.podman("inspect", "--format", "{{.State.Pid}}", name,
                                                        check=False).stdout.strip() or 0), h.START_TIMEOUT,
                                  "the container's first process")
        return execd, supervisor

    def oom_killed(self, execd):
        # the command killed (exec'd into tail), or its shell's status for its killed child
        killed = ("killed by signal 9", "exited with status 137")
        execd.wait_for(lambda e: [l for l in e.stderr_lines() if any(k in l for k in killed)], h.START_TIMEOUT,
                       "the command's OOM kill")
        execd.send()
        execd.wait_batches(1)
        return [p for _, points in execd.batches() for p in points if p.tags.get("target") == "job"]

    def test_read_only_cgroups_keep_the_command_in_the_containers(self):
        execd, supervisor = self.launch([], GROW)
        lines = self.oom_killed(execd)
        msg = execd.describe()
        container = ch.cgroup_of(supervisor)
        memory = os.path.join(memory_mount(), container.lstrip("/"))
        # the container's limit did it, and counted it
        self.assertGreaterEqual(v1_value(os.path.join(memory, "memory.oom_control"), "oom_kill"), 1, msg)
        # Its anonymous memory is charged to the container's cgroup, which
        # the kernel keeps under the limit; its RSS also holds the pages of
        # files (tail, libc) charged to whoever read them first, and was
        # seen 1.4 MB over the limit.
        self.assertLessEqual(max(p.fields["proc_anon_max"] for p in lines), LIMIT_MIB * h.MIB, msg)
        said = [l for l in execd.stderr_lines() if "no cgroup of its own" in l]
        self.assertEqual(len(said), 1, msg)
        self.assertIn("Read-only file system", said[0], msg)
        self.assertEqual(launch_cgroups_at_roots(), [], msg)
        self.assertEqual(glob.glob(os.path.join(memory, "proctree-launch-*")), [], msg)

    def test_writable_cgroups_put_the_command_below_the_containers(self):
        execd, supervisor = self.launch(["--privileged"], f"sleep 2; exec {GROW}")
        worker = h.wait_until(lambda: h.children(supervisor), h.START_TIMEOUT, "the worker")[0]
        command = h.wait_until(lambda: h.children(worker), h.START_TIMEOUT, "the command")[0]
        container = ch.cgroup_of(supervisor)
        # it joins its cgroup between fork and exec
        made = h.wait_until(lambda: (ch.cgroup_of(command) or "").rsplit("/", 1)[-1].startswith("proctree-launch-")
                            and ch.cgroup_of(command), h.START_TIMEOUT, "the command in a cgroup of its own")
        lines = self.oom_killed(execd)
        msg = execd.describe()
        self.assertEqual(made, f"{container.rstrip('/')}/{CONTAINERS_LAUNCH_CGROUP}", msg)
        self.assertGreaterEqual(sum(p.fields["cgroup_memory_oom_kills"] for p in lines), 1, msg)
        self.assertFalse([l for l in execd.stderr_lines() if "no cgroup of its own" in l], msg)
        self.assertEqual(launch_cgroups_at_roots(), [], msg)
        # (it is removed when proctree-execd ends, after the interval that
        # reads it last: execd-launch-cgroup checks that on the host)


if __name__ == "__main__":
    unittest.main(verbosity=2)
