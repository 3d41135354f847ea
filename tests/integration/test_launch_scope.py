"""Launch mode on a systemd host: the command's cgroup is a transient scope
systemd makes, or, when systemd gives none, what its rules allow.

Why: on a systemd host cgroups are systemd's. A cgroup proctree made below
its own (session-1.scope/proctree-launch-PID, or its unit's) breaks
systemd's rules unless the unit is delegated, and even then holds no
memory, io nor pids files: the kernel enables no controller below a cgroup
that holds processes (cgroup v2's no-internal-process rule), so on a pure v2
Debian 12 no cgroup_memory_* field was ever there. A scope asked of systemd
(StartTransientUnit, *Accounting=yes) gets them, in proctree's slice, and
systemd removes it once it is empty.

Each test boots Debian's systemd in namespaces of its own
(systemd_harness.py) and runs proctree-execd inside it, in a scope of its
own as a login session's shell would be (systemd-run --scope), so that its
systemd may move the command. What is asserted is what the kernel and
systemd say: /proc/PID/cgroup of the command, the unit's properties, the
cgroup's xattrs and cgroup.controllers, the directory gone at the end.
"""

import contextlib
import os
import shutil
import signal
import unittest

import harness as h
import systemd_harness as sh

SPACE = "/run/proctree-scope"   # inside: its tmpfs /run
NOBODY = 65534
MIB = 1 << 20
ALLOC = 100 * MIB

WORKLOAD = h.peak_then_burn(ALLOC, 1.0)


def nspid(host_pid):
    """The pid a host process has in the innermost pid namespace (NSpid's last)."""
    with open(f"/proc/{host_pid}/status") as f:
        for line in f:
            if line.startswith("NSpid:"):
                return int(line.split()[-1])
    raise AssertionError(f"no NSpid for {host_pid}")


def tagged(execd):
    return [p for _, points in execd.batches() for p in points if p.tags]


