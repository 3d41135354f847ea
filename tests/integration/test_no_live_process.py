"""A target with no live process says why, once per reason.

Why: "no live process; will keep looking" looked the same for a stopped
service, a pid file that is not there, a cgroup that was never made and a
/proc that hides the service from the agent's user. Each is now told apart
in one W! line, said again only when the reason changes, and a target that
comes back says so.
"""

import os
import subprocess
import tempfile
import unittest

import accounting_helpers as ah
import harness as h


def reasons(execd):
    return [l for l in execd.stderr_lines() if l.startswith("W! ") and "no live process:" in l]


class NoLiveProcess(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="proctree-empty-")
        self.addCleanup(self.tmp.cleanup)

    def wait_reason(self, execd, text, count):
        execd.wait_for(lambda e: len(reasons(e)) >= count and text in reasons(e)[count - 1], h.BATCH_TIMEOUT,
                       f"reason {count}: {text!r}")

    def test_pid_file_reasons_each_once(self):
        path = os.path.join(self.tmp.name, "svc.pid")
        with h.Execd(["--pidfile", path, "--name", "svc", "--interval", "0.2s",
                      "--discovery-interval", "0.1s"]) as execd:
            self.wait_reason(execd, f'pid file "{path}" does not exist', 1)
            dead = subprocess.Popen(["true"])
            dead.wait()
            with open(path, "w") as f:
                f.write(f"{dead.pid}\n")
            self.wait_reason(execd, f"pid {dead.pid} is not running", 2)
            open(path, "w").close()
            self.wait_reason(execd, "names no pid (see its warning)", 3)
            os.unlink(path)
            os.mkfifo(path)
            self.wait_reason(execd, "names no pid (see its warning)", 4)
            self.assertTrue(any("is a FIFO, not a regular file" in l for l in execd.stderr_lines()))
            os.unlink(path)
            with h.memtree(1, 1) as tree:
                with open(path, "w") as f:
                    f.write(f"{tree.pid}\n")
                execd.wait_for(lambda e: any(f"following pid {tree.pid} again" in l for l in e.stderr_lines()),
                               h.BATCH_TIMEOUT, "the target back")
            self.wait_reason(execd, f"pid {tree.pid} is not running", 5)  # the service stopped
            execd.wait_batches(execd.batch_count() + 3)  # the same reason: nothing said again
        self.assertEqual(len(reasons(execd)), 5, execd.describe())

    def test_missing_cgroup(self):
        name = f"proctree-no-such-{os.getpid()}"
        with h.Execd(["--cgroup", f"/{name}", "--name", "cg", "--interval", "0.2s"]) as execd:
            self.wait_reason(execd, f'{name}" does not exist', 1)

    def test_processes_hidden_by_hidepid(self):
        """/proc mounted hidepid=2 in a mount namespace of its own: proctree
        as nobody cannot see root's process, and says so."""
        self.assertEqual(os.getuid(), 0)
        wrapper, program = ah.execd_as_nobody(self, "proctree-hidepid-")
        with h.memtree(1, 1) as tree:
            inner = " ".join(wrapper) + f' {program} --pid {tree.pid} --name hid --interval 0.2s'
            script = f"mount -t proc -o hidepid=2 proc /proc && exec {inner}"
            with h.Execd([], wrapper=["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"],
                         program="true") as execd:
                self.wait_reason(execd, f"pid {tree.pid} runs but the proc root does not show it: it is mounted "
                                 "hidepid=", 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
