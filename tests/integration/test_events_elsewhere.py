"""Another listener of the kernel's process events on the host, and proctree
in a pid namespace of its own.

Why: the kernel ignores a listen request from outside the host's pid
namespace, yet while anything on the host listens (another proctree, an
audit or monitoring tool), the events still reach every socket bound to the
connector there. proctree took its namespace's /proc (one pid in NSpid) for
the host's, listened, and restarted its wait for the kernel's answer at every
event: proctree-execd printed nothing for seconds or for good, collectd never
finished its init (no plugin collected anything), and when it did start it
applied the host's pids to its namespace's processes. execd-matching failed
on any host where something else listened.

Here the test starts the other listener (a proctree-execd on the host that
follows events) and a fork loop that keeps events coming, then runs
proctree-execd and collectd with proctree.so in `unshare --pid --fork
--mount-proc`: the first batch arrives within 2 s (0.5 s interval), the
start says there are no process events because of the pid namespace, the
tree is counted right, and collectd's init completes within 2 s.
"""

import os
import shutil
import subprocess
import tempfile
import time
import unittest

import collectd_harness as ch
import harness as h

MIB_EACH = 8
PROCESSES = 3
FIRST_BATCH = 2.0
INIT = 2.0
UNSHARE = [shutil.which("unshare") or "/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]


class EventsElsewhere(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="proctree-events-elsewhere-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        # the other listener, on the host
        listener = h.Execd(["--interval", "1s", "--no-global", "--pid", os.getpid(), "--name", "listener"])
        self.addCleanup(listener.stop)
        listener.wait_for(lambda e: [l for l in e.stderr_lines() if "following the kernel's process events" in l],
                          h.START_TIMEOUT, "the other listener to follow the events")
        # and events for it to hear, all the time
        churn = subprocess.Popen(["sh", "-c", "while :; do /bin/true; done"])
        self.addCleanup(h.stop_process, churn)

    def test_execd_starts_at_once_and_counts_right(self):
        tree = f"sleep 300 | {h.memtree_path()} {PROCESSES} {MIB_EACH} >/dev/null"
        script = f'{tree} & exec "$0" --interval 0.5s --no-global --pid $! --name tree'
        started = time.monotonic()
        with h.Execd([], wrapper=UNSHARE + ["sh", "-c", script]) as execd:
            execd.wait_batches(1, timeout=h.START_TIMEOUT)
            first = time.monotonic() - started

            def whole(e):
                line = next((p for _, points in reversed(e.batches()) for p in points
                             if p.tags.get("target") == "tree"), None)
                return line is not None and line.fields["proc_processes"] == PROCESSES
            execd.wait_for(whole, h.START_TIMEOUT, "the whole tree")
            line = next(p for _, points in reversed(execd.batches()) for p in points if p.tags.get("target") == "tree")
        msg = execd.describe()
        self.assertLess(first, FIRST_BATCH, msg)
        self.assertGreaterEqual(line.fields["proc_rss_max"], PROCESSES * MIB_EACH * h.MIB, msg)
        said = [l for l in execd.stderr_lines() if "no process events" in l]
        self.assertEqual(len(said), 1, msg)
        self.assertIn("this process runs in another pid namespace", said[0], msg)
        self.assertFalse([l for l in execd.stderr_lines() if "following the kernel's process events" in l], msg)

    def test_collectd_finishes_its_init_at_once(self):
        body = ch.process_block("self", "Pid 1")  # the namespace's collectd itself
        collectd = ch.Collectd(self.tmp, body, wrapper=UNSHARE)
        started = time.monotonic()
        with collectd:
            h.wait_until(lambda: "Initialization complete" in collectd.log(), h.START_TIMEOUT,
                         "collectd's init\n" + collectd.log())
            init = time.monotonic() - started
            rows = collectd.wait_csv("self", "proc_processes")
        log = collectd.log()
        self.assertLess(init, INIT, log)
        self.assertEqual(rows[-1][1], 1, log)
        self.assertIn("no process events", log)
        self.assertIn("this process runs in another pid namespace", log)


if __name__ == "__main__":
    unittest.main(verbosity=2)
