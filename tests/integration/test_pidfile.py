"""--pidfile: a target that disappears and comes back.

Why: services restart and get a new pid. proctree-execd must not exit when
its target is gone (Telegraf would log an error and restart it after 10 s),
must say so once on stderr as a Telegraf warning ("W! "), not at every
interval, must keep the target's line with proc_processes=0 meanwhile (so an
alert can fire on it) but without memory or I/O fields (no zeros that would
look like a measurement), and must pick up the new pid from the pidfile at
its next discovery ticks.

Why, too: whoever can write the pid file chooses what proctree opens. A
FIFO must not hang it (it used to block in open(), deaf to SIGTERM), a
symlink to /dev/zero must not make it read megabytes, and a real pid file
with more than a pid (PostgreSQL's postmaster.pid: test_postgresql.py) must
be read from its first line.
"""

import os
import signal
import subprocess
import tempfile
import time
import unittest

import harness as h

INTERVAL = 0.3
DISCOVERY = 0.2
QUIET_BATCHES = 5  # intervals without the target during which the warning must not repeat
COMEBACK_LIMIT = 2 * DISCOVERY + 2 * INTERVAL + 1.5  # a couple of ticks, plus a noisy machine
SIGTERM_LIMIT = 2.0  # a prompt exit, whatever the pid file is
HWM_LIMIT = 8 * h.MIB  # proctree-execd peaks near 2 MiB; a 16 MiB read of /dev/zero shows


def start_sleeper():
    return subprocess.Popen(["sleep", "600"])


def replace_pidfile(path, make):
    """Replace the pidfile atomically by what make(tmp_path) creates."""
    tmp = path + ".tmp"
    make(tmp)
    os.rename(tmp, path)


def peak_resident_bytes(pid):
    """VmHWM of /proc/PID/status: the most memory it ever held."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmHWM in /proc/{pid}/status")


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
        h.write_pidfile(self.pidfile, first.pid)
        execd = self.start_execd()

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
        h.write_pidfile(self.pidfile, second.pid)
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

    def test_fifo_pidfile_neither_hangs_nor_blocks_sigterm(self):
        sleeper = self.sleeper()
        h.write_pidfile(self.pidfile, sleeper.pid)
        execd = self.start_execd()
        self.wait_batch(execd, present=True)

        # A FIFO with no writer: an open() for reading would wait for one.
        replace_pidfile(self.pidfile, os.mkfifo)
        sleeper.kill()
        sleeper.wait()
        gone_from = self.wait_batch(execd, present=False)
        execd.wait_batches(gone_from + QUIET_BATCHES)
        self.assert_one_warning(execd, "is a FIFO, not a regular file")

        execd.signal(signal.SIGTERM)
        self.assertEqual(execd.wait_exit(timeout=SIGTERM_LIMIT), 0, execd.describe())

    def test_dev_zero_pidfile_is_not_read(self):
        replace_pidfile(self.pidfile, lambda tmp: os.symlink("/dev/zero", tmp))
        # procfs: the BPF source's load peaks near 14 MiB for a moment (libbpf
        # reads the kernel's BTF, about 6 MiB, and indexes it), which is not
        # what this measures
        execd = self.start_execd("--source", "procfs")
        # Enough discovery ticks that each would have read /dev/zero.
        batches = execd.wait_batches(QUIET_BATCHES)
        for _, points in batches:
            self.assertEqual(h.target_line(points, "myservice").fields["proc_processes"], 0, points)
        peak = peak_resident_bytes(execd.pid)
        self.assertLess(peak, HWM_LIMIT, f"proctree-execd peaked at {peak / h.MIB:.1f} MiB")
        print(f"peak resident {peak / h.MIB:.1f} MiB")
        self.assert_one_warning(execd, "is a character device, not a regular file")

    def start_execd(self, *extra):
        execd = h.Execd(["--pidfile", self.pidfile, "--interval", f"{INTERVAL}s",
                         "--discovery-interval", f"{DISCOVERY}s", *extra])
        self.addCleanup(execd.stop)
        return execd

    def assert_one_warning(self, execd, why):
        """Exactly one W! line says why, and it names the pid file."""
        about = [line for line in execd.stderr_lines() if line.startswith("W! ") and why in line]
        self.assertEqual(len(about), 1, f"expected one W! line saying {why!r}:\n{execd.stderr_lines()}")
        self.assertIn(self.pidfile, about[0])

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
