"""The tree of test_net_namespace.py attached by Pid in collectd: the
catalog gives the plugin the same four values, netns_received_bytes,
netns_sent_bytes, netns_received_packets and netns_sent_packets, and
their csv rows sum to the growth of the veth's own counters within 2 %
(its loopback's 2,000,000 bytes not among them); with CollectNet false,
none of them.
"""

import os
import subprocess
import tempfile
import unittest

import collectd_harness as ch
import harness as h
from test_net_namespace import NETNS_FIELDS, Moved, can_make_namespaces


class CollectdNetNamespace(unittest.TestCase):
    def setUp(self):
        can_make_namespaces(self)

    def test_collectd(self):
        moved = Moved(self)
        child = subprocess.Popen(moved.argv())
        try:
            pid = moved.join()
            with tempfile.TemporaryDirectory(prefix="proctree-collectd-netns-") as tmp, \
                    ch.Collectd(tmp, ch.process_block("ns", f"Pid {pid}")) as collectd:

                def read_once():
                    collectd.wait_csv("ns", "netns_received_bytes")

                def read_after(when_ns):
                    # two rows read after it: a row's time may be stamped before its reads
                    h.wait_until(lambda: len([e for e, _ in collectd.csv_rows("ns", "netns_received_bytes")
                                              if e > when_ns / 1e9]) >= 2, h.BATCH_TIMEOUT,
                                 "two rows read after the last byte")

                kernel = moved.move(read_once, read_after)
                sums = tuple(collectd.csv_sum("ns", f) for f in NETNS_FIELDS)
                moved.check(sums, kernel, lambda: f"sums {sums}, kernel {kernel}\n{collectd.log()[-2000:]}")
                self.assertEqual(child.wait(h.BATCH_TIMEOUT), 0)
        finally:
            if child.poll() is None:
                h.stop_process(child)
            moved.close()

    def test_collect_net_false(self):
        child = subprocess.Popen(["unshare", "--net", "sleep", "30"])
        try:
            with tempfile.TemporaryDirectory(prefix="proctree-collectd-netns-") as tmp, \
                    ch.Collectd(tmp, ch.process_block("ns", f"Pid {child.pid}", "CollectNet false")) as collectd:
                collectd.wait_csv("ns", "proc_processes", count=3)
                for field in NETNS_FIELDS:
                    self.assertEqual(collectd.csv_rows("ns", field), [], field)
        finally:
            h.stop_process(child)


if __name__ == "__main__":
    unittest.main(verbosity=2)
