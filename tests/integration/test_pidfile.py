"""--pidfile: a target that disappears and comes back.

Why: services restart and get a new pid. proctree-execd must not exit when
its target is gone (Telegraf would log an error and restart it after 10 s),
must say so once on stderr as a Telegraf warning ("W! "), not at every
interval, must keep the target's line with proc_processes=0 meanwhile (so an
alert can fire on it) but without memory or I/O fields (no zeros that would
look like a measurement), and must pick up the new pid from the pidfile at
its next discovery ticks.
"""

import os
import subprocess
import tempfile
import time
import unittest

import harness as h

INTERVAL = 0.3
DISCOVERY = 0.2
QUIET_BATCHES = 5  # intervals without the target during which the warning must not repeat
COMEBACK_LIMIT = 2 * DISCOVERY + 2 * INTERVAL + 1.5  # a couple of ticks, plus a noisy machine


def start_sleeper():
    return subprocess.Popen(["sleep", "600"])


def write_pidfile(path, pid):
    """Replace the pidfile atomically, as a service manager does (no half-written pid)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{pid}\n")
    os.rename(tmp, path)


class PidfileTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="proctree-pidfile-")
        self.addCleanup(self.dir.cleanup)
        self.pidfile = os.path.join(self.dir.name, "myservice.pid")
        self.sleepers = []

    def tearDown(self):
        for p in self.sleepers:
            p.kill()
            p.wait()

    def sleeper(self):
        p = start_sleeper()
        self.sleepers.append(p)
        return p

    def test_target_goes_and_comes_back(self):
        first = self.sleeper()
        write_pidfile(self.pidfile, first.pid)
        execd = h.Execd(["--pidfile", self.pidfile, "--interval", f"{INTERVAL}s",
                         "--discovery-interval", f"{DISCOVERY}s"])
        self.addCleanup(execd.stop)

        # Present: default name is the pidfile's base name without ".pid".
        execd.wait_for(lambda e: self.last_line(e) is not None, h.BATCH_TIMEOUT,
                       "a batch with target=myservice")

        # Gone: killed and reaped (a zombie would still have a /proc entry).
        first.kill()
        first.wait()
        gone_from = self.wait_batch(execd, present=False)
        execd.wait_batches(gone_from + QUIET_BATCHES)
        self.assertTrue(execd.running(), f"exited when the target vanished\n{execd.describe()}")
        batches = execd.batches()
        for _, points in batches[gone_from:]:
            # the line stays, so an alert on proc_processes == 0 can fire
            line = h.target_line(points, "myservice")
            self.assertIsNotNone(line, points)
            self.assertEqual(line.fields["proc_processes"], 0, line.raw)
            self.assertNotIn("proc_rss_max", line.fields, "memory of no process is absent, not 0")
            h.global_line(points)  # the global line goes on
        warnings = [line for line in execd.stderr_lines() if line.startswith("W! ")]
        about = [line for line in warnings if "myservice" in line]
        self.assertEqual(len(about), 1, f"expected one W! line naming myservice over "
                         f"{len(batches) - gone_from} intervals, got:\n{execd.stderr_lines()}")

        # Back: a new process in the pidfile is found within a couple of ticks.
        second = self.sleeper()
        written = time.monotonic()
        write_pidfile(self.pidfile, second.pid)
        self.wait_batch(execd, present=True, timeout=COMEBACK_LIMIT)
        elapsed = time.monotonic() - written
        line = self.last_line(execd)
        self.assertEqual(line.fields["proc_processes"], 1, line.raw)
        self.assertTrue(execd.running())
        print(f"target back {elapsed:.2f}s after the pidfile changed")

        execd.close_stdin()
        self.assertEqual(execd.wait_exit(), 0, execd.describe())
        with h.InfluxDB() as influx:
            h.store_and_read_back(influx, "pidfile", execd.stdout_bytes(), execd.points())

    @staticmethod
    def last_line(execd):
        """The myservice line of the latest batch, or None."""
        batches = execd.batches()
        return h.target_line(batches[-1][1], "myservice") if batches else None

    @staticmethod
    def alive(points):
        """Whether a batch shows myservice with a live process."""
        line = h.target_line(points, "myservice")
        return line is not None and line.fields["proc_processes"] > 0

    def wait_batch(self, execd, present, timeout=h.BATCH_TIMEOUT):
        """Index of the first batch, printed from now on, whose target has (no) live process."""
        start = execd.batch_count()

        def found(e):
            return any(self.alive(points) == present for _, points in e.batches()[start:])
        execd.wait_for(found, timeout, f"a batch {'with' if present else 'without'} a live myservice")
        for i, (_, points) in enumerate(execd.batches()[start:], start):
            if self.alive(points) == present:
                return i


if __name__ == "__main__":
    unittest.main(verbosity=2)