class LaunchScopeTest(unittest.TestCase):
    def setUp(self):
        self.sd = sh.Systemd().boot()
        self.addCleanup(self.sd.stop)
        os.makedirs(self.sd.root_path(SPACE))
        os.chmod(self.sd.root_path(SPACE), 0o1777)
        # an entry cgroup in its tree (not a unit's): nsenter is put there
        self.entry = "/proctree-entry"
        os.mkdir(self.sd.cgroup_dir(self.entry))

    def run_execd(self, args, scope, properties=(), before=(), program=None):
        inside = ["systemd-run", "--scope", "--quiet", f"--unit={scope}", *[f"--property={p}" for p in properties],
                  "--", *before]
        execd = self.sd.execd(args, inside=inside, cgroup=self.entry, program=program)
        self.addCleanup(execd.stop)
        execd.nspid = nspid(execd.inner_pid)  # the supervisor's, which names what it makes
        return execd

    @staticmethod
    def resume(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)

    def command_cgroup(self, name):
        """The v2 line the command wrote of its own /proc/self/cgroup (once written)."""
        def read():
            try:
                with open(self.sd.root_path(f"{SPACE}/{name}")) as f:
                    return [l[3:] for l in f.read().splitlines() if l.startswith("0::")]
            except FileNotFoundError:
                return None
        return h.wait_until(read, 20, f"the command to write {name}")[0]

    def test_root_gets_a_transient_scope_in_its_slice(self):
        script = f"cat /proc/self/cgroup > {SPACE}/cg; exec python3 -c '{WORKLOAD}'"
        execd = self.run_execd(["--interval", "0.5s", "--", "sh", "-c", script], "proctree-test-session.scope")
        status = execd.wait_exit(60)
        self.assertEqual(status, 0, execd.describe())
        name = f"proctree-launch-{execd.nspid}.scope"
        self.assertEqual(self.command_cgroup("cg"), f"/system.slice/{name}",
                         "in systemd's scope, in the slice of proctree's own scope")
        said = [l for l in execd.stderr_lines() if "transient scope" in l]
        self.assertEqual(len(said), 1, execd.describe())
        self.assertTrue(said[0].startswith("I! ") and f'"/system.slice/{name}"' in said[0], said[0])
        self.assertFalse(h.load_free([l for l in execd.stderr_lines() if l.startswith(("E! ", "W! "))]),
                         execd.describe())
        lines = tagged(execd)
        self.assertGreaterEqual(len(lines), 2, execd.describe())
        self.assertTrue(all("cgroup_cpu_user_seconds" in l.fields for l in lines), execd.describe())
        tree = sum(l.fields["proc_cpu_user_seconds"] for l in lines)
        cgroup = sum(l.fields["cgroup_cpu_user_seconds"] for l in lines)
        self.assertGreater(tree, 0.9, execd.describe())
        self.assertLess(abs(cgroup - tree), max(0.04 * tree, 0.05), execd.describe())
        if "memory" in self.sd.read_file("/sys/fs/cgroup/cgroup.controllers").split():
            peak = max(l.fields.get("cgroup_memory_peak_lifetime", 0) for l in lines)
            self.assertGreaterEqual(peak, ALLOC, execd.describe())
        # systemd removes it once empty (CollectMode=inactive-or-failed: no
        # failed unit is left either); proctree never does
        h.wait_until(lambda: not os.path.exists(self.sd.cgroup_dir(f"/system.slice/{name}")), 20,
                     "systemd to remove the scope's cgroup")
        h.wait_until(lambda: self.sd.systemctl("show", "-P", "LoadState", name).stdout.strip() == "not-found", 20,
                     "the scope to be collected")

    def test_scope_outlives_the_command_until_the_last_read(self):
        """systemd removes a scope once no process is in it, and the kernel
        says so as the last one exits, before proctree reaps it and reads the
        cgroup for the last time (that batch lost its cgroup_* fields in about
        half the runs). A keeper (comm proctree-keeper, the supervisor's
        child) stays in the scope until the worker has exited: with the worker
        stopped, the command gone, the scope still holds the keeper alone."""
        go = f"{SPACE}/go"
        script = f"cat /proc/self/cgroup > {SPACE}/cg; while [ ! -e {go} ]; do sleep 0.05; done"
        execd = self.run_execd(["--interval", "0.5s", "--", "sh", "-c", script], "proctree-test-keep.scope")
        h.wait_until(lambda: os.path.exists(self.sd.root_path(f"{SPACE}/cg")), 20, "the command to start")
        scope = self.sd.cgroup_dir(self.command_cgroup("cg"))
        kids = h.children(execd.inner_pid)
        keepers = [k for k in kids if h.comm(k) == "proctree-keeper"]
        workers = [k for k in kids if k not in keepers]
        self.assertEqual((len(keepers), len(workers)), (1, 1), kids)
        execd.wait_batches(1)
        os.kill(workers[0], signal.SIGSTOP)
        self.addCleanup(self.resume, workers[0])

        def keeper_alone():
            try:
                with open(f"{scope}/cgroup.procs") as f:
                    return [int(p) for p in f.read().split()] == keepers
            except FileNotFoundError:
                raise AssertionError("systemd removed the scope before proctree's last read") from None

        open(self.sd.root_path(go), "w").close()
        h.wait_until(keeper_alone, 20, "the command to exit, leaving the keeper in the scope")
        os.kill(workers[0], signal.SIGCONT)
        self.assertEqual(execd.wait_exit(30), 0, execd.describe())
        lines = tagged(execd)
        self.assertIn("cgroup_cpu_user_seconds", lines[-1].fields, "the last batch read the scope\n" + execd.describe())
        h.wait_until(lambda: not os.path.exists(scope), 20, "systemd to remove the scope once the keeper is gone")
        self.assertIsNone(h.comm(keepers[0]), "the keeper ends with proctree-execd")

    def test_scope_properties(self):
        """The scope's properties as systemd reports them while it runs: the
        accounting asked for, and no command line in its Description."""
        secret = "hostile-$(reboot)-argument"
        script = f"cat /proc/self/cgroup > {SPACE}/cg; sleep 30; : {secret}"
        execd = self.run_execd(["--interval", "0.5s", "--", "sh", "-c", script], "proctree-test-props.scope")
        h.wait_until(lambda: os.path.exists(self.sd.root_path(f"{SPACE}/cg")), 20, "the command to start")
        name = f"proctree-launch-{execd.nspid}.scope"
        props = dict(line.split("=", 1) for line in self.sd.systemctl(
            "show", "-p", "MemoryAccounting,CPUAccounting,IOAccounting,TasksAccounting,CollectMode,Description,"
            "Transient,ActiveState", name).stdout.splitlines())
        self.assertEqual(props["Transient"], "yes", props)
        self.assertEqual(props["ActiveState"], "active", props)
        for p in ("MemoryAccounting", "CPUAccounting", "IOAccounting", "TasksAccounting"):
            self.assertEqual(props[p], "yes", p)
        self.assertEqual(props["CollectMode"], "inactive-or-failed")
        self.assertNotIn(secret, props["Description"])
        self.assertNotIn("sleep", props["Description"])

    def test_not_delegated_without_systemd_runs_without_and_says_why(self):
        """As nobody no manager will move the command (its cgroup is outside
        any user manager's, and the system manager's socket is root's), and
        proctree's own scope is not delegated: no cgroup of its own, none
        made in systemd's, and one line saying both."""
        program = self.sd.root_path("/run/proctree-execd-nobody")
        shutil.copy(h.execd_path(), program)
        os.chmod(program, 0o755)
        wrapper = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        execd = self.run_execd(["--interval", "0.3s", "--", "sh", "-c", f"cat /proc/self/cgroup > {SPACE}/cg; "
                                "sleep 0.7; exit 3"], "proctree-test-nobody.scope", before=wrapper,
                               program="/run/proctree-execd-nobody")
        status = execd.wait_exit(30)
        self.assertEqual(status, 3, execd.describe())
        self.assertEqual(self.command_cgroup("cg"), "/system.slice/proctree-test-nobody.scope")
        said = [l for l in execd.stderr_lines() if "scope" in l or "cgroup of its own" in l]
        self.assertEqual(len(said), 1, execd.describe())
        for part in ("I! ", "no scope of its own", "outside the user's manager (user@65534.service)",
                     "no cgroup of its own",
                     '"/system.slice/proctree-test-nobody.scope"', "not delegated", "--launch-cgroup"):
            self.assertIn(part, said[0])
        for line in tagged(execd):
            self.assertFalse([k for k in line.fields if k.startswith("cgroup_")], line.raw)

    def test_delegated_fallback_below_its_own_says_what_is_missing(self):
        """systemd unreachable (its socket hidden by a mount) in a delegated
        scope: the cgroup is made below proctree's own, as systemd allows
        there, and the line names the controllers it cannot have."""
        hide = ["unshare", "-m", "--", "sh", "-c", 'mount --bind /dev/null /run/systemd/private && exec "$0" "$@"']
        scope = "proctree-test-deleg.scope"
        execd = self.run_execd(["--interval", "0.3s", "--", "sh", "-c",
                                f"cat /proc/self/cgroup > {SPACE}/cg; sleep 0.7"], scope,
                               properties=["Delegate=yes"], before=hide)
        status = execd.wait_exit(30)
        self.assertEqual(status, 0, execd.describe())
        own = f"/system.slice/{scope}"
        made = f"{own}/proctree-launch-{execd.nspid}"
        self.assertEqual(self.command_cgroup("cg"), made)
        said = [l for l in execd.stderr_lines() if "scope" in l or "cgroup of its own" in l]
        self.assertEqual(len(said), 1, execd.describe())
        for part in ("I! ", "no scope of its own", '"/run/systemd/private": not a socket', f'"/sys/fs/cgroup{made}"',
                     "delegated cgroup"):
            self.assertIn(part, said[0])
        # proctree's own cgroup holds it, so the kernel enables nothing below:
        # whatever its parent offers, the made one has no controller
        self.assertIn("without the cpu, io, memory, pids controllers", said[0])
        self.assertIn("holds processes", said[0])
        self.assertFalse(os.path.exists(self.sd.cgroup_dir(made)), "made, so removed")
        lines = tagged(execd)
        self.assertTrue(lines and all("cgroup_cpu_user_seconds" in l.fields for l in lines), execd.describe())


if __name__ == "__main__":
    sh.systemd_or_skip()
    unittest.main()
