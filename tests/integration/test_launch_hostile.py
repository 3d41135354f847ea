"""Launch mode against what a job or a careless hand may do (issue 36).

Why: proctree-execd ends the launched tree when it stops, and removes the
command's cgroup; neither may hurt anything else nor be defeated by what
the job does:

- a process that takes the pid of the launched command once that command
  is reaped (its tree kept alive by a daemon that called setsid) is a
  stranger, and its process group is not the tree's: stopping must not
  signal it (a private pid namespace with a small pid_max makes the pid
  come round within a second);
- a stopped worker (SIGSTOP) whose supervisor is SIGKILLed must still end
  the tree and its cgroups: the kernel's death signal of the supervisor,
  which a stopped process does not act on, must wake it;
- sub-cgroups with names of 200 bytes three deep (a path past the 512
  bytes of proctree's buffers) are removed with the rest.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import cgroup_helpers
import harness as h
import telegraf_harness as th
from test_launch_cgroup import cgroups_of, mounts

# A pid namespace's own kernel.pid_max is Linux 6.14's; before it, the
# write inside the namespace would set the host's.
PIDNS_PID_MAX_SINCE = (6, 14)
# Small, so that pids come round fast; above 300 (RESERVED_PIDS: past it,
# the kernel wraps back to 300, never lower).
PID_MAX = 500


def kernel_version():
    return tuple(int(x) for x in os.uname().release.split("-")[0].split(".")[:2])


def state(pid):
    """stat's state letter, or None once pid is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def wait_pidfile(path):
    h.wait_until(lambda: os.path.exists(path) and os.path.getsize(path) > 0, h.START_TIMEOUT, f"{path}")
    with open(path) as f:
        return int(f.read())


def in_pid_namespace(tmp):
    """pid 1 of a fresh pid namespace (unshare --pid --fork --mount-proc):
    the pid-reuse case, its findings printed as one JSON line."""
    with open("/proc/sys/kernel/pid_max", "w") as f:
        f.write(str(PID_MAX))
    # past RESERVED_PIDS first: a pid below it never comes round again
    pid = 0
    while pid < 300:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    pidfile = os.path.join(tmp, "command")
    execd = h.Execd(["--interval", "1s", "--no-launch-cgroup", "--", "sh", "-c",
                     f"echo $$ > {pidfile}; setsid sleep 300 & exit 0"])
    stranger = None
    try:
        command = wait_pidfile(pidfile)
        worker = execd.worker_pid()
        # the command reaped, its tree's daemon a child of the worker (the subreaper)
        h.wait_until(lambda: not os.path.exists(f"/proc/{command}"), h.START_TIMEOUT, "the command reaped")
        daemon = h.wait_until(lambda: [p for p in h.children(worker) if h.comm(p) == "sleep"],
                              h.START_TIMEOUT, "the tree's setsid sleep")[0]
        # pids round until an unrelated group leader has the command's
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            p = subprocess.Popen(["setsid", "sleep", "1000"])
            if p.pid == command:
                stranger = p
                break
            p.kill()
            p.wait()
        if stranger is None:
            print(json.dumps({"error": f"pid {command} never came round"}))
            return
        h.wait_until(lambda: os.getpgid(stranger.pid) == stranger.pid and h.comm(stranger.pid) == "sleep",
                     h.START_TIMEOUT, "the stranger leading its own group")
        execd.close_stdin()
        status = execd.wait_exit(h.START_TIMEOUT)
        print(json.dumps({"command": command, "status": status, "stranger": stranger.poll(),
                          "daemon": th.process_alive(daemon), "stderr": execd.stderr_lines()}))
    finally:
        execd.stop()
        if stranger:
            stranger.kill()
            stranger.wait()


class StrangerTest(unittest.TestCase):
    def test_a_stranger_with_the_commands_old_pid_is_not_signalled(self):
        """The command (sh) exits at once, its setsid'd sleep keeps the tree
        alive; an unrelated `setsid sleep` then gets sh's pid. Closing
        proctree-execd's stdin ends the tree's sleep, not the stranger (it
        sent SIGTERM to the old pid's process group: the stranger's)."""
        if os.getuid() != 0:
            self.skipTest("a pid namespace of our own needs root")
        if kernel_version() < PIDNS_PID_MAX_SINCE:
            self.skipTest("no per-pid-namespace pid_max before Linux 6.14: the host's would be lowered")
        tmp = tempfile.mkdtemp(prefix="proctree-stranger-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        r = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, __file__,
                            "--in-pid-namespace", tmp], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        found = json.loads(r.stdout.strip().splitlines()[-1])
        self.assertNotIn("error", found, found)
        said = "\n".join(found["stderr"])
        self.assertIsNone(found["stranger"], f"the stranger with pid {found['command']} was killed\n{said}")
        self.assertFalse(found["daemon"], f"the tree's sleep outlives proctree-execd\n{said}")
        self.assertEqual(found["status"], 0, said)
        h.assert_no_sanitizer_report(found["stderr"], "proctree-execd")


