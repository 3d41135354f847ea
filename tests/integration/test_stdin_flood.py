"""An always-readable stdin never keeps proctree-execd from its signals.

/dev/zero and /dev/urandom are readable at every poll and never end, and
/dev/zero never holds a newline: proctree-execd reads a bounded amount of
stdin per wake-up and drops it, so SIGTERM still stops it, with status 0.
The bound on the wait is generous: it only limits how long a failing run
takes (before the fix SIGTERM was ignored for ever).
"""

import signal
import subprocess
import unittest

from harness import START_TIMEOUT, Execd


def read_bytes(pid):
    """rchar of /proc/PID/io: every byte it read, stdin and /proc alike."""
    with open(f"/proc/{pid}/io") as f:
        return int(f.readline().split()[1])


class StdinFlood(unittest.TestCase):
    def flood(self, device):
        sleeper = subprocess.Popen(["sleep", "600"])
        try:
            with open(device, "rb") as stdin:
                execd = Execd(["--pid", sleeper.pid], stdin=stdin)
            try:
                # the mode line: it started and got past its setup
                execd.wait_for(lambda e: any(line.startswith("I! ") for line in e.stderr_lines()),
                               START_TIMEOUT, "its start line")
                # several wake-ups' worth of stdin read: the loop is past its
                # first read of stdin (a SIGTERM before that is no test)
                execd.wait_for(lambda e: read_bytes(e.pid) >= 256 * 1024, START_TIMEOUT, "256 KiB read")
                execd.signal(signal.SIGTERM)
                self.assertEqual(execd.wait_exit(timeout=START_TIMEOUT), 0, execd.describe())
            finally:
                execd.stop()
        finally:
            sleeper.kill()
            sleeper.wait()

    def test_dev_zero(self):
        self.flood("/dev/zero")

    def test_dev_urandom(self):
        self.flood("/dev/urandom")


if __name__ == "__main__":
    unittest.main(verbosity=2)
