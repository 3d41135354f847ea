"""Capabilities lend nothing: what the caller chose is read with the
caller's own permissions.

Why: proctree-execd's binary carries cap_sys_ptrace, cap_dac_read_search
and cap_net_admin (permitted only) so that Telegraf's unprivileged user
reads every process; the binary is 0755, so every local user runs it with
them. A user who pointed --proc-root (or HOST_PROC) at a directory of his
own, whose 4000/cmdline was a link to a root-only file, learned that file
byte by byte from which --match pattern matched; a pid file in a closed
directory told its pid ("pid 12345 is not running"); a sys root of his own
with a link into a closed directory had its cgroup.procs followed.

Each test here is that extraction, run as nobody with the =p binary: two
guesses at a root-only secret, one right and one wrong, must get the same
answer (the same lines on stdout, less the collector's own cost and the
timestamps, and the same lines on stderr), and the secret never shows.
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import harness as h

NOBODY = 65534  # Debian's nobody/nogroup
SETCAP = "cap_sys_ptrace,cap_dac_read_search,cap_net_admin=p"
SECRET = "TOPSECRET-hunter2"


def normalized(out):
    """stdout's lines without their timestamps, the interval's length and
    the collector's cost (which differ between any two runs), stderr as it
    is."""
    lines = []
    for line in out.stdout.splitlines():
        line = re.sub(r" \d+$", "", line)
        line = re.sub(r",?collector_(cpu|interval)_seconds=[^,\s]+", "", line)
        lines.append(line)
    return lines, out.stderr.splitlines()


class LentCapabilities(unittest.TestCase):
    def setUp(self):
        self.assertEqual(os.getuid(), 0, "the secrets must belong to another user than proctree's")
        self.tmp = tempfile.mkdtemp(prefix="proctree-lent-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        os.chmod(self.tmp, 0o755)
        self.program = shutil.copy(h.execd_path(), self.tmp)
        os.chmod(self.program, 0o755)
        subprocess.run(["setcap", SETCAP, self.program], check=True)
        # root's closed directory: nobody may neither list nor search it
        self.closed = os.path.join(self.tmp, "closed")
        os.mkdir(self.closed, 0o700)
        self.secret = self.root_only("secret.txt", SECRET + "\n")
        # nobody's own directory, where the tricks are built
        self.own = os.path.join(self.tmp, "own")
        os.mkdir(self.own, 0o755)
        os.chown(self.own, NOBODY, NOBODY)

    def root_only(self, name, content):
        path = os.path.join(self.closed, name)
        with open(path, "w") as f:
            f.write(content)
        os.chmod(path, 0o600)
        return path

    def as_nobody(self, args, env=None):
        """The =p binary as nobody, one batch: CompletedProcess."""
        return subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", self.program, "--once",
             "--interval", "0.3s", "--no-global", *args],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=h.BATCH_TIMEOUT, env=env)

    def same_answer(self, runs, secret=SECRET):
        """Every run told the same, and none the secret."""
        first = normalized(runs[0])
        for run in runs:
            self.assertNotIn(secret, run.stdout + run.stderr)
            self.assertNotIn("12345", run.stdout + run.stderr)
            self.assertEqual(normalized(run), first, f"\n{runs[0].stderr}\n---\n{run.stderr}")
            # its one batch, whose interval (from the start) judges it
            h.group_batches([h.parse_line(line) for line in run.stdout.splitlines() if line.startswith("proctree,")])
        return first

    def fake_proc_root(self):
        """nobody's directory made to look like /proc, its process 4000's
        command line a link to the secret."""
        root = os.path.join(self.own, "proc")
        os.makedirs(os.path.join(root, "4000", "task", "4000"))
        shutil.copy("/proc/meminfo", root)
        with open(os.path.join(root, "4000", "stat"), "w") as f:
            f.write("4000 (x) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 100 1000 10" + " 0" * 29 + "\n")
        for name in ("statm", "status", "io"):
            shutil.copy(f"/proc/self/{name}", os.path.join(root, "4000", name))
        open(os.path.join(root, "4000", "task", "4000", "children"), "w").close()
        os.symlink(self.secret, os.path.join(root, "4000", "cmdline"))
        subprocess.run(["chown", "-R", "-h", f"{NOBODY}:{NOBODY}", root], check=True)
        return root

    def guesses(self, args_of, env_of=lambda guess: None):
        return [self.as_nobody(args_of(guess), env_of(guess)) for guess in ("^TOPSECRET", "^XYZ")]

    def test_proc_root_tells_nothing(self):
        """--proc-root of the caller's making: the lent capabilities are
        given up before anything below it is read, said in one line, and
        the link reads nothing."""
        root = self.fake_proc_root()
        runs = self.guesses(lambda g: ["--proc-root", root, "--match", g, "--name", "hit"])
        _, stderr = self.same_answer(runs)
        said = [l for l in stderr if "given up for good" in l]
        self.assertEqual(len(said), 1, "\n".join(stderr))
        self.assertTrue(said[0].startswith("W! "), said[0])
        self.assertIn("no proc filesystem", said[0])
        for line in runs[0].stdout.splitlines():
            self.assertIn("proc_processes=0i", line)

    def test_host_proc_tells_nothing(self):
        root = self.fake_proc_root()
        runs = self.guesses(lambda g: ["--match", g, "--name", "hit"], lambda g: dict(os.environ, HOST_PROC=root))
        self.same_answer(runs)
        self.assertIn("given up for good", runs[0].stderr)

    def test_real_proc_root_keeps_them(self):
        """The host's own /proc named by HOST_PROC (Telegraf in a
        container): a proc filesystem, read with the capabilities still:
        root's process has its PSS (smaps_rollup: CAP_SYS_PTRACE)."""
        with h.memtree(1, 4) as tree:
            out = self.as_nobody(["--pid", str(tree.pid)], dict(os.environ, HOST_PROC="/proc"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("given up", out.stderr)
        self.assertNotIn("W! ", out.stderr)
        lines = [l for l in out.stdout.splitlines() if l.startswith("proctree,target=")]
        self.assertEqual(len(lines), 1, out.stdout)
        self.assertIn("proc_pss_max=", lines[0])

    def test_pid_file_tells_nothing(self):
        """A pid file in a closed directory: a pid, text, or nothing at all
        there answer alike (the caller's own open is refused)."""
        runs = []
        for content in ("12345\n", SECRET + "\n", None):
            path = os.path.join(self.closed, "pid")
            if os.path.exists(path):
                os.unlink(path)
            if content is not None:
                self.root_only("pid", content)
            runs.append(self.as_nobody(["--pidfile", path, "--name", "hit"]))
        self.same_answer(runs)
        self.assertIn("Permission denied", runs[0].stderr)

    def fake_sys_root(self, procs):
        """nobody's directory made to look like /sys, its cgroup x a link
        into the closed directory, whose cgroup.procs holds procs."""
        root = os.path.join(self.own, "sys")
        cgroup = os.path.join(root, "fs", "cgroup")
        os.makedirs(cgroup, exist_ok=True)
        for name in ("cgroup.controllers", "cgroup.procs"):
            open(os.path.join(cgroup, name), "w").close()
        inside = os.path.join(self.closed, "cg")
        os.makedirs(inside, exist_ok=True)
        self.root_only(os.path.join("cg", "cgroup.procs"), procs)
        link = os.path.join(cgroup, "x")
        if not os.path.islink(link):
            os.symlink(inside, link)
        subprocess.run(["chown", "-R", "-h", f"{NOBODY}:{NOBODY}", root], check=True)
        return root

    def test_sys_root_and_cgroup_tell_nothing(self):
        """A sys root of the caller's making whose cgroup is a link into a
        closed directory: a live pid there and text there answer alike,
        through --sys-root and HOST_SYS, by the cgroup's path below the
        hierarchy or as a directory."""
        with h.memtree(1, 4) as tree:
            runs = {}
            for content in (f"{tree.pid}\n", SECRET + "\n"):
                root = self.fake_sys_root(content)
                directory = os.path.join(root, "fs", "cgroup", "x")
                for how, args, env in (("option", ["--sys-root", root, "--cgroup", "/x"], None),
                                       ("environment", ["--cgroup", "/x"], dict(os.environ, HOST_SYS=root)),
                                       ("directory", ["--sys-root", root, "--cgroup", directory], None)):
                    runs.setdefault(how, []).append(self.as_nobody([*args, "--name", "hit"], env))
        for how, pair in runs.items():
            with self.subTest(how=how):
                stdout, _ = self.same_answer(pair)
                self.assertTrue(all("proc_processes=0i" in l for l in stdout), stdout)

    def test_cgroup_path_tells_nothing(self):
        """--cgroup naming a directory in the closed one, there or not."""
        os.mkdir(os.path.join(self.closed, "there"))
        runs = [self.as_nobody(["--cgroup", os.path.join(self.closed, name), "--name", "hit"])
                for name in ("there", "absent")]
        for run in runs:
            self.assertNotIn(SECRET, run.stdout + run.stderr)
        self.assertEqual(normalized(runs[0])[0], normalized(runs[1])[0])
        # the paths differ, and so do the lines that name them: compared with the name put back
        self.assertEqual([l.replace("there", "absent") for l in runs[0].stderr.splitlines()],
                         runs[1].stderr.splitlines())

    def test_command_output_tells_nothing(self):
        """--command-output into the closed directory: an existing file and
        none are refused alike, and nothing is written."""
        runs = []
        for name in ("secret.txt", "absent"):
            runs.append(self.as_nobody(["--no-launch-cgroup", "--command-output", os.path.join(self.closed, name),
                                        "--", "/bin/true"]))
        for run in runs:
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn("Permission denied", run.stderr)
        self.assertEqual(runs[0].stderr.replace("secret.txt", "absent"), runs[1].stderr)
        with open(self.secret) as f:
            self.assertEqual(f.read(), SECRET + "\n")


if __name__ == "__main__":
    unittest.main()