class LaunchCgroupCase(unittest.TestCase):
    def setUp(self):
        if os.getuid() != 0:
            self.skipTest("proctree-execd must run as root to make cgroups")
        self.v2, self.memory = mounts()
        if not self.v2 or not os.access(self.v2, os.W_OK):
            self.skipTest("no writable cgroup2 mount")
        self.tmp = tempfile.mkdtemp(prefix="proctree-hostile-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def dirs(self, pid):
        """The command's cgroup directories in v2 and v1 memory."""
        paths = cgroups_of(pid)
        return [self.v2 + paths[""]] + ([self.memory + paths["memory"]] if self.memory else [])


class StoppedWorkerTest(LaunchCgroupCase):
    def test_a_stopped_worker_ends_the_tree_when_its_supervisor_is_killed(self):
        """SIGSTOP to the worker, then SIGKILL to the supervisor: the tree
        and its cgroups are gone within seconds (they lived until someone
        sent the worker SIGCONT)."""
        pidfile = os.path.join(self.tmp, "pid")
        with h.Execd(["--interval", "0.3s", "--", "sh", "-c",
                      f"echo $$ > {pidfile}; sleep 300 & sleep 300"]) as execd:
            root = wait_pidfile(pidfile)
            made = self.dirs(root)
            tree = h.wait_until(lambda: len(h.descendants_and_self(root)) == 3 and h.descendants_and_self(root),
                                h.START_TIMEOUT, "sh and its two sleeps")
            worker = execd.worker_pid()
            # whatever happens, no stopped worker is left behind (it acts once continued)
            self.addCleanup(lambda: state(worker) and os.kill(worker, signal.SIGCONT))
            os.kill(worker, signal.SIGSTOP)
            h.wait_until(lambda: state(worker) == "T", h.START_TIMEOUT, "the worker stopped")
            os.kill(execd.pid, signal.SIGKILL)
            h.wait_until(lambda: not any(th.process_alive(p) for p in tree), 10,
                         "the tree to end\n" + execd.describe())
            h.wait_until(lambda: not any(os.path.exists(d) for d in made), 10,
                         "the cgroups to be removed\n" + execd.describe())
            h.wait_until(lambda: not th.process_alive(worker), 10, "the worker to exit")
            execd.join()
        lines = [l for l in execd.stderr_lines() if "SIGKILL" in l]
        self.assertEqual(len(lines), 1, execd.describe())
        self.assertIn("the process Telegraf started", lines[0])


class LongPathTest(LaunchCgroupCase):
    def test_sub_cgroups_past_512_bytes_of_path_are_removed(self):
        """Three levels of 200-byte names in the command's cgroup (v2 and
        v1 memory), the command moved into the deepest: all removed at the
        end, without a warning (the walk built each path in 512 bytes, and
        the cgroup stayed: "File name too long")."""
        pidfile = os.path.join(self.tmp, "pid")
        names = [c * 200 for c in "abc"]
        with h.Execd(["--interval", "0.3s", "--", "sh", "-c",
                      f"echo $$ > {pidfile}; while [ ! -e {pidfile}.go ]; do sleep 0.02; done"]) as execd:
            child = wait_pidfile(pidfile)
            made = self.dirs(child)
            for d in made:  # as the job would: it runs as root in them
                deepest = os.path.join(d, *names)
                self.assertGreater(len(deepest), 512)
                os.makedirs(deepest)
                self.addCleanup(cgroup_helpers.rmdirs, d, deepest)
                with open(os.path.join(deepest, "cgroup.procs"), "w") as f:
                    f.write(str(child))
            open(pidfile + ".go", "w").close()
            status = execd.wait_exit(15)
        self.assertEqual(status, 0, execd.describe())
        for d in made:
            self.assertFalse(os.path.exists(d), f"{d[:80]}... is removed\n{execd.describe()}")
        self.assertFalse(h.load_free([l for l in execd.stderr_lines() if l.startswith(("E! ", "W! "))]),
                         execd.describe())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--in-pid-namespace"]:
        in_pid_namespace(sys.argv[2])
    else:
        unittest.main(verbosity=2)
