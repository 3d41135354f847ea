"""The tree of test_net_udp.py attached by Pid in collectd, with the BPF
source: the catalog gives the plugin the same two values,
proc_net_udp_sent_bytes and proc_net_udp_received_bytes, and their csv
rows sum to exactly what the tree's calls returned (5,000,000 bytes sent,
2,000,000 received, a forked child's share included).
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import unittest

import collectd_harness as ch
import harness as h
from test_net_udp import CHILD, RECEIVED, SENT, STEPS, Server


class CollectdNetUdp(unittest.TestCase):
    def test_collectd(self):
        server = Server(socket.AF_INET, "127.0.0.1")
        steps = tempfile.mkdtemp(prefix="proctree-udp-")
        out = os.path.join(steps, "totals")
        for step in ("child", "more"):  # the tree goes on without waiting for batches
            open(os.path.join(steps, step), "w").close()
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(int(socket.AF_INET)), "127.0.0.1",
                                  str(server.port), steps, out])
        try:
            with tempfile.TemporaryDirectory(prefix="proctree-collectd-udp-") as tmp, \
                    ch.Collectd(tmp, '  Source "bpf"\n' + ch.process_block("udp", f"Pid {child.pid}")) as collectd:
                # a read that counted it: a member from then on (its past left out, none)
                collectd.wait_csv("udp", "proc_net_udp_sent_bytes")
                open(os.path.join(steps, "go"), "w").close()
                h.wait_until(lambda: os.path.exists(out), h.BATCH_TIMEOUT, "the tree's totals")
                with open(out) as f:
                    sent_calls, received_calls, _, _ = json.load(f)
                rows = len(collectd.csv_rows("udp", "proc_net_udp_sent_bytes"))
                collectd.wait_csv("udp", "proc_net_udp_sent_bytes", count=rows + 2)
                collectd.wait_csv("udp", "proc_net_udp_received_bytes", count=rows + 2)
                sent = collectd.csv_sum("udp", "proc_net_udp_sent_bytes")
                received = collectd.csv_sum("udp", "proc_net_udp_received_bytes")
                self.assertEqual(sent, sent_calls, collectd.log()[-2000:])
                self.assertEqual(received, received_calls, collectd.log()[-2000:])
                for total, want in ((sent, SENT), (received, RECEIVED)):
                    self.assertGreaterEqual(total, want * 0.98)
                    self.assertLessEqual(total, want * 1.02)
                open(os.path.join(steps, "end"), "w").close()
                self.assertEqual(child.wait(h.BATCH_TIMEOUT), 0)
                self.assertNotIn("proc_net_udp_* are left out", collectd.log())
        finally:
            if child.poll() is None:
                h.stop_process(child)
            server.close()
            for name in STEPS:
                if os.path.exists(os.path.join(steps, name)):
                    os.unlink(os.path.join(steps, name))
            os.rmdir(steps)


if __name__ == "__main__":
    unittest.main(verbosity=2)
