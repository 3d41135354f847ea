"""collector_cpu_seconds covers what the kernel's event streams cost.

Every fork and exit on the host reaches proctree as a process event and an
exit record, whether or not it is in a target's tree. A fork storm
elsewhere (5,000 short processes) makes draining them most of what
proctree-execd does; the sum of collector_cpu_seconds over the batches
must then cover at least half of the CPU the kernel charged to the
process meanwhile (/proc/PID/schedstat: exact run time, in ns). The
factor is lenient: the loop, the output and ppoll are not measured, and
before the drains were counted the sum was a small fraction.
"""

import os
import subprocess
import unittest

from harness import BATCH_TIMEOUT, Execd, target_line

FORKS = 5000


def run_ns(pid):
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0])


class CollectorCost(unittest.TestCase):
    def test_drains_are_counted(self):
        if os.geteuid() != 0:
            self.skipTest("exit records need CAP_NET_ADMIN")
        sleeper = subprocess.Popen(["sleep", "600"])
        try:
            with Execd(["--pid", sleeper.pid, "--name", "idle"]) as execd:
                execd.send()
                execd.wait_batches(1)
                start = run_ns(execd.pid)
                subprocess.run(["perl", "-e", f"for (1..{FORKS}) {{ my $p = fork; exit 0 unless $p; waitpid $p, 0 }}"],
                               check=True, timeout=300)
                execd.send()
                batches = execd.wait_batches(2, timeout=BATCH_TIMEOUT)
                used = (run_ns(execd.pid) - start) / 1e9
                reported = target_line(batches[1][1], "idle").fields["collector_cpu_seconds"]
                self.assertGreaterEqual(reported, 0.5 * used,
                                        f"reported {reported:.4f}s of {used:.4f}s used\n{execd.describe()}")
        finally:
            sleeper.kill()
            sleeper.wait()


if __name__ == "__main__":
    unittest.main(verbosity=2)
