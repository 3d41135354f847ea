"""Launch mode on a pure cgroup v2 host that no systemd manages (a
container's entrypoint, a CI runner's job cgroup; common/launch/launchleaf.h).

cgroup v2 enables a controller for a cgroup's children only while the
cgroup holds no process (its no-internal-process rule, the root excepted),
and the command's cgroup (proctree-launch-PID) is made below proctree's own.
So:
- where proctree-execd is the only process of its cgroup, it moves to a leaf
  of its own (proctree-self-PID) and enables the controllers its cgroup is
  offered for the children: the command's line then has cgroup_memory_*,
  within 1 % of its cgroup's own memory.current and memory.peak read at a
  point where the command holds its memory still; at the end (also when its
  worker is killed) the cgroup is as it was: no leaf, no command's cgroup,
  subtree_control as before, no process;
- where another process shares its cgroup, nothing is touched, and one start
  line names the rule, what is absent for good and what gives it, and never
  promises to look again.

Needs root, cgroup v2 alone, no systemd as PID 1, a cgroup of its own that is
not the root's, and memory offered to a cgroup made beside the test's own:
the vm-no-systemd test's guest (tests/vm/run-in-vm --no-systemd) has all of
it; a hybrid host (cgroup v2 without controllers) skips.
"""

import os
import shutil
import signal
import tempfile
import unittest

import cgroup_helpers
import harness as h

MIB = 1 << 20
HOLD = 200 * MIB
# the peak and the current amount, read by the test at a stable point
TOLERANCE = 0.01


