"""With proctree loaded and sampling, collectd stops within 2 s of SIGTERM.

The sampler thread sleeps on a condition variable that the shutdown
callback signals, so stopping never waits for the next poll or discovery,
however far away they are.

Nor does anything wait on a pid file: one that is a FIFO (whoever writes
the pid file can make it one) used to block the plugin's init in open(),
so collectd dispatched nothing and then hung in shutdown.
"""

import os
import signal
import tempfile
import time
import unittest

import collectd_harness as ch
import harness as h

STOP_LIMIT = 2.0


class CollectdShutdown(unittest.TestCase):
    def test_sigterm_stops_collectd_promptly(self):
        for seconds in ("0.1", "30"):
            intervals = f"  PollInterval {seconds}\n  DiscoveryInterval {seconds}\n"
            with self.subTest(intervals=seconds), h.memtree(3, 4) as tree, \
                    tempfile.TemporaryDirectory(prefix="proctree-collectd-stop-") as tmp, \
                    ch.Collectd(tmp, intervals + ch.process_block("tree", f"Pid {tree.pid}")) as collectd:
                collectd.wait_csv("tree", "proc_rss_max", count=2)  # loaded, sampling, read twice
                self.assert_stops_promptly(collectd)

    def test_fifo_pidfile_blocks_nothing(self):
        with h.memtree(2, 4) as tree, tempfile.TemporaryDirectory(prefix="proctree-collectd-fifo-") as tmp:
            fifo = os.path.join(tmp, "service.pid")
            os.mkfifo(fifo)
            body = (ch.process_block("fifo", f'PidFile "{fifo}"') + ch.process_block("tree", f"Pid {tree.pid}"))
            with ch.Collectd(tmp, "  DiscoveryInterval 0.2\n" + body) as collectd:
                # the other target's values go on, and the FIFO's target says it has no process
                collectd.wait_csv("tree", "proc_rss_max", count=3)
                self.assertEqual(collectd.wait_csv("fifo", "proc_processes")[-1][1], 0, collectd.log())
                warnings = [line for line in collectd.log().splitlines() if "is a FIFO, not a regular file" in line]
                self.assertEqual(len(warnings), 1, collectd.log())
                self.assertIn(fifo, warnings[0])
                self.assert_stops_promptly(collectd)

    def assert_stops_promptly(self, collectd):
        start = time.monotonic()
        collectd.proc.send_signal(signal.SIGTERM)
        status = collectd.proc.wait(h.START_TIMEOUT)
        elapsed = time.monotonic() - start
        self.assertLess(elapsed, STOP_LIMIT, collectd.log())
        self.assertEqual(status, 0, collectd.log())
        self.assertIn("Exiting normally", collectd.log())


if __name__ == "__main__":
    unittest.main()
