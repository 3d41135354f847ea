"""Launch mode's cgroup of its own: `proctree-execd -- COMMAND` runs COMMAND
in a cgroup it makes, reads it as a --cgroup target's, and removes it.

Why: a launched job's tree sums (proc_*) cannot see a memory spike between
two polls nor an OOM kill; the kernel's accounting of a cgroup that holds the
job alone can (cgroup_memory_peak_lifetime, cgroup_memory_oom_kills, exact
CPU time). So by default, as root, proctree-execd makes
proctree-launch-<its pid> below its own cgroup in cgroup v2 and in each v1
controller (this host is hybrid: memory is v1 only), the command joins them
before exec, and they are gone once the tree is. Without the right to make
one (user nobody) the run must work as before, with one line saying why and
what is lost; --no-launch-cgroup must give no cgroup_* at all; a
--launch-cgroup PATH that exists is someone else's cgroup and is refused.

On a host whose PID 1 is systemd, with cgroup v2 alone (Debian 12 and the
like), the default cgroup is instead a transient scope systemd makes,
proctree-launch-<its pid>.scope in proctree's slice, which systemd removes
(test_launch_scope.py has the details): there the memory fields must be
present and exact, as the kernel enables the controllers the scope asks for.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import cgroup_helpers
import harness as h
import telegraf_harness as th

MIB = 1 << 20
ALLOC = 100 * MIB
NOBODY = 65534  # Debian's nobody/nogroup

WORKLOAD = h.peak_then_burn(ALLOC, 2.0)


def mounts():
    """The cgroup2 mount and the v1 memory controller's mount ("" if none)."""
    m = h.cgroup_mounts()
    return m.get("v2", ""), m.get("memory", "")


def systemd_unified(memory_mount):
    """PID 1 is systemd (sd_booted's test, and its comm) and no v1 memory
    controller is mounted: launch mode asks systemd for a scope."""
    try:
        with open("/proc/1/comm") as f:
            pid1 = f.read().strip()
    except OSError:
        pid1 = ""
    return os.path.isdir("/run/systemd/system") and pid1 == "systemd" and not memory_mount


def cgroups_of(pid):
    """{"": v2 path, "memory": v1 memory path, ...} from /proc/PID/cgroup."""
    paths = {}
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for c in controllers.split(",") if controllers else [""]:
                paths[c] = path
    return paths


