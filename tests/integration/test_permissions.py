"""Another user's processes: proctree without ptrace access, and with the
capabilities the documentation advises.

Why: Telegraf runs as user `telegraf`. /proc/PID/io, smaps_rollup and fd/ of
another user's process are closed to it, while stat, statm and the children
files are not. proctree must then report what it can (memory, processes,
CPU), leave the unreadable metrics out rather than send zeros that look like
measurements, and say so once per kind of file on stderr as a Telegraf
warning, not at every batch. The warning and the documentation name the
capabilities that open them; each file needs its own (measured on Linux
6.18): smaps_rollup (0444) only ptrace access, CAP_SYS_PTRACE; fd/ (0500)
only the permission check, CAP_DAC_READ_SEARCH (counting its entries needs
no ptrace access); io (0400) both. So the advice is tested by running with
exactly those capabilities.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import harness as h

NOBODY = 65534  # Debian's nobody/nogroup
NPROCS, MIB_EACH = 3, 8
DENIED = {"io": ["proc_io_read_bytes", "proc_io_write_bytes", "proc_io_read_syscalls"],
          "smaps_rollup": ["proc_pss_max", "proc_uss_max", "proc_swap_max"],
          "fd/": ["proc_fds"]}
NEEDS = {"io": ("sys_ptrace", "dac_read_search"), "smaps_rollup": ("sys_ptrace",), "fd/": ("dac_read_search",)}
SETCAP = "cap_sys_ptrace,cap_dac_read_search,cap_net_admin,cap_bpf,cap_perfmon"


class PermissionsTest(unittest.TestCase):
    def setUp(self):
        # The build tree may sit below a directory nobody cannot enter.
        self.tmp = tempfile.mkdtemp(prefix="proctree-perm-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        os.chmod(self.tmp, 0o755)
        self.program = shutil.copy(h.execd_path(), self.tmp)
        os.chmod(self.program, 0o755)

    def run_as_nobody(self, caps):
        """proctree-execd as nobody with exactly caps (setpriv names) on a
        root-owned tree: (the tree's resident bytes, target lines, W! lines)."""
        self.assertEqual(os.getuid(), 0, "the tree must belong to another user than proctree")
        wrapper = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        if caps:
            wanted = ",".join("+" + cap for cap in caps)
            wrapper += [f"--inh-caps={wanted}", f"--ambient-caps={wanted}",
                        f"--bounding-set=-all,{wanted}"]
        with h.memtree(NPROCS, MIB_EACH) as tree:
            resident = h.tree_resident_bytes(h.descendants_and_self(tree.pid))
            with h.Execd(["--pid", tree.pid, "--interval", "0.3s"], wrapper=wrapper,
                         program=self.program) as execd:
                execd.wait_batches(4)
        lines = [p for _, points in execd.batches() for p in points if p.tags]
        self.assertGreaterEqual(len(lines), 4, execd.describe())
        warnings = h.load_free([line for line in execd.stderr_lines() if line.startswith("W! ")])
        return resident, lines, warnings, execd.describe()

    def check_readable(self, caps, readable):
        """What caps open is measured, the rest is left out with one warning
        per kind that gives the advice tested here."""
        resident, lines, warnings, describe = self.run_as_nobody(caps)
        for line in lines:
            self.assertEqual(line.fields["proc_processes"], NPROCS, line.raw)
            self.assertLess(abs(line.fields["proc_rss_max"] - resident), 0.02 * resident, line.raw)
            self.assertIn("proc_cpu_user_seconds", line.fields, line.raw)
            for kind, fields in DENIED.items():
                for field in fields:
                    if kind in readable:
                        self.assertIn(field, line.fields, f"{kind} is open with {caps}")
                    else:
                        self.assertNotIn(field, line.fields, "unreadable, so left out, not 0")
        for kind in DENIED:
            about = [l for l in warnings if f"/{kind}" in l and "permission denied" in l]
            self.assertEqual(len(about), 0 if kind in readable else 1,
                             f"warnings about {kind} with {caps}:\n{describe}")
            # the line names what is missing, and why: with a bounding set
            # that lacks it, that; without, the uid's having none, and the fix
            for cap in NEEDS[kind] if about else ():
                if cap in caps:
                    continue
                self.assertIn("CAP_" + cap.upper(), about[0], describe)
                why = "not in the bounding set" if caps else f"uid {NOBODY} holds none"
                self.assertIn(why, about[0], describe)
                if not caps:
                    self.assertIn(f"setcap {SETCAP}=p", about[0], describe)

    def test_other_users_tree_reports_what_it_can(self):
        self.check_readable((), set())

    def test_ptrace_alone_opens_smaps_rollup_only(self):
        self.check_readable(("sys_ptrace",), {"smaps_rollup"})

    def test_dac_read_search_alone_opens_fd_only(self):
        self.check_readable(("dac_read_search",), {"fd/"})

    def test_ptrace_and_dac_read_search_open_everything(self):
        """The documented advice: no warning, every metric."""
        self.check_readable(("sys_ptrace", "dac_read_search"), set(DENIED))

    def test_file_capabilities_open_everything(self):
        """The documented alternative that leaves Telegraf itself unprivileged:
        the capabilities set on the binary, permitted only (setcap ...=p),
        which proctree-execd raises itself."""
        subprocess.run(["setcap", f"{SETCAP}=p", self.program], check=True)
        self.check_readable((), set(DENIED))

    def exec_with_bounding_set(self, setcap, bounding):
        """Run the binary with file capabilities setcap as nobody whose
        bounding set is the full one less bounding: CompletedProcess."""
        subprocess.run(["setcap", setcap, self.program], check=True)
        return subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", f"--bounding-set=-{bounding}",
             self.program, "--once", "--interval", "0.2s", "--pid", str(os.getpid())],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=h.BATCH_TIMEOUT)

    def test_a_capability_short_of_the_file_is_named_not_fatal(self):
        """Where the bounding set lacks one of the file's capabilities (a
        container given one fewer), the kernel refuses to exec a binary
        whose capabilities carry the effective bit, the failure that stops
        Telegraf; permitted only, the binary runs with the others and one
        warning names the one missing and why."""
        refused = self.exec_with_bounding_set(f"{SETCAP}=ep", "net_admin")
        self.assertNotEqual(refused.returncode, 0, refused.stderr)
        self.assertIn("Operation not permitted", refused.stderr)
        ran = self.exec_with_bounding_set(f"{SETCAP}=p", "net_admin")
        self.assertEqual(ran.returncode, 0, ran.stderr)
        self.assertEqual(len([p for p in ran.stdout.splitlines() if p.startswith("proctree,target=")]), 1, ran.stdout)
        warned = [l for l in ran.stderr.splitlines() if l.startswith("W! ")]
        self.assertEqual(len(warned), 1, ran.stderr)
        self.assertIn("CAP_NET_ADMIN", warned[0])
        self.assertNotIn("CAP_SYS_PTRACE", warned[0])
        self.assertIn("not in the bounding set", warned[0])
        self.assertIn("exit records", warned[0])

    def launch_as_nobody(self, args, env=None):
        """The binary with the documented file capabilities (=p), as nobody,
        in launch mode: CompletedProcess."""
        subprocess.run(["setcap", f"{SETCAP}=p", self.program], check=True)
        return subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", self.program, "--once",
             "--interval", "0.2s", "--no-launch-cgroup"] + args,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=h.BATCH_TIMEOUT, env=env)

    def test_launch_mode_lends_no_capability(self):
        """The capabilities raised to read /proc are not the command's, nor
        its exec's and PATH search's, nor its output file's: as nobody, a
        program in a root-only 0700 directory is refused as a plain exec
        refuses it (CAP_DAC_READ_SEARCH would pass the directory's search
        check), and so is a world-writable file there; a program nobody may
        run still runs, and the command holds no capability."""
        closed = os.path.join(self.tmp, "closed")
        os.mkdir(closed, 0o700)
        secret = shutil.copy("/usr/bin/true", os.path.join(closed, "proctree-secret-true"))
        os.chmod(secret, 0o755)
        # (through sh: setpriv's own exec of it came before its capabilities were gone)
        plain = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "sh", "-c",
                                'exec "$0"', secret], capture_output=True, text=True)
        self.assertEqual(plain.returncode, 126, "the directory must be closed to nobody for this test")

        refused = self.launch_as_nobody(["--", secret])
        self.assertEqual(refused.returncode, 127, refused.stderr)
        self.assertIn("cannot run", refused.stderr)
        self.assertIn("Permission denied", refused.stderr)

        env = dict(os.environ, PATH=f"{closed}:/usr/bin:/bin")
        searched = self.launch_as_nobody(["--", "proctree-secret-true"], env=env)
        self.assertEqual(searched.returncode, 127, searched.stderr)
        self.assertIn("Permission denied", searched.stderr)

        trap = os.path.join(closed, "out")
        with open(trap, "w"):
            pass
        os.chmod(trap, 0o666)
        output = self.launch_as_nobody(["--command-output", trap, "--", "/usr/bin/true"])
        self.assertEqual(output.returncode, 2, output.stderr)
        self.assertIn("--command-output: cannot open", output.stderr)
        self.assertEqual(os.path.getsize(trap), 0)

        own = os.path.join(self.tmp, "nobodys")
        os.mkdir(own, 0o755)
        os.chown(own, NOBODY, NOBODY)
        status = os.path.join(own, "status")
        ran = self.launch_as_nobody(["--command-output", status, "--", "sh", "-c", "grep ^Cap /proc/self/status"])
        self.assertEqual(ran.returncode, 0, ran.stderr)
        self.assertEqual(len([p for p in ran.stdout.splitlines() if p.startswith("proctree,target=")]), 1, ran.stdout)
        with open(status) as f:
            caps = dict(line.split(":\t") for line in f.read().splitlines())
        for held in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
            self.assertEqual(int(caps[held], 16), 0, f"{held} of the command: {caps}")

    def test_own_exits_are_no_denial(self):
        """The kernel refuses io, smaps_rollup and fd/ of a process whose
        memory is gone (exiting, a zombie) to all but root, the process's
        own user included: such a refusal is the process vanishing, never a
        missing capability. As nobody without capabilities, a command of
        nobody's own whose children exit and stay zombies for a second
        (then reaped), and a few that exit at once: no line says
        "permission denied" (every process is nobody's, so any would be
        false), and the tree's values come out, zombies counted."""
        script = ("import os, time\n"
                  "kids = [pid for pid in (os.fork() for _ in range(20)) if pid or os._exit(0)]\n"
                  "time.sleep(1.5)\n"
                  "for pid in kids: os.waitpid(pid, 0)\n"
                  "for _ in range(50):\n"
                  "    pid = os.fork()\n"
                  "    if pid == 0: os._exit(0)\n"
                  "    os.waitpid(pid, 0)\n"
                  "time.sleep(0.5)\n")
        wrapper = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        with h.Execd(["--interval", "0.3s", "--no-launch-cgroup", "--", "python3", "-c", script], wrapper=wrapper,
                     program=self.program) as execd:
            status = execd.wait_exit(30)
        self.assertEqual(status, 0, execd.describe())
        self.assertFalse([l for l in execd.stderr_lines() if "permission denied" in l], execd.describe())
        lines = [p for _, points in execd.batches() for p in points if p.tags]
        self.assertTrue(any(l.fields.get("proc_processes_zombie", 0) >= 10 for l in lines), execd.describe())
        for line in lines:
            if line.fields.get("proc_processes", 0):
                self.assertIn("proc_cpu_user_seconds", line.fields, line.raw)
                self.assertIn("proc_io_read_syscalls", line.fields, line.raw)


if __name__ == "__main__":
    unittest.main(verbosity=2)
