"""proctree-execd in a container: another pid namespace, the host's /proc
mounted into it and named by HOST_PROC, as Telegraf is usually run.

Why: there the proc root names every process by the host's pid while
fork(), waitid() and kill() speak the container's. Launch mode used to look
the launched command's container pid up in the host's /proc and report
another process, --match took proctree-execd itself, and a container pid
given to --pid measured the host's process of that number, all silently.

The container is `unshare --pid --mount --fork`: the host's /proc is bound
at a directory of the test first, then the namespace's own proc is mounted
on /proc (in the private mount namespace only). pid 1 there is a shell, so
proctree-execd is an ordinary process; --kill-child takes the namespace
down if the test dies, and closing stdin stops proctree-execd.

Only what the kernel guarantees is asserted: the same processes and the
same idle memory as a proctree-execd on the host, the launched tree's
resident memory at least what it wrote, the lines that say why.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import harness as h

MIB_EACH = 16
RSS_TOLERANCE = 0.05  # two readers of the same idle pages, a poll apart


def container(hostproc, *after):
    """A wrapper running proctree-execd (its "$@") in a new pid and mount
    namespace with the host's /proc at hostproc; after: shell text run
    after "$@" (its words are appended to proctree-execd's arguments)."""
    script = ("mount --bind /proc \"$0\" && mount -t proc proc /proc || exit 99; "
              + " ".join(after or ['"$@"; exit $?']))
    return [shutil.which("unshare") or "/usr/bin/unshare", "--pid", "--mount", "--fork", "--propagation", "private",
            "--kill-child", "--", "sh", "-c", script, hostproc]


def last_line(execd, target):
    for _, points in reversed(execd.batches()):
        line = h.target_line(points, target)
        if line is not None:
            return line
    return None


def field(execd, target, name):
    line = last_line(execd, target)
    return line.fields.get(name) if line else None


def has_line(execd, *words):
    return [l for l in execd.stderr_lines() if all(w in l for w in words)]


class InAContainer(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-containers-")
        self.hostproc = os.path.join(self.tmp, "hostproc")
        os.mkdir(self.hostproc)
        self.env = dict(os.environ, HOST_PROC=self.hostproc)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_host_tree_matching_and_namespace_pid(self):
        token = f"0.{os.getpid()}"
        # a regex that matches its own text too: proctree-execd's command line
        # and the namespace's shell hold it, and must not be taken
        regex = f"sleep.300.{token}"
        sleeper = subprocess.Popen(["sleep", "300", token])
        self.addCleanup(h.stop_process, sleeper)
        with h.memtree(3, MIB_EACH) as tree:
            host_args = ["--interval", "0.5s", "--no-global", "--pid", tree.pid, "--name", "tree"]
            # the namespace's own sleep: its pid there is another process's
            # on the host, given to --pid as a container user would
            wrapper = container(self.hostproc, 'sleep 300 & "$@" --pid $! --name nspid; kill $!; exit 0')
            with h.Execd(host_args) as host, \
                    h.Execd(host_args + ["--match", regex, "--name", "m"], wrapper=wrapper, env=self.env) as inner:
                def settled(e):
                    line = last_line(e, "tree")
                    return line is not None and line.fields["proc_processes"] == 3 and e.batch_count() >= 3
                host.wait_for(settled, h.START_TIMEOUT, "the host's execd to see the tree")
                inner.wait_for(settled, h.START_TIMEOUT, "the container's execd to see the tree")
                inner.wait_for(lambda e: field(e, "m", "proc_processes") == 1, h.START_TIMEOUT,
                               "--match to find the sleeper")
                inner.wait_batches(inner.batch_count() + 2)
                mine, theirs = last_line(inner, "tree"), last_line(host, "tree")
                matched = last_line(inner, "m")
        msg = inner.describe() + "\n" + host.describe()
        self.assertEqual(mine.fields["proc_processes"], theirs.fields["proc_processes"], msg)
        rss, want = mine.fields["proc_rss_max"], theirs.fields["proc_rss_max"]
        self.assertGreaterEqual(rss, 3 * MIB_EACH * h.MIB, msg)
        self.assertLessEqual(abs(rss - want), RSS_TOLERANCE * want, msg)
        # proctree-execd, its shell and unshare hold the regex: only the sleeper
        self.assertEqual(matched.fields["proc_processes"], 1, msg)
        self.assertLess(matched.fields["proc_rss_max"], 3 * MIB_EACH * h.MIB, msg)

        self.assertTrue(has_line(inner, "W! ", 'target "nspid"', "proc root's pid namespace",
                                 "give the pid the proc root shows"), msg)
        self.assertTrue(has_line(inner, "I! ", "is another pid namespace's", "taken as the proc root's"), msg)
        self.assertTrue(has_line(inner, "I! ", "no process events", "host's pid and network namespaces",
                                 "--pid=host", "hostPID: true", "count processes seen"), msg)
        self.assertTrue(has_line(inner, "I! ", "no exit records", "host's pid and network namespaces",
                                 "proc_processes_failed/killed"), msg)
        self.assertFalse(has_line(host, "W! ", "pid namespace"), msg)

    def test_launched_command_is_its_own(self):
        # memtree's root stops at EOF on stdin: sleep's pipe keeps it open
        # until proctree-execd ends the tree (stdin closed)
        command = f"sleep 300 | {h.memtree_path()} 2 {MIB_EACH} >/dev/null"
        # --proc-root, which HOST_PROC stands for (test_host_tree_...)
        with h.Execd(["--interval", "0.5s", "--no-global", "--proc-root", self.hostproc, "--name", "job", "--",
                      "sh", "-c", command], wrapper=container(self.hostproc)) as execd:
            def grown(e):
                return (field(e, "job", "proc_rss_max") or 0) >= 2 * MIB_EACH * h.MIB
            execd.wait_for(grown, h.START_TIMEOUT, "the launched tree's memory")
            line = last_line(execd, "job")
        self.assertGreaterEqual(line.fields["proc_processes"], 4, execd.describe())  # sh, sleep, memtree x2

    def test_host_pid_without_the_hosts_proc_gets_a_hint(self):
        """The container's own /proc (no HOST_PROC) does not show a host pid:
        the line says where pids are taken and what to do."""
        sleeper = subprocess.Popen(["sleep", "300"])
        self.addCleanup(h.stop_process, sleeper)
        wrapper = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
        env = {k: v for k, v in os.environ.items() if k != "HOST_PROC"}
        with h.Execd(["--interval", "0.5s", "--pid", sleeper.pid, "--name", "s"], wrapper=wrapper, env=env) as e:
            e.wait_for(lambda e: has_line(e, "W! ", "no live process", "not the host's", "HOST_PROC"),
                       h.START_TIMEOUT, "the hint")

    def test_host_proc_from_the_environment(self):
        """An explicit --proc-root wins over HOST_PROC; a bad HOST_PROC is
        refused with one line naming it."""
        run = lambda env, *args: subprocess.run(  # noqa: E731
            [h.execd_path(), "--once", "--interval", "0.1s", "--pid", str(os.getpid()), *args],
            env=dict(os.environ, **env), stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=h.BATCH_TIMEOUT)
        bad = run({"HOST_PROC": "/nonexistent/hostfs/proc"})
        self.assertEqual(bad.returncode, 2, bad.stderr)
        self.assertIn("HOST_PROC", bad.stderr)
        self.assertEqual(len(bad.stderr.splitlines()), 1, bad.stderr)
        good = run({"HOST_PROC": "/nonexistent/hostfs/proc"}, "--proc-root", "/proc")
        self.assertEqual(good.returncode, 0, good.stderr)
        bad_sys = run({"HOST_SYS": "/nonexistent/hostfs/sys"})
        self.assertEqual(bad_sys.returncode, 2, bad_sys.stderr)
        self.assertIn("HOST_SYS", bad_sys.stderr)
        same = run({"HOST_PROC": "/proc"})
        self.assertEqual(same.returncode, 0, same.stderr)
        self.assertEqual([l for l in same.stderr.splitlines() if "pid namespace's" in l], [], same.stderr)


if __name__ == "__main__":
    unittest.main()