class LaunchCgroupTest(unittest.TestCase):
    def setUp(self):
        if os.getuid() != 0:
            self.skipTest("proctree-execd must run as root to make cgroups")
        self.v2, self.memory = mounts()
        if not self.v2 or not os.access(self.v2, os.W_OK):
            self.skipTest("no writable cgroup2 mount")
        self.scope = systemd_unified(self.memory)
        self.tmp = tempfile.mkdtemp(prefix="proctree-launchcg-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        os.chmod(self.tmp, 0o755)

    def assert_removed(self, made, execd, when):
        """Each directory is gone: at once when proctree made it; systemd
        removes its scope once it is empty, soon after proctree exits."""
        for d in made:
            if self.scope:
                h.wait_until(lambda: not os.path.exists(d), 10, f"systemd to remove {d}\n{execd.describe()}")
            self.assertFalse(os.path.exists(d), f"{d} is removed {when}\n{execd.describe()}")

    def dirs(self, paths):
        """The command's cgroup directories in v2 and v1 memory."""
        found = [self.v2 + paths[""]]
        if self.memory:
            found.append(self.memory + paths["memory"])
        return found

    def held_command(self):
        """sh that writes its pid, waits for the test's go, then runs WORKLOAD."""
        pidfile, go = os.path.join(self.tmp, "pid"), os.path.join(self.tmp, "go")
        script = (f"echo $$ > {pidfile}; while [ ! -e {go} ]; do sleep 0.02; done; "
                  f"exec python3 -c '{WORKLOAD}'")
        return pidfile, go, ["sh", "-c", script]

    def test_default_cgroup_is_made_read_and_removed(self):
        pidfile, go, command = self.held_command()
        with h.Execd(["--interval", "1s", "--", *command]) as execd:
            h.wait_until(lambda: os.path.exists(pidfile) and os.path.getsize(pidfile) > 0, 10, "the command's pid")
            with open(pidfile) as f:
                child = int(f.read())
            paths = cgroups_of(child)
            name = f"proctree-launch-{execd.pid}"
            own = cgroups_of(execd.pid)
            if self.scope:
                slices = own[""].split("/")[1:]
                slices = slices[:next((i for i, c in enumerate(slices) if not c.endswith(".slice")), len(slices))]
                self.assertEqual(paths[""], "/" + "/".join(slices or ["system.slice"]) + f"/{name}.scope",
                                 "v2: systemd's transient scope, in proctree's slice")
            else:
                self.assertEqual(paths[""], own[""].rstrip("/") + "/" + name, "v2: below proctree's own cgroup")
            if self.memory:
                self.assertEqual(paths["memory"], own["memory"].rstrip("/") + "/" + name,
                                 "v1 memory: below proctree's own memory cgroup, whose limits still apply")
            made = self.dirs(paths)
            for d in made:
                self.assertTrue(os.path.isdir(d), f"{d} exists during the run")
            # where its parent holds processes (proctree's and others', no
            # systemd: a CI runner's cgroup), v2 gives it no memory controller
            with open(os.path.join(made[0], "cgroup.controllers")) as f:
                command_memory = "memory" in f.read().split()
            open(go, "w").close()
            status = execd.wait_exit(30)
        self.assertEqual(status, 0, execd.describe())
        self.assert_removed(made, execd, "once the tree is gone")
        lines = [p for _, points in execd.batches() for p in points if p.tags]
        self.assertGreaterEqual(len(lines), 2, execd.describe())
        for line in lines:
            self.assertIn("cgroup_cpu_user_seconds", line.fields, line.raw)
        # the same CPU time: the cgroup's exact, the tree's in clock ticks
        for kinds in (["user"], ["user", "system"]):
            tree = sum(line.fields[f"proc_cpu_{k}_seconds"] for line in lines for k in kinds)
            cgroup = sum(line.fields[f"cgroup_cpu_{k}_seconds"] for line in lines for k in kinds)
            self.assertGreater(tree, 1.8, execd.describe())
            self.assertLess(abs(cgroup - tree), max(0.04 * tree, 0.05),
                            f"{kinds}: cgroup {cgroup:.3f}s, tree {tree:.3f}s\n{execd.describe()}")
        with open(os.path.join(self.v2, "cgroup.controllers")) as f:
            v2_memory = "memory" in f.read().split()
        if self.scope and v2_memory:  # the scope's MemoryAccounting=yes: systemd enables memory above it
            for line in lines:
                self.assertIn("cgroup_memory_current_max", line.fields, line.raw)
                self.assertIn("cgroup_memory_oom_kills", line.fields, line.raw)
        if self.memory or (v2_memory and command_memory):  # a memory controller there is
            peak = max(line.fields.get("cgroup_memory_peak_lifetime", 0) for line in lines)
            self.assertGreaterEqual(peak, ALLOC, f"the freed {ALLOC // MIB} MiB are in the peak\n{execd.describe()}")
        said = [l for l in execd.stderr_lines() if "no cgroup of its own" in l]
        self.assertEqual(said, [], "made, so nothing to say")

    def test_stopped_tree_leaves_no_cgroup(self):
        pidfile = os.path.join(self.tmp, "pid")
        with h.Execd(["--interval", "0.3s", "--", "sh", "-c", f"echo $$ > {pidfile}; sleep 100"]) as execd:
            h.wait_until(lambda: os.path.exists(pidfile) and os.path.getsize(pidfile) > 0, 10, "the command's pid")
            with open(pidfile) as f:
                made = self.dirs(cgroups_of(int(f.read())))
            execd.wait_batches(1)
            execd.signal(signal.SIGTERM)
            status = execd.wait_exit(10)
        # the command's status as reaped: our SIGTERM ended its sh
        self.assertEqual(status, 128 + signal.SIGTERM, execd.describe())
        self.assert_removed(made, execd, "after the stop")

    def test_killed_proctree_ends_the_command_and_its_cgroup(self):
        """kill -KILL of proctree-execd (what Telegraf does to one that does
        not stop in time) or of its worker (an OOM kill): the launched tree
        is gone at once (its sleeps last 300 s: only the kill ends them) and
        its cgroups with it, so that a restart never runs a second copy of
        the job. "At once" is a signal's delivery and a few system calls,
        which the kernel does not time: on an idle host well under a
        second, in CI's emulated VM beside other tests 1.56 s once; the
        test allows 5 s, far from anything but the kill."""
        for victim in ("supervisor", "worker"):
            with self.subTest(victim=victim):
                pidfile = os.path.join(self.tmp, f"pid-{victim}")
                command = f"echo $$ > {pidfile}; sleep 300 & sleep 300"
                with h.Execd(["--interval", "0.3s", "--", "sh", "-c", command]) as execd:
                    h.wait_until(lambda: os.path.exists(pidfile) and os.path.getsize(pidfile) > 0, 10,
                                 "the command's pid")
                    with open(pidfile) as f:
                        root = int(f.read())
                    made = self.dirs(cgroups_of(root))
                    tree = h.wait_until(lambda: len(h.descendants_and_self(root)) == 3 and h.descendants_and_self(root),
                                        10, "sh and its two sleeps")
                    pid = execd.pid if victim == "supervisor" else execd.worker_pid()
                    killed = time.monotonic()
                    os.kill(pid, signal.SIGKILL)
                    h.wait_until(lambda: not any(th.process_alive(p) for p in tree), 10, "the tree to end")
                    took = time.monotonic() - killed
                    h.wait_until(lambda: not any(os.path.exists(d) for d in made), 10,
                                 "the cgroups to be removed\n" + execd.describe())
                self.assertLess(took, 5.0, execd.describe())
                lines = [l for l in execd.stderr_lines() if "SIGKILL" in l]
                self.assertEqual(len(lines), 1, execd.describe())
                self.assertIn("the process Telegraf started" if victim == "supervisor" else "was killed by signal 9",
                              lines[0])

    def test_sub_cgroups_of_the_command_are_removed_with_it(self):
        """A job that makes cgroups of its own in its cgroup (a/b/c, and a
        sibling, in v2 and in v1 memory) and moves into the deepest: all of
        them go at the end, depth first, without a warning (before, the made
        cgroup stayed with 'Device or resource busy', which said nothing of
        the sub-cgroups)."""
        pidfile = os.path.join(self.tmp, "pid")
        made_by_job = []
        with h.Execd(["--interval", "0.3s", "--", "sh", "-c",
                      f"echo $$ > {pidfile}; while [ ! -e {pidfile}.go ]; do sleep 0.02; done; sleep 0.3"]) as execd:
            h.wait_until(lambda: os.path.exists(pidfile) and os.path.getsize(pidfile) > 0, 10, "the command's pid")
            with open(pidfile) as f:
                child = int(f.read())
            made = self.dirs(cgroups_of(child))
            for d in made:  # as the job would: it runs as root in them
                os.makedirs(os.path.join(d, "a", "b", "c"))
                os.mkdir(os.path.join(d, "sibling"))
                made_by_job.append(os.path.join(d, "a", "b", "c"))
                with open(os.path.join(d, "a", "b", "c", "cgroup.procs"), "w") as f:
                    f.write(str(child))
            open(pidfile + ".go", "w").close()
            status = execd.wait_exit(15)
        self.assertEqual(status, 0, execd.describe())
        self.assert_removed(made, execd, "with what the job made in it")
        self.assertFalse(h.load_free([l for l in execd.stderr_lines() if l.startswith(("E! ", "W! "))]),
                         execd.describe())

    def test_a_sub_cgroup_that_cannot_be_removed_is_named_with_why(self):
        """A process that left the launched tree (here: the test's own) in a
        sub-cgroup the job made, under a name with a tab: that sub-cgroup
        stays, and so does the made one; the warning names the sub-cgroup,
        escaped, and why."""
        if self.scope:
            self.skipTest("the command's cgroup is systemd's scope: systemd removes it, and what is below it")
        pidfile = os.path.join(self.tmp, "pid")
        stray = None
        try:
            with h.Execd(["--interval", "0.3s", "--", "sh", "-c",
                          f"echo $$ > {pidfile}; while [ ! -e {pidfile}.go ]; do sleep 0.02; done"]) as execd:
                h.wait_until(lambda: os.path.exists(pidfile) and os.path.getsize(pidfile) > 0, 10, "the command's pid")
                with open(pidfile) as f:
                    made = self.v2 + cgroups_of(int(f.read()))[""]
                busy = os.path.join(made, "job", "tab\tname")
                os.makedirs(busy)
                stray = subprocess.Popen(["sleep", "300"])
                with open(os.path.join(busy, "cgroup.procs"), "w") as f:
                    f.write(str(stray.pid))
                open(pidfile + ".go", "w").close()
                status = execd.wait_exit(15)
            self.assertEqual(status, 0, execd.describe())
            warned = [l for l in execd.stderr_lines() if l.startswith("W! ") and made in l]
            self.assertEqual(len(warned), 1, execd.describe())
            self.assertIn(f'its sub-cgroup "{made}/job/tab\\tname" (made by the command) stays', warned[0])
            self.assertIn("a process that left the launched tree is still in it", warned[0])
            self.assertTrue(os.path.isdir(busy), "not removed while a process is in it")
        finally:
            if stray:
                stray.kill()
                stray.wait()
            for d in ("job/tab\tname", "job", ""):
                path = os.path.join(made, d) if d else made
                with contextlib.suppress(FileNotFoundError):
                    h.wait_until(lambda: (os.rmdir(path), True)[1], 5, f"rmdir {path}")

    def test_sub_cgroups_past_the_depth_bound_are_said(self):
        """33 levels of sub-cgroups below the made one: the walk stops at 32
        (a bound, as anyone may nest cgroups), leaves them, and says which
        one is too deep."""
        if self.scope:
            self.skipTest("the command's cgroup is systemd's scope: systemd removes it, and what is below it")
        pidfile = os.path.join(self.tmp, "pid")
        with h.Execd(["--interval", "0.3s", "--", "sh", "-c",
                      f"echo $$ > {pidfile}; while [ ! -e {pidfile}.go ]; do sleep 0.02; done"]) as execd:
            h.wait_until(lambda: os.path.exists(pidfile) and os.path.getsize(pidfile) > 0, 10, "the command's pid")
            with open(pidfile) as f:
                made = self.v2 + cgroups_of(int(f.read()))[""]
            deep = os.path.join(made, *["d"] * 33)
            self.addCleanup(cgroup_helpers.rmdirs, made, deep)
            os.makedirs(deep)
            open(pidfile + ".go", "w").close()
            status = execd.wait_exit(15)
        self.assertEqual(status, 0, execd.describe())
        warned = [l for l in execd.stderr_lines() if l.startswith("W! ") and made in l]
        self.assertEqual(len(warned), 1, execd.describe())
        self.assertIn(f'its sub-cgroup "{made}{"/d" * 33}" (made by the command) is more than 32 levels down',
                      warned[0])

    def test_no_launch_cgroup_gives_no_cgroup_fields(self):
        out = os.path.join(self.tmp, "cgroup")
        with h.Execd(["--interval", "0.3s", "--no-launch-cgroup", "--", "sh", "-c",
                      f"cat /proc/self/cgroup > {out}; sleep 0.7"]) as execd:
            status = execd.wait_exit(10)
        own = cgroups_of("self")  # proctree-execd's, which it inherited
        self.assertEqual(status, 0, execd.describe())
        with open(out) as f:
            self.assertIn(f"0::{own['']}\n", f.read(), "the command stays in proctree's cgroup")
        lines = [p for _, points in execd.batches() for p in points if p.tags]
        self.assertGreaterEqual(len(lines), 2, execd.describe())
        for line in lines:
            self.assertFalse([k for k in line.fields if k.startswith("cgroup_")], line.raw)

    def test_launch_cgroup_path_is_made_there_and_an_existing_one_refused(self):
        parent = f"proctree-test-{os.getpid()}"
        parents = [os.path.join(self.v2, parent)] + ([os.path.join(self.memory, parent)] if self.memory else [])
        for d in parents:
            os.mkdir(d)
            self.addCleanup(os.rmdir, d)
        out = os.path.join(self.tmp, "cgroup")
        with h.Execd(["--interval", "0.3s", "--launch-cgroup", f"{parent}/job", "--", "sh", "-c",
                      f"cat /proc/self/cgroup > {out}; sleep 0.5"]) as execd:
            status = execd.wait_exit(10)
        self.assertEqual(status, 0, execd.describe())
        with open(out) as f:
            shown = f.read()
        self.assertIn(f"0::/{parent}/job\n", shown)
        if self.memory:
            self.assertIn(f":memory:/{parent}/job\n", shown, "the same path in the v1 memory controller")
        for d in parents:
            self.assertFalse(os.path.exists(os.path.join(d, "job")), "made, so removed")
            self.assertTrue(os.path.isdir(d), "the parent is not ours to remove")
        lines = [p for _, points in execd.batches() for p in points if p.tags]
        self.assertTrue(lines and all("cgroup_cpu_user_seconds" in l.fields for l in lines), execd.describe())

        # someone's cgroup: refused, the command never runs, the cgroup stays
        ran = os.path.join(self.tmp, "ran")
        with h.Execd(["--interval", "0.3s", "--launch-cgroup", f"/{parent}", "--", "touch", ran]) as execd:
            status = execd.wait_exit(10)
        self.assertEqual(status, 2, execd.describe())
        errors = [l for l in execd.stderr_lines() if l.startswith("E! ")]
        self.assertEqual(len(errors), 1, execd.describe())
        self.assertIn("--launch-cgroup", errors[0])
        self.assertIn("exists already", errors[0])
        self.assertFalse(os.path.exists(ran), "the command must not run elsewhere")
        self.assertTrue(os.path.isdir(parents[0]))

    def test_as_nobody_the_run_works_without_and_says_why(self):
        program = shutil.copy(h.execd_path(), self.tmp)  # the build tree may be closed to nobody
        os.chmod(program, 0o755)
        wrapper = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        start = time.monotonic()
        with h.Execd(["--interval", "0.3s", "--", "sh", "-c", "sleep 1; exit 4"], wrapper=wrapper,
                     program=program) as execd:
            status = execd.wait_exit(15)
        self.assertEqual(status, 4, "the command's status, as before\n" + execd.describe())
        self.assertGreater(time.monotonic() - start, 0.9)
        said = [l for l in execd.stderr_lines() if "no cgroup of its own" in l]
        self.assertEqual(len(said), 1, execd.describe())
        self.assertTrue(said[0].startswith("I! "), said[0])
        # on a systemd host: no manager moves it for nobody, and proctree's
        # cgroup is not delegated; elsewhere the cgroup cannot be made
        whys = ("no scope of its own", "not delegated") if self.scope else ("Permission denied", "memory peak")
        for why in (*whys, "OOM kills", "stalls"):
            self.assertIn(why, said[0])
        # not even "no live process" once the command has exited (said at the
        # end of some runs without exit records, before 4cd1de9)
        self.assertFalse(h.load_free([l for l in execd.stderr_lines() if l.startswith(("E! ", "W! "))]),
                         execd.describe())
        lines = [p for _, points in execd.batches() for p in points if p.tags]
        self.assertGreaterEqual(len(lines), 2, execd.describe())
        self.assertTrue(any(l.fields["proc_processes"] >= 1 for l in lines), execd.describe())
        for line in lines:
            self.assertFalse([k for k in line.fields if k.startswith("cgroup_")], line.raw)


if __name__ == "__main__":
    unittest.main()
