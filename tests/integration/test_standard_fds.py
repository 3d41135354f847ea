"""proctree-execd started with a standard descriptor closed, or with stdout
and stderr sharing one open file description.

Why: a descriptor of 0, 1 or 2 that whoever started us closed is the next
one open() returns. A kept cgroup.procs would take it, and the launched
command's dup2 onto that number replace it: the command stays outside its
cgroup (its cgroup_* read another's usage) or writes a stray "0" into its
output file; a netlink socket on 0 read as stdin ends the program at once.
And O_NONBLOCK belongs to the open file description: set on a stdout that
stderr shares (2>&1, a journal stream), it made the command's stderr
non-blocking under --command-output stderr, and a write that had to wait
failed with EAGAIN. So: 0-2 are opened on /dev/null when closed, and the
output's non-blocking mode is proctree-execd's own description's.
"""

import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

import harness as h

CGROUP_LINE = re.compile(r"^0::(.*)$", re.M)


def closing(*fds):
    def close():
        for fd in fds:
            os.close(fd)
    return close


class StandardDescriptors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-stdfds-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.cgroup = os.path.join(self.tmp, "cgroup")

    def command(self, before=""):
        """A command that says its own cgroup v2 path into self.cgroup."""
        return ["--", "sh", "-c", before + 'cat /proc/$$/cgroup > "$0"', self.cgroup]

    def assert_in_launch_cgroup(self, execd_pid, describe):
        with open(self.cgroup) as f:
            path = CGROUP_LINE.search(f.read()).group(1)
        self.assertTrue(path.endswith(f"/proctree-launch-{execd_pid}"), f"the command's cgroup {path}\n{describe}")

    def run_closed(self, fds, args, **kw):
        proc = subprocess.run([h.execd_path(), "--once", "--interval", "0.3s"] + args, preexec_fn=closing(*fds),
                              capture_output=True, text=True, timeout=h.BATCH_TIMEOUT, **kw)
        return proc, f"status {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"

    def test_closed_stderr_keeps_the_command_in_its_cgroup(self):
        proc = subprocess.Popen([h.execd_path(), "--once", "--interval", "0.3s"] + self.command(),
                                preexec_fn=closing(2), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        out, _ = proc.communicate(timeout=h.BATCH_TIMEOUT)
        self.assertEqual(proc.returncode, 0, out)
        points = [h.parse_line(line) for line in out.splitlines()]
        self.assertEqual(len([p for p in points if p.tags]), 1, out)
        self.assert_in_launch_cgroup(proc.pid, out)

    def test_closed_stdout_writes_nothing_into_the_output_file(self):
        output = os.path.join(self.tmp, "output")
        proc = subprocess.Popen([h.execd_path(), "--once", "--interval", "0.3s", "--command-output", output] +
                                self.command("echo hello; "), preexec_fn=closing(1), stdin=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        _, err = proc.communicate(timeout=h.BATCH_TIMEOUT)
        self.assertEqual(proc.returncode, 0, err)
        with open(output) as f:
            self.assertEqual(f.read(), "hello\n", err)
        self.assert_in_launch_cgroup(proc.pid, err)

    def test_closed_stdin_keeps_the_cgroup_and_the_program(self):
        proc = subprocess.Popen([h.execd_path(), "--once", "--interval", "0.3s"] + self.command(),
                                preexec_fn=closing(0), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = proc.communicate(timeout=h.BATCH_TIMEOUT)
        self.assertEqual(proc.returncode, 0, err)
        self.assert_in_launch_cgroup(proc.pid, err)
        # without a command: /dev/null is no pipe, so the timed mode runs on
        # (it exited at once when a socket took 0 and read as stdin's end)
        sleeper = subprocess.Popen(["sleep", "60"])
        self.addCleanup(h.stop_process, sleeper)
        with h.Execd(["--interval", "0.2s", "--pid", sleeper.pid], stdin=None, preexec_fn=closing(0)) as execd:
            batches = execd.wait_batches(3)
            self.assertIsNone(execd.proc.poll(), execd.describe())
        for _, points in batches:
            for p in points:
                h.assert_line_possible(self, p)
            self.assertEqual(h.target_line(points, "sleep").fields["proc_processes"], 1, execd.describe())

    def test_command_gets_a_blocking_stderr_that_stdout_shares(self):
        """2>&1 and --command-output stderr: the command's writes to its
        stderr wait for the reader, as programs expect, while our own
        output never blocks."""
        size = 4 << 20  # far past a pipe's 64 KiB, so dd must wait
        proc = subprocess.Popen([h.execd_path(), "--interval", "0.2s", "--command-output", "stderr", "--", "sh",
                                 "-c", f"dd if=/dev/zero bs=64k count={size >> 16} status=none >&2"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        time.sleep(0.5)  # the reader is late: the pipe fills and dd waits
        data = []
        reader = threading.Thread(target=lambda: data.append(proc.stdout.read()), daemon=True)
        reader.start()
        reader.join(h.BATCH_TIMEOUT * 2)
        proc.stdin.close()
        status = proc.wait(timeout=h.BATCH_TIMEOUT)
        out = data[0] if data else b""
        text = out.replace(b"\0", b"").decode("utf-8", "replace")
        self.assertEqual(status, 0, f"the command's status (dd's):\n{text[-2000:]}")
        self.assertEqual(out.count(b"\0"), size, text[-2000:])
        self.assertNotIn("Resource temporarily unavailable", text)
        self.assertIn("proctree,target=sh ", text)


if __name__ == "__main__":
    unittest.main(verbosity=2)
