"""With proctree loaded and sampling, collectd stops within 2 s of SIGTERM.

The sampler thread sleeps on a condition variable that the shutdown
callback signals, so stopping never waits for the next poll or discovery,
however far away they are.
"""

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
                start = time.monotonic()
                collectd.proc.send_signal(signal.SIGTERM)
                status = collectd.proc.wait(h.START_TIMEOUT)
                elapsed = time.monotonic() - start
                self.assertLess(elapsed, STOP_LIMIT, collectd.log())
                self.assertEqual(status, 0, collectd.log())
                self.assertIn("Exiting normally", collectd.log())


if __name__ == "__main__":
    unittest.main()