def own_v2():
    with open("/proc/self/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                return line[3:].rstrip("\n")
    return None


def read(path):
    with open(path) as f:
        return f.read()


def systemd_pid1():
    try:
        pid1 = read("/proc/1/comm").strip()
    except OSError:
        pid1 = ""
    return os.path.isdir("/run/systemd/system") and pid1 == "systemd"


def holder(ready, go):
    """python3 -c: touch HOLD bytes, say so, hold them until go exists."""
    return ["python3", "-c",
            f"import os, time\nb = b'\\x01' * {HOLD}\nopen({ready!r}, 'w').close()\n"
            f"while not os.path.exists({go!r}):\n    time.sleep(0.05)\n"]


class LaunchLeafTest(unittest.TestCase):
    def setUp(self):
        if os.getuid() != 0:
            self.skipTest("makes cgroups: root only")
        if not cgroup_helpers.pure_v2():
            self.skipTest("cgroup v2 alone is the layout (this host has v1 controllers)")
        if systemd_pid1():
            self.skipTest("systemd is PID 1: launch mode asks it for a scope (test_launch_scope.py)")
        self.v2 = cgroup_helpers.mounts()["v2"]
        self.own = own_v2()
        self.tmp = tempfile.mkdtemp(prefix="proctree-leaf-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def job_cgroup(self):
        """A cgroup beside the test's own (a job's), offered memory: its dir."""
        parent = os.path.dirname(self.own.rstrip("/")) if self.own not in ("/", "") else "/"
        d = os.path.join(self.v2 + parent, f"proctree-leaf-test-{os.getpid()}")
        os.mkdir(d)
        self.addCleanup(self.remove_job_cgroup, d)
        if "memory" not in read(os.path.join(d, "cgroup.controllers")).split():
            self.skipTest(f"{d} is offered no memory controller")
        return d

    def remove_job_cgroup(self, d):
        """What a failed run left (a leaf, a command's cgroup), then d; a
        subtree_control left with memory is emptied with d."""
        for sub in os.listdir(d):
            if os.path.isdir(os.path.join(d, sub)):
                os.rmdir(os.path.join(d, sub))
        os.rmdir(d)

    def layout(self, d):
        """What the test compares before and after: its sub-cgroups, its
        subtree_control, its processes."""
        subs = sorted(n for n in os.listdir(d) if os.path.isdir(os.path.join(d, n)))
        return subs, read(os.path.join(d, "cgroup.subtree_control")).split(), read(os.path.join(d, "cgroup.procs"))

    def execd_in(self, d, args):
        """proctree-execd started as the only process of d."""
        return h.Execd(args, wrapper=["sh", "-c", 'echo $$ > "$0" && exec "$@"', os.path.join(d, "cgroup.procs")])

    def test_alone_in_its_cgroup_the_command_gets_memory_within_one_percent(self):
        d = self.job_cgroup()
        before = self.layout(d)
        offered = read(os.path.join(d, "cgroup.controllers")).split()
        ready, go = os.path.join(self.tmp, "ready"), os.path.join(self.tmp, "go")
        with self.execd_in(d, ["--interval", "1s", "--", *holder(ready, go)]) as execd:
            h.wait_until(lambda: os.path.exists(ready), 60, f"the command's {HOLD // MIB} MiB\n{execd.describe()}")
            launch = os.path.join(d, f"proctree-launch-{execd.pid}")
            leaf = os.path.join(d, f"proctree-self-{execd.pid}")
            self.assertEqual(read(os.path.join(d, "cgroup.procs")), "", "proctree left its cgroup to the leaf")
            self.assertIn(str(execd.pid), read(os.path.join(leaf, "cgroup.procs")).split(), execd.describe())
            self.assertIn("memory", read(os.path.join(d, "cgroup.subtree_control")).split())
            self.assertIn("memory", read(os.path.join(launch, "cgroup.controllers")).split())
            # two whole intervals after the memory is held, and the files read between them
            n0 = execd.batch_count()
            execd.wait_batches(n0 + 2, 30)
            current = int(read(os.path.join(launch, "memory.current")))
            peak = int(read(os.path.join(launch, "memory.peak")))
            batches = execd.wait_batches(n0 + 4, 30)
            open(go, "w").close()
            status = execd.wait_exit(60)
        self.assertEqual(status, 0, execd.describe())
        self.assertGreater(current, HOLD)
        for _, points in batches[n0 + 1:n0 + 4]:
            line = next(p for p in points if p.tags)
            f = line.fields
            for name in ("cgroup_memory_current_min", "cgroup_memory_current_max"):
                self.assertIn(name, f, line.raw)
                self.assertLess(abs(f[name] - current), TOLERANCE * current,
                                f"{name} {f[name]} against memory.current {current}\n{line.raw}")
            self.assertIn("cgroup_memory_oom_kills", f, line.raw)
            if "pids" in offered:  # (the vm-no-systemd guest's job cgroups are offered memory alone)
                self.assertIn("cgroup_pids", f, line.raw)
            if "cgroup_memory_peak" in f:  # the interval's own (Linux >= 6.12): memory held still
                self.assertLess(abs(f["cgroup_memory_peak"] - current), TOLERANCE * current, line.raw)
            else:
                self.assertLess(abs(f["cgroup_memory_peak_lifetime"] - peak), TOLERANCE * peak,
                                f"cgroup_memory_peak_lifetime against memory.peak {peak}\n{line.raw}")
        err = execd.stderr_lines()
        self.assertEqual(len([l for l in err if "were the only ones in its cgroup" in l and "memory" in l]), 1,
                         "\n".join(err))
        said = [l for l in err if "looked for again" in l or "for good" in l or l.startswith("W!")]
        self.assertEqual(h.load_free(said), [],
                         "\n".join(err))
        self.assertEqual(self.layout(d), before, "the cgroup as it was: no leaf, subtree_control, no process")

    def test_a_killed_worker_leaves_the_cgroup_as_it_was(self):
        d = self.job_cgroup()
        before = self.layout(d)
        ready, go = os.path.join(self.tmp, "ready"), os.path.join(self.tmp, "go")
        with self.execd_in(d, ["--interval", "1s", "--", *holder(ready, go)]) as execd:
            h.wait_until(lambda: os.path.exists(ready), 60, f"the command's memory\n{execd.describe()}")
            self.assertIn("memory", read(os.path.join(d, "cgroup.subtree_control")).split())
            os.kill(execd.worker_pid(), signal.SIGKILL)
            execd.wait_exit(60)
        self.assertEqual(self.layout(d), before, f"the supervisor put it back\n{execd.describe()}")

    def test_sharing_its_cgroup_it_says_the_rule_once_and_touches_nothing(self):
        if self.own in ("/", ""):
            self.skipTest("the test runs in the root cgroup, where the rule does not hold")
        d = self.v2 + self.own
        before = self.layout(d)[:2]
        with h.Execd(["--interval", "1s", "--", "sleep", "3"]) as execd:
            status = execd.wait_exit(60)
        self.assertEqual(status, 0, execd.describe())
        err = execd.stderr_lines()
        said = [l for l in err if "no-internal-process rule" in l]
        self.assertEqual(len(said), 1, "\n".join(err))
        for words in ("for good", "holds", "other process", "cgroup_memory_*", "cgroup_pids", "cgroup_io_*",
                      "Delegate=yes", "--launch-cgroup"):
            self.assertIn(words, said[0])
        self.assertEqual([l for l in err if "looked for again" in l or "proctree-self" in l], [], "\n".join(err))
        lines = [p for _, points in execd.batches() for p in points if p.tags]
        self.assertTrue(lines, execd.describe())
        for line in lines:
            self.assertIn("cgroup_cpu_user_seconds", line.fields, line.raw)
            self.assertFalse([k for k in line.fields if k.startswith("cgroup_memory_")], line.raw)
        self.assertEqual(self.layout(d)[:2], before, "nothing of its cgroup changed")


if __name__ == "__main__":
    unittest.main()
